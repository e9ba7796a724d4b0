// The verdict for too little evidence: inconclusive, never healthy, and what
// --fail-on makes of it; a job that slept through a long watch is healthy
// (synthetic machines, no processes).
#include <catch2/catch.hpp>

#include "monitor/advice.hpp"
#include "monitor/detector.hpp"
#include "monitor/gate.hpp"
#include "monitor/period.hpp"
#include "monitor/report.hpp"
#include "tests/monitor/synthetic_machine.hpp"

using namespace mptrain;
using namespace mptrain::monitor;
using namespace mptrain::monitor::synthetic;

namespace {

// 8 threads that ran 1 ms and queued 5 ms per second, watched 1 s (2 intervals): 0.008 CPU-seconds.
Diagnosis barely_ran() {
  Machine m = pool(1, 8, 0.001, 0.005, 1);
  m.intervals = 2;
  return run(m);
}

// One busy thread per CPU: healthy, with evidence.
Diagnosis two_busy() {
  Machine m;
  m.threads = {{1, 1, 0, 0.99, 0.01}, {2, 2, 1, 0.99, 0.01}};
  m.cpu_busy = {0.99, 0.99};
  return run(m);
}

}  // namespace

TEST_CASE("too little evidence is inconclusive, enough is healthy", "[inconclusive]") {
  const auto little = barely_ran();
  REQUIRE_FALSE(little.evidence.sufficient);
  CHECK(little.verdict == Verdict::inconclusive);
  const auto enough = two_busy();
  REQUIRE(enough.evidence.sufficient);
  CHECK(enough.verdict == Verdict::healthy);
}

TEST_CASE("a job that slept through a long watch is healthy: watched enough, nothing waited", "[inconclusive]") {
  // The same 8 sleepers watched 2 s (4 intervals): too little CPU for any ratio, enough watching to say
  // that nothing wanted a CPU it did not get.
  const auto slept = run(pool(1, 8, 0.001, 0.005, 1));
  CHECK(slept.evidence.sufficient);
  CHECK(slept.evidence.quiet);
  CHECK(slept.verdict == Verdict::healthy);
  CHECK(slept.findings.empty());
  REQUIRE(slept.loss.has_value());
  CHECK(slept.loss->decides == 0);
  CHECK(to_json(slept)["slept"] == true);
  CHECK(to_json(slept)["measured"] == true);
  CHECK(to_text(slept).find("verdict: healthy\n") == 0);
  CHECK(contains(to_text(slept),
                 "evidence:               the job mostly slept (0.016 CPU-seconds over 2.0 s, 4 intervals)"));
  CHECK_FALSE(reaches(slept, FailOn::inconclusive));
  // Too few samples: inconclusive, and the note says how many are needed and why.
  const auto short_watch = barely_ran();
  CHECK(short_watch.verdict == Verdict::inconclusive);
  CHECK(contains(short_watch.evidence.note, "4 whole sampling intervals and 1 s of watching"));
  CHECK(contains(short_watch.evidence.note, "2 intervals"));
  // Sleepers that waited in all as long as the evidence floor are no quiet job: still too little to judge.
  const auto waited = run(pool(1, 8, 0.001, 0.02, 1));
  CHECK(waited.verdict == Verdict::inconclusive);
}

TEST_CASE("nothing sampled through a whole interval is inconclusive", "[inconclusive]") {
  const auto d = diagnose(Evidence{}, Capacity{2, CpuSet::range(0, 1), {}});
  CHECK(d.verdict == Verdict::inconclusive);
  CHECK(to_json(d)["verdict"] == "inconclusive");
}

TEST_CASE("its name parses and prints", "[inconclusive]") {
  CHECK(to_string(Verdict::inconclusive) == "inconclusive");
  CHECK(parse_verdict("inconclusive").value_or(Verdict::healthy) == Verdict::inconclusive);
  CHECK(name_of(fail_on_names, FailOn::inconclusive, "") == "inconclusive");
  CHECK(value_named(fail_on_names, "inconclusive") == FailOn::inconclusive);
}

TEST_CASE("a --fail-on of inconclusive names it, warning and oversubscribed do not", "[inconclusive]") {
  const auto d = barely_ran();
  CHECK(reaches(d, FailOn::inconclusive));
  CHECK_FALSE(reaches(d, FailOn::warning));
  CHECK_FALSE(reaches(d, FailOn::oversubscribed));
  CHECK_FALSE(reaches(d, FailOn::idle));
  CHECK_FALSE(reaches(d, FailOn::never));
  CHECK(reaches(d, FailOn::inconclusive, {FindingKind::outside_load}));  // --ignore keeps it inconclusive
  CHECK(fails(d, Gate{FailOn::inconclusive, {}}));
  CHECK(
      contains(failed_gate_message(d, Gate{FailOn::inconclusive, {}}), "--fail-on inconclusive (it is inconclusive)"));
}

TEST_CASE("a --fail-on of inconclusive passes a healthy verdict and fails an oversubscribed one", "[inconclusive]") {
  CHECK_FALSE(reaches(two_busy(), FailOn::inconclusive));
  // 3 CPU-bound single-thread processes on 2 CPUs.
  Machine spinners;
  for (pid_t p = 1; p <= 3; ++p) spinners.threads.push_back({p, p * 100, p % 2, 2.0 / 3, 1.0 / 3, "0-1", 100});
  spinners.cpu_busy = {1, 1};
  const auto over = run(spinners);
  REQUIRE(over.verdict == Verdict::oversubscribed);
  CHECK(reaches(over, FailOn::inconclusive));
}

TEST_CASE("the text, quiet text and --every line say inconclusive and why", "[inconclusive]") {
  const auto d = barely_ran();
  CHECK(to_text(d).find("verdict: inconclusive (too little evidence, see \"evidence\" below)\n") == 0);
  CHECK(to_quiet_text(d) == "verdict: inconclusive (too little evidence)\n");
  CHECK(contains(period_line(d, 2), "] inconclusive "));
  CHECK(contains(period_line(d, 2), "(too little evidence)"));
  CHECK(to_text(two_busy()).find("verdict: healthy\n") == 0);
}
