// The doctor's decisions beside the detector's (monitor/doctor.hpp): its
// exit code, the targets and options it refuses, the pids it watches, the
// CPUs it judges against, and its trace file's messages.
#include "monitor/doctor.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "recorded_trees.hpp"
#include "util/failure.hpp"

using namespace mptrain;
using namespace mptrain::monitor;
using namespace mptrain::monitor::testing;

namespace {

// A /proc tree in a fresh directory, removed at the end: write() puts a file in it.
struct FakeProc {
  FakeProc() : dir(std::filesystem::temp_directory_path() / ("mptrain-doctor-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir / "proc");
  }
  ~FakeProc() { std::filesystem::remove_all(dir); }
  void write(const std::string& absolute, const std::string& text) const {
    std::filesystem::create_directories((dir / absolute.substr(1)).parent_path());
    std::ofstream(dir / absolute.substr(1)) << text;
  }
  // A stat line for `pid` in `state` with `flags` (field 9).
  void stat(pid_t pid, char state, unsigned flags, const std::string& comm = "job") const {
    write("/proc/" + std::to_string(pid) + "/stat",
          std::to_string(pid) + " (" + comm + ") " + state + " 41 " + std::to_string(pid) + " 1 0 -1 " +
              std::to_string(flags) + " 0 0 0 0 10 2 0 0 20 0 1 0 500 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0\n");
  }
  FsRoot root() const { return FsRoot(dir); }
  std::filesystem::path dir;
};

// Whether any program named `word` is in PATH: none, for these tests.
bool no_program(const std::string&) { return false; }

}  // namespace

TEST_CASE("the doctor's exit code: the command's failure, then a signal, then lost output, then the gate",
          "[monitor]") {
  CHECK(doctor_exit_code({0, 0, false}, false) == exit_code::success);
  CHECK(doctor_exit_code({0, 0, false}, true) == exit_code::doctor_found);
  CHECK(doctor_exit_code({0, 0, true}, true) == exit_code::runtime_failure);
  CHECK(doctor_exit_code({0, 15, true}, true) == 128 + 15);
  CHECK(doctor_exit_code({137, 15, true}, true) == 137);
  CHECK(failed_watch_code({0, 0, false}, exit_code::runtime_failure) == exit_code::runtime_failure);
  CHECK(failed_watch_code({0, 2, false}, exit_code::runtime_failure) == 130);
  CHECK(failed_watch_code({7, 2, false}, exit_code::runtime_failure) == 7);
}

TEST_CASE("a --pid and a command together are refused, and so is a pid given as the command", "[monitor]") {
  CHECK(check_targets({}, {}, no_program).ok());
  CHECK(check_targets({12}, {}, no_program).ok());
  CHECK(check_targets({}, {"python", "train.py"}, no_program).ok());
  const auto both = check_targets({12}, {"sleep", "1"}, no_program);
  REQUIRE_FALSE(both.ok());
  CHECK(both.error().message == "--pid and '-- CMD' cannot be combined; give one of them");
  const auto one = check_targets({}, {"1234"}, no_program);
  REQUIRE_FALSE(one.ok());
  CHECK_THAT(one.error().message, Catch::StartsWith("'1234' looks like a pid") && Catch::Contains("that process") &&
                                      Catch::Contains("give --pid 1234 ("));
  const auto two = check_targets({}, {"12", "x", "34"}, no_program);
  REQUIRE_FALSE(two.ok());
  CHECK_THAT(two.error().message, Catch::Contains("those processes, give --pid 12 --pid 34"));
  CHECK(check_targets({}, {"1234"}, [](const std::string&) { return true; }).ok());
}

TEST_CASE("an --every shorter than --interval is refused", "[monitor]") {
  CHECK(check_every(0, 0.5).ok());
  CHECK(check_every(0.5, 0.5).ok());
  CHECK(check_every(2, 0.5).ok());
  const auto short_every = check_every(0.1, 0.5);
  REQUIRE_FALSE(short_every.ok());
  CHECK(short_every.error().message ==
        "--every 0.1 is shorter than --interval 0.5: each line needs at least one interval; give --every 0.5 or "
        "more, or a shorter --interval");
}

TEST_CASE("a root without a readable /proc/stat is refused", "[monitor]") {
  CHECK(check_proc_readable(v1_tree).ok());
  const FakeProc empty;
  const auto refused = check_proc_readable(empty.root());
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.error().message, Catch::Contains("/proc/stat"));
  CHECK_THAT(refused.error().message,
             !Catch::Contains("the doctor needs /proc"));  // MPTRAIN_FSROOT's message says more
}

TEST_CASE("a --pid that is a zombie or a kernel thread is refused, naming it", "[monitor]") {
  const pid_t self = ::getpid();
  const FakeProc proc;
  proc.stat(self, 'S', 0x400000);
  CHECK(check_watchable(proc.root(), {self}).ok());
  proc.stat(self, 'Z', 0x400000, "py (dead)");
  const auto zombie = check_watchable(proc.root(), {self});
  REQUIRE_FALSE(zombie.ok());
  CHECK_THAT(zombie.error().message,
             Catch::StartsWith(fmt::format("--pid {}: process {} (py (dead)) is a zombie", self, self)) &&
                 Catch::Contains("its parent (pid 41)"));
  proc.stat(self, 'I', 0x208040, "kworker/0:1");
  const auto kernel = check_watchable(proc.root(), {self});
  REQUIRE_FALSE(kernel.ok());
  CHECK_THAT(kernel.error().message, Catch::StartsWith(fmt::format("--pid {}: kworker/0:1 is a kernel thread", self)));
}

TEST_CASE("a --pid of a thread stands for its process, and a process is watched once", "[monitor]") {
  const FakeProc proc;
  proc.write("/proc/100/status", "Name:\tpy\nTgid:\t100\n");
  proc.write("/proc/102/status", "Name:\tpy\nTgid:\t100\n");
  proc.write("/proc/300/status", "Name:\tother\nTgid:\t300\n");
  const auto watched = fold_threads(proc.root(), {102, 300, 100, 999});
  CHECK(watched.processes == std::vector<pid_t>{100, 300, 999});  // 999: unreadable, kept as given
  REQUIRE(watched.threads.size() == 1);
  CHECK(watched.threads[0] == std::pair<pid_t, pid_t>{102, 100});
}

TEST_CASE("a --usable-cpus replaces N, at most the CPUs online", "[monitor]") {
  const CpuSet cpus({0, 1, 2, 3});
  const auto detected = judged_capacity(4, cpus, 8, 0);
  REQUIRE(detected.ok());
  CHECK(detected->usable_cpus == 4);
  CHECK(detected->usable_cpu_list == cpus);
  const auto given = judged_capacity(4, cpus, 8, 8);
  REQUIRE(given.ok());
  CHECK(given->usable_cpus == 8);
  const auto too_many = judged_capacity(4, cpus, 8, 9);
  REQUIRE_FALSE(too_many.ok());
  CHECK(too_many.error().message == "--usable-cpus 9: this machine has only 8 CPUs online; give at most 8");
  CHECK(judged_capacity(1, CpuSet({0}), 0, 64).ok());  // online unknown: not checked
}

TEST_CASE("sampling that could not keep up is said when intervals ran 1.5 times too long", "[monitor]") {
  Diagnosis diagnosis;
  diagnosis.intervals = 4;
  diagnosis.duration_s = 4 * 0.7;
  CHECK_FALSE(slow_sampling_warning(diagnosis, 0.5));
  diagnosis.duration_s = 4 * 0.8;
  const auto slow = slow_sampling_warning(diagnosis, 0.5);
  REQUIRE(slow);
  CHECK(*slow ==
        "sampling could not keep up: intervals of 800 ms on average for the 500 ms asked (--interval); give a longer "
        "--interval");
  diagnosis.intervals = 1;
  CHECK_FALSE(slow_sampling_warning(diagnosis, 0.01));
}

TEST_CASE("a trace that cannot be written says the report is complete and what to do", "[monitor]") {
  const TraceWriter trace;
  CHECK_FALSE(trace_truncation_warning(trace, "t.json"));
  const auto failed = write_trace(trace, "/nonexistent-mptrain-dir/t.json");
  REQUIRE_FALSE(failed.ok());
  CHECK_THAT(failed.error().message, Catch::StartsWith("cannot write the trace: ") &&
                                         Catch::EndsWith("; the report above is complete; give another --trace path"));
}
