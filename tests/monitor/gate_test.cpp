// The `--fail-on` gate (monitor/gate.hpp) over hand-written diagnoses.
#include "monitor/gate.hpp"

#include <catch2/catch.hpp>

namespace mptrain::monitor {

TEST_CASE("fail-on gate: the verdict, or with ignored kinds the most severe finding left", "[monitor]") {
  Diagnosis d;
  d.verdict = Verdict::oversubscribed;
  Finding outside;
  outside.kind = FindingKind::outside_load;
  outside.severity = Verdict::oversubscribed;
  Finding queueing;
  queueing.kind = FindingKind::queueing;
  queueing.severity = Verdict::warning;
  d.findings = {outside, queueing};
  CHECK(reaches(d, FailOn::oversubscribed));
  CHECK_FALSE(reaches(d, FailOn::never));
  CHECK_FALSE(reaches(d, FailOn::oversubscribed, {FindingKind::outside_load}));
  CHECK(reaches(d, FailOn::warning, {FindingKind::outside_load}));
  CHECK_FALSE(reaches(d, FailOn::warning, {FindingKind::outside_load, FindingKind::queueing}));
  Finding idle;
  idle.kind = FindingKind::idle_capacity;
  idle.severity = Verdict::healthy;
  Diagnosis calm;
  calm.findings = {idle};
  CHECK(reaches(calm, FailOn::idle));
  CHECK_FALSE(reaches(calm, FailOn::idle, {FindingKind::idle_capacity}));
  CHECK_FALSE(reaches(calm, FailOn::warning));
}

}  // namespace mptrain::monitor
