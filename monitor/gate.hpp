// The `--fail-on` gate: whether a diagnosis makes a command exit 3, with
// the findings the user chose to ignore left out.
#pragma once

#include <array>
#include <vector>

#include "monitor/diagnosis.hpp"
#include "util/names.hpp"

namespace mptrain::monitor {

// What makes a command exit 3 (`--fail-on`): a verdict of oversubscribed,
// of warning or worse, an idle_capacity finding (or oversubscribed), an
// inconclusive verdict (or oversubscribed), never. warning does not take
// inconclusive in: too little evidence is no sign of a problem.
enum class FailOn { oversubscribed, warning, idle, inconclusive, never };

// The names of FailOn's values, as `--fail-on` takes them.
inline constexpr std::array fail_on_names{
    Named<FailOn>{FailOn::oversubscribed, "oversubscribed"}, Named<FailOn>{FailOn::warning, "warning"},
    Named<FailOn>{FailOn::idle, "idle"}, Named<FailOn>{FailOn::inconclusive, "inconclusive"},
    Named<FailOn>{FailOn::never, "never"}};

// True when `diagnosis` has an idle_capacity finding (what `--fail-on idle` looks for).
bool has_idle_capacity(const Diagnosis& diagnosis);

// Whether `diagnosis` reaches `fail_on`. With findings of the kinds in
// `ignored` left out (`--ignore outside_load`: other people's load on a
// shared runner is not the job's fault), the verdict is the most severe of
// the findings that remain (healthy when none does; inconclusive stays so).
bool reaches(const Diagnosis& diagnosis, FailOn fail_on, const std::vector<FindingKind>& ignored = {});

}  // namespace mptrain::monitor
