// The detector: a pure function from Evidence and the usable CPUs N to a
// verdict and findings, each finding with its numbers and a concrete fix.
// Its parts, each in a file of its own:
//   finding.hpp     the verdict, the finding kinds, a finding, the capacity
//   loss_model.hpp  THE MODEL, THROUGHPUT LOSS and THE RANGE: how intervals
//                   are classed and what the job loses by queueing
//   rules.hpp       FINDINGS and IDLE CAPACITY: the checks over the model
//   summary.hpp     the report's processes, threads and cgroups
//   diagnosis.hpp   the result, a plain struct
//   gate.hpp        `--fail-on`: whether a diagnosis makes a command exit 3
// Below min-cpu-seconds of CPU run (or wanted and denied, or throttled) no
// ratio is judged: the verdict is inconclusive with `evidence` saying so,
// never healthy and never exit 3 unless --fail-on inconclusive asks.
// Otherwise the verdict is the worst severity among the findings.
#pragma once

#include "monitor/diagnosis.hpp"
#include "monitor/evidence.hpp"
#include "monitor/finding.hpp"
#include "monitor/gate.hpp"  // for the readers of the gate that include the detector alone
#include "monitor/thresholds.hpp"

namespace mptrain::monitor {

// Diagnoses `evidence` for a job that may use `capacity`, with `thresholds`;
// `subject` says whether the evidence is a job's or the whole machine's.
Diagnosis diagnose(const Evidence& evidence, const Capacity& capacity, const Thresholds& thresholds = {},
                   Subject subject = Subject::job);

}  // namespace mptrain::monitor
