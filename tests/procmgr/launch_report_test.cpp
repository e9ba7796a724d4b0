// The report of a finished launch (pure): rows, lost output, pools, exit code.
#include "procmgr/launch_report.hpp"

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <tuple>

using namespace mptrain;
using namespace mptrain::procmgr;

namespace {

GroupResult two_workers(ExitStatus second) {
  GroupResult result;
  for (const auto& [rank, status, wall, cpu] : {std::tuple{0, ExitStatus{}, 1.5, 2.25}, {1, second, 1.0, 0.5}}) {
    WorkerResult worker;
    worker.rank = rank;
    worker.pid = 100 + rank;
    worker.status = status;
    worker.wall_seconds = wall;
    worker.cpu_seconds = cpu;
    result.workers.push_back(worker);
  }
  return result;
}

const std::vector<CpuSet> worker_cpus = {CpuSet::parse("0-1").value(), CpuSet::parse("2-3").value()};

}  // namespace

TEST_CASE("launch_exit_code: the failed worker's code, else 1 for lost output, else 0") {
  auto result = two_workers({});
  CHECK(launch_exit_code(result) == 0);
  result.output_losses.push_back({1, Streams::err, "/dev/stderr", ENOSPC, 10});
  CHECK(launch_exit_code(result) == 1);
  result = two_workers({ExitStatus::Kind::signaled, SIGKILL});
  result.failed_rank = 1;
  CHECK(launch_exit_code(result) == 128 + SIGKILL);
}

TEST_CASE("workers_text: the shape line, then a row per worker with its CPUs") {
  auto result = two_workers({ExitStatus::Kind::exited, 3});
  CHECK(workers_text(result, "2 workers x 2 threads", "core", worker_cpus) ==
        "mptrain: 2 workers x 2 threads, bind core\n"
        "RANK      PID  CPUS                WALL S     CPU S  STATUS\n"
        "   0      100  0-1                   1.50      2.25  exited with code 0\n"
        "   1      101  2-3                   1.00      0.50  exited with code 3\n");
  result.restarts = 1;
  CHECK(workers_text(result, "s", "none", worker_cpus).starts_with("mptrain: s, bind none, 1 restart\n"));
}

TEST_CASE("result_json: rows, failure, lost output, signal and pools") {
  auto result = two_workers({ExitStatus::Kind::exited, 3});
  result.failed_rank = 1;
  result.forwarded_signal = SIGTERM;
  result.output_losses.push_back({0, Streams::out, "/dev/stdout", ENOSPC, 7});
  const auto json = result_json(result, worker_cpus, {});
  CHECK(json["workers"][1]["cpus"] == "2-3");
  CHECK(json["workers"][1]["exit_code"] == 3);
  CHECK(json["exit_code"] == 3);
  CHECK(json["failed_rank"] == 1);
  CHECK(json["forwarded_signal"] == "SIGTERM");
  CHECK(json["output_lost"][0]["stream"] == "stdout");
  CHECK(json["output_lost"][0]["bytes"] == 7);
  CHECK(json["pools"].is_array());
  CHECK(result_json(two_workers({}), worker_cpus, {})["failed_rank"].is_null());
  CHECK(result_json(two_workers({}), worker_cpus, {})["forwarded_signal"].is_null());
}

TEST_CASE("pools_text and pools_json: each process's request, or its own affinity") {
  PlacedProcess asked;
  asked.pid = 12;
  asked.comm = "python3";
  asked.slice = 1;
  asked.cpus = CpuSet::parse("1").value();
  asked.asked = 1;
  asked.got = 1;
  asked.call = "omp_set_num_threads";
  PlacedProcess own;
  own.pid = 13;
  own.own_affinity = true;
  const std::vector<PoolRecord> records = {{0, asked}, {1, own}};
  CHECK(pools_text({}).empty());
  CHECK(pools_text(records) ==
        "mptrain: the thread pools the programs sized themselves:\n"
        "  rank 0 pid 12 (python3, slice 1: CPUs 1): asked for 1 thread (omp_set_num_threads), got 1\n"
        "  rank 1 pid 13: set its own CPU affinity; left alone, its pools uncapped\n");  // its name unknown
  const auto json = pools_json(records);
  CHECK(json[0]["slice"] == 1);
  CHECK(json[1]["slice"].is_null());
  CHECK(json[1]["own_affinity"] == true);
}

TEST_CASE("the launch report and the dry run's JSON give long CPU lists in the short form") {
  const std::vector<CpuSet> strided = {CpuSet::parse("0-62:2").value(), CpuSet::parse("1-63:2").value()};
  auto result = two_workers({});
  CHECK(workers_text(result, "s", "core", strided).find("   1      101  1-63:2 ") != std::string::npos);
  CHECK(result_json(result, strided, {})["workers"][0]["cpus"] == "0-62:2");
  WorkerSpec spec;
  spec.cpus = strided[0];
  spec.memory.nodes = strided[1];
  const auto json = dry_run_json(spec, {"true"}, {}, "/bin/true");
  CHECK(json["cpus"] == "0-62:2");
  CHECK(json["mems"] == "1-63:2");
  // Short ones plain, as people read them.
  CHECK(result_json(result, {CpuSet({0, 2, 4, 6}), CpuSet({1, 3, 5, 7})}, {})["workers"][0]["cpus"] == "0,2,4,6");
}
