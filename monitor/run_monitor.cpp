#include "monitor/run_monitor.hpp"

#include <fmt/format.h>

#include "monitor/report.hpp"
#include "util/pinning.hpp"
#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

// A run watches few threads, so it samples twice as often as the doctor's
// default: short runs still get a verdict, at a negligible cost.
constexpr std::chrono::milliseconds run_interval{250};

MonitorOptions options_for(Capacity capacity) {
  MonitorOptions options;
  options.scope = Scope::trees;
  options.interval = run_interval;
  options.capacity = std::move(capacity);
  options.capacity.launch.inside_mptrain = true;
  return options;
}

// The most severe finding of `diagnosis` that sets the verdict, or nullptr when
// there is none (advice such as idle_capacity never explains a verdict change).
const Finding* worst_finding(const Diagnosis& diagnosis) {
  const Finding* worst = nullptr;
  for (const auto& finding : diagnosis.findings) {
    if (finding.severity == Verdict::healthy) continue;
    if (worst == nullptr || finding.severity > worst->severity) worst = &finding;
  }
  return worst;
}

}  // namespace

RunMonitor::RunMonitor(Capacity capacity, SpreadThreads spread)
    : spreader_(spread == SpreadThreads::on ? std::make_optional<ThreadSpreader>() : std::nullopt),
      live_(options_for(std::move(capacity))) {
  if (spreader_) live_.on_interval([this](const IntervalEnd& end) { this->spread(end.evidence); });
}

void RunMonitor::spread(const Evidence& evidence) {
  for (const auto& move : spreader_->next(evidence)) {
    const auto mask = IdMask::of(move.cpus, "CPU");
    if (!mask.ok() || set_task_affinity(move.tid, *mask) != 0) spreader_->failed(move.tid);
  }
}

std::optional<int> RunMonitor::spread_threads() const {
  if (!spreader_) return std::nullopt;
  return spreader_->pinned_total();
}

void RunMonitor::observe(const std::vector<pid_t>& pids) { live_.observe(pids); }

std::string RunMonitor::live_verdict() const { return std::string(to_string(live_.current_verdict())); }

VerdictChange RunMonitor::verdict_change() {
  const auto recent = live_.recent();
  // A quiet spell (too little evidence, or the workers slept) changes nothing: the last verdict judged stands.
  if (recent.verdict == shown_ || recent.verdict == Verdict::inconclusive || recent.evidence.quiet) return {};
  shown_ = recent.verdict;
  const auto* finding = worst_finding(recent);
  if (finding == nullptr) return {fmt::format("monitor: the workers are {} again", to_string(shown_)), true};
  return {fmt::format("monitor: {}: {}", to_string(shown_), finding->message), false};
}

nlohmann::json RunMonitor::report() const { return to_json(live_.diagnosis()); }

std::string RunMonitor::text() const {
  // The doctor's report, its first line ("verdict: …") after "monitor ", the rest indented.
  const auto diagnosis = live_.diagnosis();
  if (diagnosis.intervals == 0) return "monitor no verdict: the run ended within one sampling interval\n";
  const bool short_text = detail_ == Detail::short_when_healthy && diagnosis.verdict == Verdict::healthy;
  const std::string report = detail_ == Detail::quiet ? to_quiet_text(diagnosis)
                             : short_text             ? to_short_text(diagnosis)
                                                      : to_text(diagnosis, 4);
  std::string text;
  for (const auto line : split(report, '\n')) {
    if (line.empty()) continue;
    text += fmt::format("{}{}\n", text.empty() ? "monitor " : "  ", line);
  }
  return text;
}

}  // namespace mptrain::monitor
