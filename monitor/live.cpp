#include "monitor/live.hpp"

#include "monitor/detector.hpp"
#include "monitor/loss_model.hpp"
#include "monitor/report.hpp"

namespace mptrain::monitor {

namespace {

double seconds(std::chrono::milliseconds ms) { return static_cast<double>(ms.count()) / 1000.0; }

}  // namespace

LiveMonitor::LiveMonitor(MonitorOptions options)
    : options_(std::move(options)), sampler_(options_.root, options_.scope, options_.pids, options_.sampler) {}

void LiveMonitor::observe(const std::vector<pid_t>& roots) {
  if (options_.scope != Scope::machine) sampler_.set_roots(roots);
  if (seconds_until_due() <= 0) sample_now();
}

void LiveMonitor::sample_now() { add(sampler_.sample()); }

void LiveMonitor::add(Snapshot now) {
  if (last_) {
    Evidence interval = between(*last_, now, queue_rule(options_.thresholds, options_.capacity.usable_cpus));
    merge(total_, interval);
    recent_.push_back(std::move(interval));  // the newest, kept last while the oldest leave
    double span = 0;
    for (const auto& e : recent_) span += e.duration_s;
    while (recent_.size() > 1 && span - recent_.front().duration_s >= seconds(options_.window)) {
      span -= recent_.front().duration_s;
      recent_.pop_front();
    }
    if (options_.on_interval) {
      options_.on_interval(IntervalEnd{last_->time_s, now.time_s, recent_.back(), current_verdict()});
    }
  }
  last_ = std::move(now);
  if (options_.other_runs) {
    for (auto& run : options_.other_runs()) {
      auto& seen = other_runs_[run.pid];
      run.cpus = run.cpus.unite(seen.cpus);
      seen = std::move(run);
    }
  }
}

Diagnosis LiveMonitor::named(Diagnosis diagnosis) const {
  if (other_runs_.empty()) return diagnosis;
  std::vector<OtherRun> runs;
  for (const auto& [pid, run] : other_runs_) runs.push_back(run);
  name_other_runs(diagnosis.findings, runs);
  return diagnosis;
}

double LiveMonitor::seconds_until_due() const {
  if (!last_) return 0;
  return std::max(0.0, last_->time_s + seconds(options_.interval) - monotonic_seconds());
}

Diagnosis LiveMonitor::recent() const {
  Evidence window;
  for (const auto& e : recent_) merge(window, e);
  return named(diagnose(window, options_.capacity, options_.thresholds, subject()));
}

Diagnosis LiveMonitor::judge(const Evidence& evidence) const {
  return named(diagnose(evidence, options_.capacity, options_.thresholds, subject()));
}

Verdict LiveMonitor::current_verdict() const { return recent().verdict; }

Diagnosis LiveMonitor::diagnosis() const {
  return named(diagnose(total_, options_.capacity, options_.thresholds, subject()));
}

nlohmann::json LiveMonitor::report() const { return to_json(diagnosis()); }

}  // namespace mptrain::monitor
