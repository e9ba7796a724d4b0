// The machine-wide record of live runs: its text, liveness by lock (a dead
// run's file is not live, whatever its pid), trust of the directory and of
// each file, and nothing left behind.
#include "util/run_registry.hpp"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "tests/support/temp_dir.hpp"

using namespace mptrain;
using mptrain::test::TempDir;

namespace {

RunRecord a_run() {
  RunRecord record;
  record.pid = ::getpid();
  record.start = 12345;
  record.uid = ::geteuid();
  record.cpus = CpuSet::parse("0-1").value();
  record.nodes = CpuSet::parse("0").value();
  record.workers = 2;
  record.threads = 1;
  record.started = 1700000000;
  record.command = "python3 train.py --lr 0.1";
  return record;
}

std::size_t files_in(const std::filesystem::path& directory) {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(directory)) ++count;
  return count;
}

}  // namespace

TEST_CASE("a run's record reads back as written - anything else is refused with what is wrong") {
  const auto record = a_run();
  CHECK(parse_record(record_text(record)).value() == record);
  auto newline = record;
  newline.command = "a\nb";
  CHECK(parse_record(record_text(newline)).value().command == "a b");  // one line, whatever the command
  CHECK_THAT(parse_record("pid 1\n").error().message, Catch::Contains("has no start"));
  CHECK_THAT(parse_record(record_text(record) + "pid 2\n").error().message,
             Catch::Contains("is not one mptrain writes"));
  CHECK_THAT(parse_record("pid -4\n").error().message, Catch::Contains("pid is not a number from 1"));
  CHECK_THAT(parse_record("cpus x-y\n").error().message, Catch::Contains("not a CPU list"));
  CHECK_THAT(parse_record("color blue\n").error().message, Catch::Contains("'color blue'"));
  CHECK_THAT(parse_record("state sleeping\n").error().message,
             Catch::Contains("state is not one of planning, waiting, running: sleeping"));
  auto waiting = record;
  waiting.state = RunState::waiting;
  waiting.arrived = 1700000000123456789;
  waiting.need = 4;
  waiting.elastic = false;
  CHECK(parse_record(record_text(waiting)).value() == waiting);
}

TEST_CASE("a registered run is live for every reader until it lets go - then nothing is left") {
  TempDir dir;
  const auto runs = dir.path / "runs";
  CHECK(live_runs(runs).value().empty());  // no directory yet: no runs
  {
    auto registration = RunRegistration::create(runs, a_run());
    REQUIRE(registration.ok());
    struct stat info {};
    REQUIRE(::lstat(runs.c_str(), &info) == 0);
    CHECK((info.st_mode & 07777) == 01777);  // shared by every user, as /tmp
    REQUIRE(::stat(registration->path().c_str(), &info) == 0);
    CHECK((info.st_mode & 0777) == 0644);  // readable by all, writable by its owner
    const auto live = live_runs(runs).value();
    REQUIRE(live.size() == 1);
    CHECK(live[0] == a_run());
    auto moved = std::move(*registration);  // a moved registration still holds it
    CHECK(live_runs(runs).value().size() == 1);
  }
  CHECK(live_runs(runs).value().empty());
  CHECK(files_in(runs) == 0);
}

TEST_CASE("a run killed with SIGKILL is not live the moment it dies, and its owner's next run removes its file") {
  TempDir dir;
  const auto runs = dir.path / "runs";
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto record = a_run();
    record.pid = ::getpid();
    auto registration = RunRegistration::create(runs, record);
    const char byte = registration.ok() ? 1 : 0;
    (void)::write(ready[1], &byte, 1);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  REQUIRE(byte == 1);
  CHECK(live_runs(runs).value().size() == 1);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  CHECK(live_runs(runs).value().empty());  // its file is there, its lock is gone
  CHECK(files_in(runs) == 1);
  {
    auto next = RunRegistration::create(runs, a_run());
    REQUIRE(next.ok());
    CHECK(files_in(runs) == 1);  // the dead run's file removed, this one's written
  }
  CHECK(files_in(runs) == 0);
}

TEST_CASE("records are read only from files and directories no one else can change") {
  TempDir dir;
  const auto runs = dir.path / "runs";
  auto registration = RunRegistration::create(runs, a_run());
  REQUIRE(registration.ok());
  // A file nobody holds, a link to a live record, and a record others may write are not runs.
  std::ofstream(runs / "mptrain-run-0-1-unheld") << record_text(a_run());
  std::filesystem::create_symlink(registration->path(), runs / "mptrain-run-0-2-link");
  const auto writable = runs / "mptrain-run-0-3-writable";
  std::ofstream(writable) << record_text(a_run());
  ::chmod(writable.c_str(), 0666);
  const int held = ::open(writable.c_str(), O_RDONLY);
  REQUIRE(::flock(held, LOCK_EX) == 0);
  CHECK(live_runs(runs).value().size() == 1);
  ::close(held);
  // A directory others may write without the sticky bit, or a link to one, is refused whole.
  ::chmod(runs.c_str(), 0777);
  CHECK_THAT(live_runs(runs).error().message, Catch::Contains("is not sticky"));
  ::chmod(runs.c_str(), 01777);
  std::filesystem::create_directory_symlink(runs, dir.path / "link");
  CHECK_THAT(live_runs(dir.path / "link").error().message, Catch::Contains("is not a directory"));
  CHECK_FALSE(RunRegistration::create(dir.path / "link", a_run()).ok());
}

TEST_CASE("a record speaks for its file's owner only") {
  if (::geteuid() != 0) {
    WARN("not root: another owner's file needs chown, so only the own-owner case ran");
    return;
  }
  TempDir dir;
  const auto runs = dir.path / "runs";
  auto registration = RunRegistration::create(runs, a_run());
  REQUIRE(registration.ok());
  // A file of uid 65534 that claims to be root's run.
  const auto claimed = runs / "mptrain-run-0-9-claimed";
  std::ofstream(claimed) << record_text(a_run());
  REQUIRE(::chown(claimed.c_str(), 65534, 65534) == 0);
  const int held = ::open(claimed.c_str(), O_RDONLY);
  REQUIRE(::flock(held, LOCK_EX) == 0);
  CHECK(live_runs(runs).value().size() == 1);
  ::close(held);
}
