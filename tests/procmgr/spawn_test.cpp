#include "procmgr/spawn.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/procmgr/temp_files.hpp"
#include "util/fd.hpp"

using namespace mptrain::procmgr;
using mptrain::test::make_temp_dir;
using mptrain::test::slurp;

namespace {

void write_file(const std::filesystem::path& path, const char* text, mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

// Starts `target` as a child and reaps it; the start's outcome.
mptrain::Status start_and_reap(const ChildTarget& target) {
  const WorkerSpec spec;
  ChildSetup setup;
  setup.spec = &spec;
  auto child = start_child(target, setup);
  REQUIRE(child.ok());
  std::vector<std::string> warnings;
  const auto started = await_start(*child, target, spec, warnings);
  int status = 0;
  ::waitpid(child->pid, &status, 0);
  return started;
}

// Why `program` could not be started as a child (the child is reaped).
std::string start_error(const std::filesystem::path& program) {
  const auto started = start_and_reap(ChildTarget{program.string(), {program.string()}});
  REQUIRE_FALSE(started.ok());
  return started.error().message;
}

}  // namespace

TEST_CASE("a command is found in PATH") {
  auto path = resolve_program("sh", "/nonexistent:/bin:/usr/bin");
  REQUIRE(path.ok());
  CHECK(*path == "/bin/sh");
}

TEST_CASE("a missing command is reported as not found in PATH") {
  auto path = resolve_program("mptrain-no-such-command", "/bin:/usr/bin");
  REQUIRE_FALSE(path.ok());
  CHECK(path.error().message ==
        "cannot run 'mptrain-no-such-command': not found in PATH; check the name or give its path");
}

TEST_CASE("a path that does not exist, a directory and a non-executable file are refused") {
  const auto dir = make_temp_dir();
  write_file(dir / "plain", "echo hi\n", 0644);
  CHECK(resolve_program((dir / "missing").string(), "").error().message.find("no such file") != std::string::npos);
  CHECK(resolve_program(dir.string() + "/", "").error().message.find("is a directory") != std::string::npos);
  CHECK(resolve_program((dir / "plain").string(), "").error().message.find("not executable") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a non-executable file in PATH is named") {
  const auto dir = make_temp_dir();
  write_file(dir / "tool", "echo hi\n", 0644);
  auto path = resolve_program("tool", dir.string());
  REQUIRE_FALSE(path.ok());
  CHECK(path.error().message.find("is not executable") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a script whose #! interpreter is missing names the interpreter") {
  const auto dir = make_temp_dir();
  write_file(dir / "script", "#!/nonexistent/interp -x\necho hi\n", 0755);
  const std::string message = start_error(dir / "script");
  CHECK(message.find("its interpreter '/nonexistent/interp' (from its #! line) does not exist") != std::string::npos);
  CHECK(message.find("No such file") == std::string::npos);
  write_file(dir / "spaced", "#!  /nonexistent/other\n", 0755);
  CHECK(start_error(dir / "spaced").find("'/nonexistent/other'") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a script with Windows line endings is named as such") {
  const auto dir = make_temp_dir();
  write_file(dir / "script", "#!/bin/sh\r\necho hi\r\n", 0755);
  const std::string message = start_error(dir / "script");
  CHECK(message.find("carriage return") != std::string::npos);
  CHECK(message.find("'/bin/sh\\r'") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a command gets back the open-file limit mptrain had before raising it") {
  rlimit limit{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  if (limit.rlim_max < 128) return;  // no room to lower the soft limit below the hard one
  limit.rlim_cur = std::min<rlim_t>(limit.rlim_cur, limit.rlim_max / 2);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &limit) == 0);
  const std::uint64_t raised = mptrain::raise_open_file_limit();
  const auto before = mptrain::soft_open_file_limit_before_raise();
  REQUIRE(before.has_value());
  REQUIRE(raised > *before);
  const auto out = make_temp_dir() / "limit";
  REQUIRE(start_and_reap(ChildTarget{"/bin/sh", {"/bin/sh", "-c", "ulimit -Sn > " + out.string()}}).ok());
  std::string seen;
  std::ifstream(out) >> seen;
  CHECK(seen == std::to_string(*before));
}
