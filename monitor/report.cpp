#include "monitor/report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "util/cpu_set.hpp"
#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

// `value` rounded to 4 decimals, so JSON stays readable.
double rounded(double value) { return std::round(value * 1e4) / 1e4; }

// `value` rounded, or null.
nlohmann::json rounded(const std::optional<double>& value) {
  return value ? nlohmann::json(rounded(*value)) : nlohmann::json(nullptr);
}

// A range as [low, high], or null.
nlohmann::json range_json(const std::optional<LossRange>& range) {
  if (!range) return nullptr;
  return nlohmann::json::array({rounded(range->low), rounded(range->high)});
}

// The job's one range of loss, {low, high}, whose ends the verdict follows; null when too little was measured.
nlohmann::json loss_json(const std::optional<LossEstimate>& loss) {
  if (!loss) return nullptr;
  return {{"low", rounded(loss->decides_range.low)}, {"high", rounded(loss->decides_range.high)}};
}

// How the estimate was made (--json detail, documented as such): the job's
// loss against its CPUs and its processes' own, the larger (the estimate),
// its 10th and 90th percentile over the intervals and distance from the
// nearer threshold, each figure's range, and what leaves the range open.
nlohmann::json loss_detail_json(const std::optional<LossEstimate>& loss) {
  if (!loss) return nullptr;
  return {{"job", rounded(loss->job)},
          {"processes", rounded(loss->processes)},
          {"decides", rounded(loss->decides)},
          {"interval_low", rounded(loss->low)},
          {"interval_high", rounded(loss->high)},
          {"margin", rounded(loss->margin)},
          {"job_range", range_json(loss->job_range)},
          {"processes_range", range_json(loss->processes_range)},
          {"decides_range", range_json(loss->decides_range)},
          {"unpinned", loss->unpinned.empty() ? nlohmann::json(nullptr) : nlohmann::json(loss->unpinned)}};
}

nlohmann::json env_json(const ThreadEnv& env) {
  nlohmann::json out = nlohmann::json::object();
  for (std::size_t i = 0; i < thread_count_variables.size(); ++i) {
    if (env.counts[i]) out[std::string(thread_count_variables[i])] = *env.counts[i];
  }
  return out;
}

nlohmann::json finding_json(const Finding& f) {
  nlohmann::json numbers = nlohmann::json::object();
  for (const auto& [name, value] : f.numbers) numbers[name] = rounded(value);
  nlohmann::json out = {{"kind", to_string(f.kind)},
                        {"severity", severity_name(f)},
                        {"message", f.message},
                        {"fix", f.fix},
                        {"numbers", numbers}};
  if (!f.other_runs.empty()) out["other_runs"] = f.other_runs;
  return out;
}

nlohmann::json runtimes_json(const std::vector<Runtime>& runtimes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : runtimes) {
    out.push_back({{"name", to_string(r.kind)}, {"library", r.library}, {"knob", knob(r.kind)}});
  }
  return out;
}

// "PyTorch, GNU OpenMP", or "-" for none.
std::string runtime_names(const std::vector<Runtime>& runtimes) {
  std::string names;
  for (const auto& r : runtimes) names += (names.empty() ? "" : ", ") + std::string(to_string(r.kind));
  return names.empty() ? "-" : names;
}

nlohmann::json process_json(const ProcessSummary& p) {
  return {{"pid", p.pid},
          {"comm", p.comm},
          {"cmdline", p.cmdline},
          {"threads", p.threads},
          {"threads_ran", p.threads_ran},
          {"pool_threads", p.pool_threads},
          {"cpu_seconds", rounded(p.cpu_seconds)},
          {"wait_seconds", rounded(p.wait_seconds)},
          {"run_delay_ratio", rounded(p.run_delay_ratio)},
          {"wait_per_slice_ms", rounded(p.wait_per_slice_ms)},
          {"estimated_throughput_loss", rounded(p.estimated_throughput_loss)},
          {"estimated_throughput_loss_range", range_json(p.estimated_throughput_loss_range)},
          {"team", p.team},
          {"cpus_allowed", short_cpu_list(p.cpus_allowed)},
          {"thread_env", env_json(p.env)},
          {"runtimes", runtimes_json(p.runtimes)}};
}

nlohmann::json cgroup_json(const CgroupSummary& g) {
  return {{"version", version_number(g.version)},
          {"path", g.path},
          {"dir", g.dir},
          {"quota_cpus", rounded(g.quota_cpus)},
          {"throttled_ratio", rounded(g.throttled_ratio)}};
}

nlohmann::json thread_json(const ThreadSummary& t) {
  return {{"pid", t.pid},
          {"tid", t.tid},
          {"comm", t.comm},
          {"cpu_seconds", rounded(t.cpu_seconds)},
          {"wait_seconds", rounded(t.wait_seconds)},
          {"timeslices", t.timeslices},
          {"wait_per_slice_ms", rounded(t.wait_per_slice_ms)},
          {"voluntary_switches", t.voluntary_switches},
          {"nonvoluntary_switches", t.nonvoluntary_switches},
          {"last_cpu", t.last_cpu},
          {"cpus_allowed", short_cpu_list(t.cpus_allowed)}};
}

using mptrain::percent;

// `fraction` as a whole percentage, "-" when not measured.
std::string percent(const std::optional<double>& fraction) { return fraction ? percent(*fraction) : "-"; }

// The estimate's line of the text report: one figure and one range, and what would narrow a range
// whose ends decide differently.
std::string loss_line(const std::optional<LossEstimate>& loss) {
  if (!loss) return "  throughput lost (est.): not measured\n";
  std::string out = fmt::format(
      "  throughput lost (est.): {}, range {}–{} (oversubscribed needs the low end, a warning the high end)\n",
      percent(loss->decides), percent(loss->decides_range.low), percent(loss->decides_range.high));
  if (!loss->unpinned.empty()) out += fmt::format("  not pinned:             {}\n", loss->unpinned);
  return out;
}

}  // namespace

nlohmann::json to_json(const Diagnosis& d) {
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : d.findings) findings.push_back(finding_json(f));
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& p : d.processes) processes.push_back(process_json(p));
  nlohmann::json cgroups = nlohmann::json::array();
  for (const auto& g : d.cgroups) cgroups.push_back(cgroup_json(g));
  return {
      {"verdict", to_string(d.verdict)},
      {"usable_cpus", d.capacity.usable_cpus},
      {"usable_cpu_list", d.capacity.usable_cpu_list.to_short_string()},
      {"duration_seconds", rounded(d.duration_s)},
      {"intervals", d.intervals},
      {"measured", d.evidence.sufficient},
      {"evidence", d.evidence.sufficient ? nlohmann::json(nullptr) : nlohmann::json(d.evidence.note)},
      {"slept", d.evidence.quiet},
      {"runnable_threads_avg", rounded(d.runnable_threads_avg)},
      {"waiting_threads_avg", rounded(d.waiting_threads_avg)},
      {"queued_threads_avg", rounded(d.queued_threads_avg)},
      {"working_threads_avg", rounded(d.working_threads_avg)},
      {"estimated_throughput_loss", d.loss ? nlohmann::json(rounded(d.loss->decides)) : nlohmann::json(nullptr)},
      {"estimated_throughput_loss_range", d.loss ? range_json(d.loss->decides_range) : nlohmann::json(nullptr)},
      {"throughput_loss", loss_json(d.loss)},
      {"throughput_loss_detail", loss_detail_json(d.loss)},
      {"run_delay_ratio", rounded(d.run_delay_ratio)},
      {"wait_per_slice_ms", {{"mean", rounded(d.wait_per_slice_ms_mean)}, {"p95", rounded(d.wait_per_slice_ms_p95)}}},
      {"voluntary_switches_per_second", rounded(d.voluntary_switches_per_second)},
      {"nonvoluntary_switches_per_second", rounded(d.nonvoluntary_switches_per_second)},
      {"cpu_utilization", rounded(d.cpu_utilization)},
      {"short_lived_cpu_utilization", rounded(d.short_lived_cpu_utilization)},
      {"machine_cpu_utilization", rounded(d.machine_cpu_utilization)},
      {"cpu_pressure", rounded(d.cpu_pressure)},
      {"findings", findings},
      {"processes", processes},
      {"cgroups", cgroups}};
}

bool repeats_earlier_fix(const Diagnosis& d, std::size_t index) {
  const auto& fix = d.findings.at(index).fix;
  for (std::size_t j = 0; j < index; ++j) {
    if (d.findings[j].fix.find(fix) != std::string::npos) return true;
  }
  return false;
}

std::string to_quiet_text(const Diagnosis& d) {
  const bool unmeasured = d.verdict == Verdict::inconclusive;
  std::string out = fmt::format("verdict: {}{}\n", to_string(d.verdict), unmeasured ? " (too little evidence)" : "");
  for (std::size_t i = 0; i < d.findings.size(); ++i) {
    if (!repeats_earlier_fix(d, i)) out += fmt::format("  fix: {}\n", d.findings[i].fix);
  }
  return out;
}

std::string to_short_text(const Diagnosis& d) {
  std::string out = fmt::format("verdict: {} (watched {:.1f} s; --verbose or --json for the figures)\n",
                                to_string(d.verdict), d.duration_s);
  const std::string loss =
      d.loss ? fmt::format(", throughput lost {}", percent(d.loss->decides)) : std::string(", loss not measured");
  out += fmt::format("  {:.2f} working threads on {} usable CPUs, {:.2f} queued{}\n", d.working_threads_avg,
                     d.capacity.usable_cpus, d.queued_threads_avg, loss);
  for (std::size_t i = 0; i < d.findings.size(); ++i) {
    if (!repeats_earlier_fix(d, i)) out += fmt::format("  fix: {}\n", d.findings[i].fix);
  }
  return out;
}

std::string to_text(const Diagnosis& d, int max_processes) {
  // The verdict leads the line (scripts grep it); an inconclusive one says why on the same line.
  const bool unmeasured = d.verdict == Verdict::inconclusive;
  std::string out = fmt::format("verdict: {}{}\n", to_string(d.verdict),
                                unmeasured ? " (too little evidence, see \"evidence\" below)" : "");
  out += fmt::format("  usable CPUs:            {} ({})\n", d.capacity.usable_cpus,
                     d.capacity.usable_cpu_list.to_short_string());
  out += fmt::format("  watched for:            {:.1f} s ({})\n", d.duration_s, counted(d.intervals, "interval"));
  out += fmt::format("  runnable threads (avg): {:.2f}, {:.2f} of them working (not sleepers waking up)\n",
                     d.runnable_threads_avg, d.working_threads_avg);
  out += fmt::format("  waiting threads (avg):  {:.2f} (run-queue wait ÷ time watched), {:.2f} queued behind others\n",
                     d.waiting_threads_avg, d.queued_threads_avg);
  out += fmt::format("  wait per time slice:    {:.3f} ms mean, {:.3f} ms p95\n", d.wait_per_slice_ms_mean,
                     d.wait_per_slice_ms_p95);
  out += fmt::format("  run-delay ratio:        {:.2f} (run-queue wait ÷ time on CPU)\n", d.run_delay_ratio);
  out += loss_line(d.loss);
  out += fmt::format("  context switches:       {:.0f}/s voluntary, {:.0f}/s involuntary\n",
                     d.voluntary_switches_per_second, d.nonvoluntary_switches_per_second);
  const std::string short_lived =
      d.short_lived_cpu_utilization > 0
          ? fmt::format(" ({} by threads that came and went between samples)", percent(d.short_lived_cpu_utilization))
          : "";
  out += fmt::format("  CPU utilization:        {} of the usable CPUs by the watched threads{}, {} by everything\n",
                     percent(d.cpu_utilization), short_lived, percent(d.machine_cpu_utilization));
  if (d.cpu_pressure) {
    out += fmt::format("  CPU pressure (PSI):     {} of the time some task waited\n", percent(*d.cpu_pressure));
  } else if (d.intervals == 0) {
    out += "  CPU pressure (PSI):     not measured: the watch ended within one sampling interval\n";
  } else {
    out += "  CPU pressure (PSI):     not available (no /proc/pressure/cpu, or PSI is off: boot with psi=1)\n";
  }
  if (!d.evidence.sufficient) out += fmt::format("  evidence:               too little: {}\n", d.evidence.note);
  if (d.evidence.quiet) out += fmt::format("  evidence:               {}\n", d.evidence.note);
  out += d.findings.empty() ? "findings: none\n" : "findings:\n";
  for (std::size_t i = 0; i < d.findings.size(); ++i) {
    const auto& f = d.findings[i];
    const std::string fix = repeats_earlier_fix(d, i) ? "as above" : f.fix;
    out += fmt::format("  [{}] {}: {}\n      fix: {}\n", severity_name(f), to_string(f.kind), f.message, fix);
  }
  if (d.processes.empty()) return out;
  out += "processes (busiest first):\n";
  out += fmt::format("  {:>7}  {:<16} {:>7} {:>4} {:>4} {:>8} {:>8} {:>9} {:>5}  {:<8} {}\n", "PID", "COMM", "THREADS",
                     "RAN", "POOL", "CPU s", "WAIT s", "WAIT/SLC", "LOSS", "CPUS", "RUNTIMES");
  int shown = 0;
  for (const auto& p : d.processes) {
    if (shown++ == max_processes) {
      out += fmt::format("  … and {} more\n", d.processes.size() - static_cast<std::size_t>(max_processes));
      break;
    }
    out += fmt::format("  {:>7}  {:<16} {:>7} {:>4} {:>4} {:>8.2f} {:>8.2f} {:>6.2f} ms {:>5}  {:<8} {}\n", p.pid,
                       printable(p.comm), p.threads, p.threads_ran, p.pool_threads, p.cpu_seconds, p.wait_seconds,
                       p.wait_per_slice_ms, percent(p.estimated_throughput_loss), short_cpu_list(p.cpus_allowed),
                       runtime_names(p.runtimes));
  }
  return out;
}

}  // namespace mptrain::monitor

namespace mptrain::monitor {

nlohmann::json threads_json(const Diagnosis& d) {
  nlohmann::json threads = nlohmann::json::array();
  for (const auto& t : d.threads) threads.push_back(thread_json(t));
  return threads;
}

std::string threads_table(const Diagnosis& d, int max_threads) {
  std::string out = fmt::format("threads that ran ({}, busiest first):\n", d.threads.size());
  out += fmt::format("  {:>7} {:>7}  {:<16} {:>8} {:>8} {:>8} {:>10} {:>8} {:>8} {:>4}  {}\n", "PID", "TID", "COMM",
                     "CPU s", "WAIT s", "SLICES", "WAIT/SLICE", "VOL", "INVOL", "CPU", "ALLOWED");
  int shown = 0;
  for (const auto& t : d.threads) {
    if (shown++ == max_threads) {
      out += fmt::format("  … and {} more\n", d.threads.size() - static_cast<std::size_t>(max_threads));
      break;
    }
    out += fmt::format("  {:>7} {:>7}  {:<16} {:>8.3f} {:>8.3f} {:>8} {:>7.3f} ms {:>8} {:>8} {:>4}  {}\n", t.pid,
                       t.tid, printable(t.comm), t.cpu_seconds, t.wait_seconds, t.timeslices, t.wait_per_slice_ms,
                       t.voluntary_switches, t.nonvoluntary_switches, t.last_cpu, short_cpu_list(t.cpus_allowed));
  }
  return out;
}

nlohmann::json doctor_json(const Diagnosis& diagnosis, const std::string& signal, std::optional<int> command_exit_code,
                           bool threads) {
  auto document = to_json(diagnosis);
  document["interrupted_by"] = signal.empty() ? nlohmann::json(nullptr) : nlohmann::json(signal);
  document["command_exit_code"] = command_exit_code ? nlohmann::json(*command_exit_code) : nlohmann::json(nullptr);
  if (threads) document["threads"] = threads_json(diagnosis);
  return document;
}

}  // namespace mptrain::monitor
