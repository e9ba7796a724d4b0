#include "monitor/detector.hpp"

#include <algorithm>

#include "monitor/rules.hpp"
#include "monitor/summary.hpp"

namespace mptrain::monitor {

namespace {

// The share of the usable CPUs' time that all load (/proc/stat) kept busy.
double machine_utilization(const Evidence& evidence, const CpuSet& usable) {
  double busy = 0, total = 0;
  for (const auto& [cpu, e] : evidence.cpus) {
    if (!usable.contains(cpu)) continue;
    busy += e.busy_s;
    total += e.total_s;
  }
  return ratio(busy, total);
}

// The window's figures (no findings): what the report shows whatever the verdict.
void measure(Diagnosis& d, const JobFigures& c) {
  const Evidence& e = c.evidence;
  d.capacity = Capacity{c.n, c.usable, c.launch};
  d.duration_s = c.duration;
  d.intervals = e.intervals;
  d.evidence = judge_evidence(e, c.t);
  d.runnable_threads_avg = c.runnable;
  d.waiting_threads_avg = ratio(e.wait_s, c.duration);
  d.queued_threads_avg = c.queued;
  d.working_threads_avg = c.working;
  if (d.evidence.sufficient) d.loss = c.loss;
  if (d.evidence.quiet) d.loss = LossEstimate{};  // it mostly slept: no ratio means anything, and nothing waited
  d.run_delay_ratio = ratio(e.wait_s, e.on_cpu_s);
  d.wait_per_slice_ms_mean = 1e3 * ratio(e.wait_s, static_cast<double>(e.timeslices));
  d.wait_per_slice_ms_p95 = 1e3 * e.slice_waits.quantile(0.95);
  d.voluntary_switches_per_second = ratio(static_cast<double>(e.voluntary_switches), c.duration);
  d.nonvoluntary_switches_per_second = ratio(static_cast<double>(e.nonvoluntary_switches), c.duration);
  d.cpu_utilization = ratio(e.on_cpu_s, c.n * c.duration);
  d.short_lived_cpu_utilization = ratio(e.short_lived_on_cpu_s, c.n * c.duration);
  d.machine_cpu_utilization = machine_utilization(e, c.usable);
  if (e.pressure_some_s && c.duration > 0) d.cpu_pressure = *e.pressure_some_s / c.duration;
}

}  // namespace

Diagnosis diagnose(const Evidence& evidence, const Capacity& capacity, const Thresholds& thresholds, Subject subject) {
  const JobFigures c = job_figures(evidence, capacity, thresholds);
  Diagnosis d;
  measure(d, c);
  if (d.evidence.sufficient && !d.evidence.quiet) d.findings = find_causes(c, subject);
  if (!d.evidence.sufficient) d.verdict = Verdict::inconclusive;
  for (const auto& f : d.findings) d.verdict = std::max(d.verdict, f.severity);
  d.processes = summarize_processes(evidence, c.pools);
  if (!d.evidence.sufficient || d.evidence.quiet) {
    for (auto& process : d.processes) {  // no ratio means anything
      process.estimated_throughput_loss.reset();
      process.estimated_throughput_loss_range.reset();
    }
  }
  d.cgroups = summarize_cgroups(evidence);
  d.threads = summarize_threads(evidence);
  return d;
}

}  // namespace mptrain::monitor
