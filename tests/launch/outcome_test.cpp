// How a launch ends, every path: a failed rank (and what an MPI job does),
// output lost by workers that succeeded, the --fail-on gate, success.
#include "launch/outcome.hpp"

#include <catch2/catch.hpp>

using namespace mptrain;
using namespace mptrain::launch;

namespace {

procmgr::GroupResult two_workers() {
  procmgr::GroupResult result;
  result.workers.resize(2);
  for (int rank : {0, 1}) {
    result.workers[rank].rank = rank;
    result.workers[rank].pid = 100 + rank;
  }
  return result;
}

procmgr::GroupResult rank_1_failed(int code) {
  auto result = two_workers();
  result.workers[1].status = {procmgr::ExitStatus::Kind::exited, code};
  result.failed_rank = 1;
  return result;
}

procmgr::OutputLoss loss(int rank) { return {rank, procmgr::Streams::out, "/dev/stdout", 28, 100}; }

monitor::Diagnosis verdict(monitor::Verdict verdict) {
  monitor::Diagnosis diagnosis;
  diagnosis.verdict = verdict;
  return diagnosis;
}

const monitor::Gate never{monitor::FailOn::never, {}};

}  // namespace

TEST_CASE("a launch whose workers all succeeded ends 0, whatever the verdict, unless the gate says so") {
  const auto end = outcome(two_workers(), verdict(monitor::Verdict::oversubscribed), never, {});
  CHECK(end.exit_code == 0);
  CHECK(end.message.empty());
  CHECK(end.mpi == MpiEnd::finalize);
  const monitor::Gate gate{monitor::FailOn::warning, {}};
  const auto gated = outcome(two_workers(), verdict(monitor::Verdict::oversubscribed), gate, {});
  CHECK(gated.exit_code == 3);
  CHECK_THAT(gated.message,
             Catch::StartsWith("the monitor's verdict reaches --fail-on warning (it is oversubscribed)"));
  CHECK(outcome(two_workers(), verdict(monitor::Verdict::healthy), gate, {}).exit_code == 0);
}

TEST_CASE("a failed rank's code is the launch's, its losses all shown, its hint at the end") {
  auto result = rank_1_failed(7);
  result.output_losses = {loss(0), loss(1)};
  const auto end = outcome(result, verdict(monitor::Verdict::oversubscribed), {monitor::FailOn::warning, {}},
                           {false, 0, "; try MPTRAIN_PYTHON"});
  CHECK(end.exit_code == 7);  // a failed worker outranks the gate
  CHECK_THAT(end.message,
             Catch::StartsWith("rank 1 (pid 101) exited with code 7") && Catch::EndsWith("; try MPTRAIN_PYTHON"));
  CHECK(end.losses_shown == 2);
  CHECK(end.mpi == MpiEnd::finalize);
}

TEST_CASE("output lost by workers that succeeded ends 1, the last loss its message") {
  auto result = two_workers();
  result.output_losses = {loss(0), loss(1)};
  const auto end = outcome(result, verdict(monitor::Verdict::healthy), never, {});
  CHECK(end.exit_code == 1);
  CHECK_THAT(end.message, Catch::StartsWith("rank 1's stdout"));
  CHECK(end.losses_shown == 1);
}

TEST_CASE("on an MPI node a rank that failed on its own aborts the job, and a job torn down skips MPI_Finalize") {
  const auto failed = outcome(rank_1_failed(3), verdict(monitor::Verdict::healthy), never, {true, 2, ""});
  CHECK(failed.mpi == MpiEnd::abort_job);
  CHECK_THAT(failed.mpi_message, Catch::StartsWith("node 2 ends the MPI job on every node: rank 1"));
  CHECK(failed.exit_code == 3);
  auto stopped = rank_1_failed(143);
  stopped.forwarded_signal = 15;
  const auto end = outcome(stopped, verdict(monitor::Verdict::healthy), never, {true, 0, ""});
  CHECK(end.mpi == MpiEnd::skip_finalize);
  CHECK_THAT(end.message,
             Catch::Contains("(the MPI launcher stops every node when one fails or the job is cancelled)"));
  // Not under MPI: neither.
  CHECK(outcome(stopped, verdict(monitor::Verdict::healthy), never, {}).mpi == MpiEnd::finalize);
}
