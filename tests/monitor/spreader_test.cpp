// The thread spreader on hand-written intervals: plain structs, no processes.
#include "monitor/spreader.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace mptrain;
using namespace mptrain::monitor;

namespace {

// A thread of process `pid` that wanted a CPU `demand` of a 0.25 s interval, allowed on `allowed`.
ThreadEvidence thread(pid_t pid, pid_t tid, double demand, std::string allowed) {
  ThreadEvidence evidence;
  evidence.pid = pid;
  evidence.tid = tid;
  evidence.observed_s = 0.25;
  evidence.on_cpu_s = 0.25 * demand;
  evidence.timeslices = demand > 0 ? 10 : 0;
  evidence.cpus_allowed = std::move(allowed);
  return evidence;
}

Evidence spread_interval(const std::vector<ThreadEvidence>& threads) {
  Evidence evidence;
  evidence.duration_s = 0.25;
  evidence.intervals = 1;
  for (const auto& one : threads) evidence.threads[one.tid] = one;
  return evidence;
}

ThreadMove move(pid_t pid, pid_t tid, const std::string& cpus) { return {pid, tid, *CpuSet::parse(cpus)}; }

}  // namespace

TEST_CASE("a pool's busy threads get one CPU each, in the set's order - a sleeper keeps the set") {
  ThreadSpreader spreader;
  const auto moves = spreader.next(spread_interval({thread(10, 10, 0.0, "0-3"), thread(10, 11, 1.0, "0-3"),
                                                    thread(10, 12, 0.9, "0-3"), thread(10, 13, 0.02, "0-3")}));
  CHECK(moves == std::vector<ThreadMove>{move(10, 11, "0"), move(10, 12, "1")});
  CHECK(spreader.pinned_total() == 2);
  // Once placed, nothing moves while nothing changes.
  CHECK(spreader
            .next(spread_interval({thread(10, 10, 0.0, "0-3"), thread(10, 11, 1.0, "0"), thread(10, 12, 0.9, "1"),
                                   thread(10, 13, 0.02, "0-3")}))
            .empty());
}

TEST_CASE("more busy threads than CPUs are left floating: the kernel balances them, the detector reports them") {
  ThreadSpreader spreader;
  CHECK(spreader
            .next(spread_interval({thread(10, 11, 1.0, "0-1"), thread(10, 12, 1.0, "0-1"), thread(10, 13, 1.0, "0-1")}))
            .empty());
}

TEST_CASE("threads an OpenMP runtime placed stay where they are, and their CPUs are not given to others") {
  ThreadSpreader spreader;
  // An OpenMP team on CPUs 0 and 1 (one each), a BLAS thread floating over 0-2.
  const auto moves =
      spreader.next(spread_interval({thread(10, 10, 1.0, "0"), thread(10, 11, 1.0, "1"), thread(10, 12, 1.0, "0-2")}));
  CHECK(moves == std::vector<ThreadMove>{move(10, 12, "2")});
}

TEST_CASE("two processes on the same CPUs never get the same CPU") {
  ThreadSpreader spreader;
  const auto moves = spreader.next(spread_interval({thread(10, 11, 1.0, "0-3"), thread(10, 12, 1.0, "0-3"),
                                                    thread(20, 21, 1.0, "0-3"), thread(20, 22, 1.0, "0-3")}));
  CHECK(moves == std::vector<ThreadMove>{move(10, 11, "0"), move(10, 12, "1"), move(20, 21, "2"), move(20, 22, "3")});
  // A third busy process finds no free CPU and floats.
  CHECK(spreader
            .next(spread_interval({thread(10, 11, 1.0, "0"), thread(10, 12, 1.0, "1"), thread(20, 21, 1.0, "2"),
                                   thread(20, 22, 1.0, "3"), thread(30, 31, 1.0, "0-3"), thread(30, 32, 1.0, "0-3")}))
            .empty());
}

TEST_CASE("a thread that inherited a pin from its creator gets a CPU of its own when busy, the set when it sleeps") {
  ThreadSpreader spreader;
  REQUIRE(spreader.next(spread_interval({thread(10, 10, 1.0, "0-3"), thread(10, 13, 1.0, "0-3")})) ==
          std::vector<ThreadMove>{move(10, 10, "0"), move(10, 13, "1")});
  // The pinned main thread starts two threads: each inherits CPU 0.
  const auto moves = spreader.next(spread_interval(
      {thread(10, 10, 1.0, "0"), thread(10, 13, 1.0, "1"), thread(10, 11, 1.0, "0"), thread(10, 12, 0.0, "0")}));
  CHECK(moves == std::vector<ThreadMove>{move(10, 12, "0-3"), move(10, 11, "2")});
}

TEST_CASE("a busy thread that inherited a pin gets its process's set back when no CPU is free") {
  ThreadSpreader spreader;
  REQUIRE(spreader.next(spread_interval({thread(10, 10, 1.0, "0-2"), thread(10, 13, 1.0, "0-2")})) ==
          std::vector<ThreadMove>{move(10, 10, "0"), move(10, 13, "1")});
  // CPU 2 is held by another process's placed thread: the copies cannot all be pinned.
  const auto moves =
      spreader.next(spread_interval({thread(10, 10, 1.0, "0"), thread(10, 13, 1.0, "1"), thread(10, 11, 1.0, "0"),
                                     thread(10, 12, 1.0, "0"), thread(20, 20, 1.0, "2")}));
  CHECK(moves == std::vector<ThreadMove>{move(10, 11, "0-2"), move(10, 12, "0-2")});
}

TEST_CASE("the program's own affinity wins: a pinned thread it moved is never moved again") {
  ThreadSpreader spreader;
  REQUIRE(spreader.next(spread_interval({thread(10, 11, 1.0, "0-1"), thread(10, 12, 1.0, "0-1")})) ==
          std::vector<ThreadMove>{move(10, 11, "0"), move(10, 12, "1")});
  // The program moved thread 11 to CPU 1 itself.
  CHECK(spreader.next(spread_interval({thread(10, 11, 1.0, "1"), thread(10, 12, 1.0, "1")})).empty());
  CHECK(spreader.pins() == std::map<pid_t, int>{{12, 1}});
  // Even back on the whole set later, it is the program's.
  CHECK(spreader.next(spread_interval({thread(10, 11, 1.0, "0-1"), thread(10, 12, 1.0, "1")})).empty());
}

TEST_CASE("a thread that did not run proves nothing by its stale allowed list") {
  ThreadSpreader spreader;
  REQUIRE(spreader.next(spread_interval({thread(10, 11, 1.0, "0-1"), thread(10, 12, 1.0, "0-1")})) ==
          std::vector<ThreadMove>{move(10, 11, "0"), move(10, 12, "1")});
  CHECK(spreader.next(spread_interval({thread(10, 11, 0.0, "0-1"), thread(10, 12, 1.0, "1")})).empty());
  CHECK(spreader.pins() == std::map<pid_t, int>{{11, 0}, {12, 1}});
}

TEST_CASE("a pin whose thread sleeps is given up to a busy thread that needs its CPU") {
  ThreadSpreader spreader;
  REQUIRE(spreader.next(spread_interval({thread(10, 11, 1.0, "0-1"), thread(10, 12, 1.0, "0-1")})).size() == 2);
  // Thread 11 sleeps now, and a new thread 13 works beside 12.
  const auto moves =
      spreader.next(spread_interval({thread(10, 11, 0.0, "0"), thread(10, 12, 1.0, "1"), thread(10, 13, 1.0, "0-1")}));
  CHECK(moves == std::vector<ThreadMove>{move(10, 11, "0-1"), move(10, 13, "0")});
  CHECK(spreader.pins() == std::map<pid_t, int>{{12, 1}, {13, 0}});
}

TEST_CASE("the CPU of a thread that has gone, or whose move failed, is free again") {
  ThreadSpreader spreader;
  REQUIRE(spreader.next(spread_interval({thread(10, 11, 1.0, "0-1"), thread(10, 13, 1.0, "0-1")})) ==
          std::vector<ThreadMove>{move(10, 11, "0"), move(10, 13, "1")});
  // Thread 11 has gone: its CPU 0 is 12's.
  CHECK(spreader.next(spread_interval({thread(10, 12, 1.0, "0-1"), thread(10, 13, 1.0, "1")})) ==
        std::vector<ThreadMove>{move(10, 12, "0")});
  spreader.failed(12);
  spreader.failed(13);
  CHECK(spreader.pins().empty());
  CHECK(spreader.next(spread_interval({thread(20, 21, 1.0, "0-1"), thread(20, 22, 1.0, "0-1")})) ==
        std::vector<ThreadMove>{move(20, 21, "0"), move(20, 22, "1")});
}

TEST_CASE("a process on one CPU has nothing to spread") {
  ThreadSpreader spreader;
  CHECK(spreader.next(spread_interval({thread(10, 10, 1.0, "3"), thread(20, 20, 1.0, "2")})).empty());
}

TEST_CASE("a process whose one busy thread floats is left alone until a second thread works beside it") {
  // A program starting up (Python importing numpy): a pin now would be the
  // CPUs its BLAS runtime sizes its pool from when it loads.
  ThreadSpreader spreader;
  CHECK(spreader.next(spread_interval({thread(10, 10, 1.0, "0-1"), thread(10, 11, 0.0, "0-1")})).empty());
  CHECK(spreader.next(spread_interval({thread(10, 10, 1.0, "0-1")})).empty());
  // The pool has started: both of its threads get a CPU.
  CHECK(spreader.next(spread_interval({thread(10, 10, 1.0, "0-1"), thread(10, 11, 1.0, "0-1")})) ==
        std::vector<ThreadMove>{move(10, 10, "0"), move(10, 11, "1")});
  // Once the process has a pin, a lone busy thread beside it is placed too.
  CHECK(spreader.next(
            spread_interval({thread(10, 10, 0.0, "0"), thread(10, 11, 1.0, "1"), thread(10, 12, 1.0, "0-1")})) ==
        std::vector<ThreadMove>{move(10, 10, "0-1"), move(10, 12, "0")});
  // A busy thread someone else placed counts as the second one.
  ThreadSpreader other;
  CHECK(other.next(spread_interval({thread(20, 20, 1.0, "0"), thread(20, 21, 1.0, "0-1")})) ==
        std::vector<ThreadMove>{move(20, 21, "1")});
}
