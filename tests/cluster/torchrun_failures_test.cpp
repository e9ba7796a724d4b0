// torchrun's run folder and error files on disk, and the root-cause summary read from them.
#include "cluster/torchrun_failures.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "cluster/torchrun_files.hpp"
#include "tests/support/temp_dir.hpp"

using namespace mptrain;
using namespace mptrain::cluster;
using mptrain::test::TempDir;

namespace {

procmgr::WorkerResult worker(int rank, procmgr::ExitStatus status, bool stopped = false) {
  procmgr::WorkerResult result;
  result.rank = rank;
  result.pid = 100 + rank;
  result.status = status;
  result.stopped = stopped;
  return result;
}

constexpr procmgr::ExitStatus exited_1{procmgr::ExitStatus::Kind::exited, 1};
constexpr procmgr::ExitStatus killed{procmgr::ExitStatus::Kind::signaled, 15};
constexpr procmgr::ExitStatus success{};

}  // namespace

TEST_CASE("the run folder is made under its base, and only a file with content counts as written", "[cluster]") {
  TempDir dir;
  RunFolderPlan plan;
  plan.base = dir.path / "logs";
  plan.prefix = "job_";
  plan.make_base = true;
  CHECK(make_run_folder(plan, true).value() == dir.path / "logs/job_XXXXXX");  // a dry run makes nothing
  CHECK_FALSE(std::filesystem::exists(plan.base));
  const auto folder = make_run_folder(plan, false).value();
  CHECK(folder.parent_path() == plan.base);
  CHECK(folder.filename().string().starts_with("job_"));
  const auto environment = torchrun_attempt_environment(folder, 1, 0);
  CHECK(environment ==
        std::vector<std::string>{"TORCHELASTIC_ERROR_FILE=" + (folder / "attempt_0/1/error.json").string()});
  CHECK(std::filesystem::is_directory(folder / "attempt_0/1"));
  CHECK_FALSE(holds_files(folder));
  std::ofstream(folder / ".mptrain.lock") << "4242\n";  // the run's lock holds its pid, not the run's output
  CHECK_FALSE(holds_files(folder));
  std::ofstream(folder / "attempt_0/1/error.json") << "{}";
  CHECK(holds_files(folder));
  remove_run_folder(folder);
  CHECK_FALSE(std::filesystem::exists(folder));
}

TEST_CASE("a run folder that cannot be made is named with what to do", "[cluster]") {
  RunFolderPlan plan;
  plan.base = "/nonexistent/dir";
  plan.prefix = "mptrain-torchrun-";
  plan.tmpdir = "/nonexistent/dir";
  CHECK_THAT(make_run_folder(plan, false).error().message,
             Catch::StartsWith("cannot create the run's folder in TMPDIR=/nonexistent/dir: ") &&
                 Catch::Contains("set TMPDIR to a directory you can write to"));
  plan.tmpdir.clear();
  CHECK_THAT(make_run_folder(plan, false).error().message,
             Catch::Contains("give --log-dir a directory you can write to"));
}

TEST_CASE("the failures: the root cause first, then others that failed on their own or wrote an error file",
          "[cluster]") {
  TempDir dir;
  procmgr::GroupResult result;
  result.workers = {worker(0, success), worker(1, exited_1), worker(2, killed, true), worker(3, killed, true)};
  result.failed_rank = 1;
  result.restarts = 1;
  torchrun_attempt_environment(dir.path, 1, 1);
  torchrun_attempt_environment(dir.path, 3, 1);
  std::ofstream(torchrun_error_file(dir.path, 1, 1))
      << R"({"message": {"message": "ValueError: bad", "extraInfo": {"py_callstack": "Traceback\n  line 1", "timestamp": "0"}}})";
  std::ofstream(torchrun_error_file(dir.path, 3, 1)) << "not json";
  const auto failures = torchrun_failures(result, dir.path, 1);  // node 1 of workers 4..7
  REQUIRE(failures.size() == 1);  // rank 2 and 3 were stopped; 3's file holds nothing usable
  CHECK(failures[0].rank == 5);
  CHECK(failures[0].local_rank == 1);
  REQUIRE(failures[0].error);
  CHECK(failures[0].error->message == "ValueError: bad");
  const auto summary = torchrun_summary(failures, "train.py", "job");
  CHECK_THAT(summary, Catch::Contains("train.py failed (run id job)") &&
                          Catch::Contains("  rank 5 (local rank 1), pid 101: exit code 1\n") &&
                          Catch::Contains("  time:       1970-01-01 00:00:00 UTC\n") &&
                          Catch::Contains("  message:    ValueError: bad\n") && Catch::Contains("    line 1\n"));
  const auto json = torchrun_failures_json(failures);
  CHECK(json["root_cause"]["rank"] == 5);
  CHECK(json["root_cause"]["timestamp"] == 0);
  CHECK(json["failures"].size() == 1);
  CHECK(torchrun_summary({}, "x", "y").empty());
  CHECK(torchrun_failures_json({})["root_cause"].is_null());
}

TEST_CASE("a failure without an error file says how to get one, and a bad file says why", "[cluster]") {
  TempDir dir;
  procmgr::GroupResult result;
  result.workers = {worker(0, killed), worker(1, exited_1)};
  result.failed_rank = 0;
  torchrun_attempt_environment(dir.path, 1, 0);
  std::ofstream(torchrun_error_file(dir.path, 1, 0)) << "[]";
  const auto failures = torchrun_failures(result, dir.path, 0);
  REQUIRE(failures.size() == 2);
  const auto summary = torchrun_summary(failures, "x.py", "id");
  CHECK_THAT(summary, Catch::Contains("pid 100: signal 15 (SIGTERM)") && Catch::Contains("error file: none written") &&
                          Catch::Contains("Other failures:") && Catch::Contains("not an error file"));
  const auto json = torchrun_failures_json(failures);
  CHECK(json["root_cause"]["signal"] == "SIGTERM");
  CHECK(json["root_cause"]["exit_code"] == 143);
  CHECK(json["failures"][1]["message"].is_null());
}

TEST_CASE("the interpreter hint speaks only of a module a failed rank could not import", "[cluster]") {
  procmgr::GroupResult result;
  result.workers = {worker(0, exited_1)};
  result.failed_rank = 0;
  CHECK(interpreter_hint(result, "python3", {"PATH=/nonexistent"}).empty());  // no ModuleNotFoundError
  result.workers[0].stderr_tail = "ModuleNotFoundError: No module named 'mptrain_no_such_module'\n";
  CHECK(interpreter_hint(result, "", {}).empty());  // --no-python
  const auto hint = interpreter_hint(result, "/nonexistent/python3", {"PATH=/nonexistent"});
  CHECK_THAT(hint, Catch::Contains("rank 0 ran /nonexistent/python3, which cannot import mptrain_no_such_module"));
}
