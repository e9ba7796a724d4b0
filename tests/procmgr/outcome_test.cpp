// How a group's end reads (pure): the failed worker, the others, lost output.
#include "procmgr/outcome.hpp"

#include <catch2/catch.hpp>
#include <csignal>

using namespace mptrain;
using namespace mptrain::procmgr;

namespace {

WorkerResult worker(int rank, ExitStatus status, bool stopped = false) {
  WorkerResult result;
  result.rank = rank;
  result.pid = 100 + rank;
  result.status = status;
  result.stopped = stopped;
  return result;
}

const ExitStatus code_3{ExitStatus::Kind::exited, 3};
const ExitStatus killed{ExitStatus::Kind::signaled, SIGTERM};

}  // namespace

TEST_CASE("the failure names the failed worker and what became of the others", "[procmgr]") {
  GroupResult result;
  result.workers = {worker(0, killed, true), worker(1, code_3), worker(2, code_3), worker(3, ExitStatus{})};
  result.failed_rank = 1;
  result.workers[1].stderr_tail = "Traceback\nValueError";
  CHECK(failure_message(result, "training worker ") ==
        "training worker rank 1 (pid 101) exited with code 3; rank 0 was stopped; rank 2 had exited with code 3 too; "
        "rank 3 had finished\nlast lines of rank 1's stderr:\n  Traceback\n  ValueError");
}

TEST_CASE("after a forwarded signal the failure says so instead of the others' fate", "[procmgr]") {
  GroupResult result;
  result.workers = {worker(0, killed), worker(1, killed)};
  result.failed_rank = 0;
  result.forwarded_signal = SIGTERM;
  CHECK(failure_message(result) == "rank 0 (pid 100) killed by SIGTERM after mptrain forwarded SIGTERM");
  CHECK(restart_message(result, 1, 3) == "rank 0 (pid 100) killed by SIGTERM; restarting the group (1 of 3)");
}
