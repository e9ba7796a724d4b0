#include "monitor/gate.hpp"

#include <algorithm>

namespace mptrain::monitor {

bool has_idle_capacity(const Diagnosis& diagnosis) {
  return std::any_of(diagnosis.findings.begin(), diagnosis.findings.end(),
                     [](const Finding& f) { return f.kind == FindingKind::idle_capacity; });
}

bool reaches(const Diagnosis& diagnosis, FailOn fail_on, const std::vector<FindingKind>& ignored) {
  const auto counted = [&ignored](const Finding& f) {
    return std::find(ignored.begin(), ignored.end(), f.kind) == ignored.end();
  };
  Verdict verdict = diagnosis.verdict;
  if (!ignored.empty()) {
    verdict = diagnosis.verdict == Verdict::inconclusive ? Verdict::inconclusive : Verdict::healthy;
    for (const auto& finding : diagnosis.findings) {
      if (counted(finding)) verdict = std::max(verdict, finding.severity);
    }
  }
  switch (fail_on) {
    case FailOn::never:
      return false;
    case FailOn::warning:
      return verdict >= Verdict::warning;
    case FailOn::oversubscribed:
      return verdict >= Verdict::oversubscribed;
    case FailOn::idle:
      return verdict >= Verdict::oversubscribed ||
             std::any_of(diagnosis.findings.begin(), diagnosis.findings.end(),
                         [&](const Finding& f) { return f.kind == FindingKind::idle_capacity && counted(f); });
    case FailOn::inconclusive:
      return verdict == Verdict::inconclusive || verdict >= Verdict::oversubscribed;
  }
  return false;
}

}  // namespace mptrain::monitor
