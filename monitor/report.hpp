// Presenting a Diagnosis: the JSON document of `mptrain doctor --json` (also
// the `monitor` object of the run report) and the human text report.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "monitor/diagnosis.hpp"

namespace mptrain::monitor {

// The diagnosis as JSON: verdict, usable_cpus, runnable_threads_avg,
// run_delay_ratio, nonvoluntary_switches_per_second, cpu_utilization,
// intervals and measured (false when too little ran to judge: the verdict
// is then inconclusive),
// findings [{kind, severity ("info" for one that sets no verdict: idle_capacity), message, fix, numbers}], processes
// [{pid, comm, threads, run_delay_ratio, …}] and the rest of Diagnosis's figures.
nlohmann::json to_json(const Diagnosis& diagnosis);
// The diagnosis as a human report (several lines, newline-terminated);
// at most `max_processes` processes are listed. Its first line is "verdict:
// VERDICT", followed on that line by "(too little evidence, see "evidence"
// below)" when the verdict is inconclusive.
std::string to_text(const Diagnosis& diagnosis, int max_processes = 10);
// `--quiet`: the verdict line and each fix once ("  fix: …"), nothing else.
std::string to_quiet_text(const Diagnosis& diagnosis);
// A healthy run's report in two lines of at most 80 columns: the verdict and
// how long it was watched, then the working threads, the CPUs, the queued
// threads and the loss; then each finding's fix (info findings: a healthy
// run has no other).
std::string to_short_text(const Diagnosis& diagnosis);
// Whether finding `index`'s fix says nothing an earlier finding's fix does
// not (it is part of one): the text then prints "as above", once is enough.
bool repeats_earlier_fix(const Diagnosis& diagnosis, std::size_t index);
// The per-thread table of `--threads`: tid, comm, CPU s, wait s, slices, wait
// per slice, switches, last CPU, allowed CPUs; at most `max_threads` rows (busiest first).
std::string threads_table(const Diagnosis& diagnosis, int max_threads = 1000);
// The same as a JSON array (the `threads` key of `doctor --json --threads`).
nlohmann::json threads_json(const Diagnosis& diagnosis);
// `mptrain doctor --json`'s document: to_json with `interrupted_by` (the
// stop signal's name, null when `signal` is empty), `command_exit_code` (null
// without `-- CMD`) and, when `threads` is set, threads_json as `threads`.
nlohmann::json doctor_json(const Diagnosis& diagnosis, const std::string& signal, std::optional<int> command_exit_code,
                           bool threads);

}  // namespace mptrain::monitor
