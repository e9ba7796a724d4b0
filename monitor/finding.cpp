#include "monitor/finding.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "util/names.hpp"

namespace mptrain::monitor {

namespace {

constexpr std::array verdict_names{
    Named<Verdict>{Verdict::healthy, "healthy"}, Named<Verdict>{Verdict::inconclusive, "inconclusive"},
    Named<Verdict>{Verdict::warning, "warning"}, Named<Verdict>{Verdict::oversubscribed, "oversubscribed"}};

constexpr std::array finding_names{
    Named<FindingKind>{FindingKind::demand_above_capacity, "demand_above_capacity"},
    Named<FindingKind>{FindingKind::thread_pool_too_large, "thread_pool_too_large"},
    Named<FindingKind>{FindingKind::overlapping_affinity, "overlapping_affinity"},
    Named<FindingKind>{FindingKind::cgroup_throttling, "cgroup_throttling"},
    Named<FindingKind>{FindingKind::outside_load, "outside_load"},
    Named<FindingKind>{FindingKind::queueing, "queueing"},
    Named<FindingKind>{FindingKind::idle_capacity, "idle_capacity"},
    Named<FindingKind>{FindingKind::two_openmp_runtimes, "two_openmp_runtimes"},
    Named<FindingKind>{FindingKind::nested_pools, "nested_pools"},
    Named<FindingKind>{FindingKind::allocation_mismatch, "allocation_mismatch"},
};

}  // namespace

std::string_view to_string(Verdict verdict) { return name_of(verdict_names, verdict, "healthy"); }

Result<Verdict> parse_verdict(std::string_view text) {
  if (const auto verdict = value_named(verdict_names, text)) return *verdict;
  return Error{"unknown verdict '" + std::string(text) + "'; use " + names_list(verdict_names)};
}

std::string_view to_string(FindingKind kind) { return name_of(finding_names, kind, "queueing"); }

Result<FindingKind> parse_finding_kind(std::string_view text) {
  if (const auto kind = value_named(finding_names, text)) return *kind;
  return Error{fmt::format("unknown finding kind '{}'; use {}", text, names_list(finding_names))};
}

std::string finding_kinds_list() { return names_list(finding_names); }

std::string_view severity_name(const Finding& finding) {
  return finding.severity == Verdict::healthy ? "info" : to_string(finding.severity);
}

void name_other_runs(std::vector<Finding>& findings, const std::vector<OtherRun>& runs) {
  for (auto& f : findings) {
    if (f.kind != FindingKind::outside_load) continue;
    for (const auto& run : runs) {
      if (!run.cpus.intersect(f.cpus).empty()) f.other_runs.push_back(run.description);
    }
    if (f.other_runs.empty()) continue;
    f.message += fmt::format("; other mptrain runs hold CPUs there: {}", fmt::join(f.other_runs, "; "));
    f.fix =
        "these are other mptrain runs: started together, mptrain runs divide the machine between them, and "
        "`--when-busy wait` queues a run until CPUs are free (`mptrain doctor` lists the live runs)";
  }
}

}  // namespace mptrain::monitor
