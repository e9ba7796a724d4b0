#include "monitor/loss_model.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

// 1 − `done` ÷ `possible`, within [0, 1]; 0 when nothing was wanted.
double lost(double done, double possible) { return possible > 0 ? std::clamp(1 - done / possible, 0.0, 1.0) : 0; }

// A job's loss (THROUGHPUT LOSS) from its `work` over `duration` s on `cpus`
// CPUs of which others used `others` CPU-seconds.
double job_loss(const Work& work, double duration, int cpus, double others) {
  const double left = std::max(0.0, cpus * duration - others);
  return lost(work.useful_s, std::min(work.wanted_s, left));
}

// The larger of a job's loss and its processes'.
double deciding_loss(const Work& work, double duration, int cpus, double others) {
  return std::max(job_loss(work, duration, cpus, others), progress_loss(work));
}

// The job's loss between its bounds, as job_loss.
LossRange job_range(const Work& work, double duration, int cpus, double others) {
  Work apart = work, together = work;
  apart.useful_s = work.apart_useful_s;
  together.useful_s = work.together_useful_s;
  return {job_loss(apart, duration, cpus, others), job_loss(together, duration, cpus, others)};
}

// The `q` quantile of `values` (sorted in place); 0 when empty.
double quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto at = static_cast<std::size_t>(std::lround(q * static_cast<double>(values.size() - 1)));
  return values[at];
}

// True when the two ends of `range` reach different verdicts under `t`.
bool straddles(const LossRange& range, const Thresholds& t) {
  const auto crosses = [&range](double threshold) { return range.low < threshold && range.high >= threshold; };
  return crosses(t.warn_throughput_loss) || crosses(t.max_throughput_loss);
}

// Fills loss.unpinned when the range's ends decide differently: which
// processes' threads may or may not wait for each other, and what would tell.
void open_range(LossEstimate& loss, const Evidence& e, const Thresholds& t) {
  if (!straddles(loss.decides_range, t)) return;
  std::vector<std::pair<double, const ProcessEvidence*>> open;  // by how much each leaves open
  for (const auto& [pid, p] : e.processes) {
    const LossRange r = progress_range(p.work);
    if (r.high - r.low >= 0.01) open.emplace_back((r.high - r.low) * p.work.working_s, &p);
  }
  std::sort(open.begin(), open.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> names;
  for (std::size_t i = 0; i < open.size() && i < 3; ++i) {
    names.push_back(fmt::format("pid {} ({})", open[i].second->pid, open[i].second->comm));
  }
  if (open.size() > 3) names.push_back(fmt::format("{} more", open.size() - 3));
  const std::string who =
      names.empty() ? std::string("the job's processes") : fmt::format("{}", fmt::join(names, ", "));
  loss.unpinned = fmt::format(
      "the kernel's accounting does not show how often the threads of {} wait for each other (how often a team "
      "meets at barriers, whether a queued thread holds the others up): the loss lies between {} (they work apart) "
      "and {} (they move only together), across a threshold; the job's throughput measured with fewer threads "
      "would narrow it",
      who, percent(loss.decides_range.low), percent(loss.decides_range.high));
  if (!open.empty()) loss.unpinned_cmdline = open.front().second->cmdline;
}

}  // namespace

QueueRule queue_rule(const Thresholds& thresholds, int usable_cpus) {
  return QueueRule{thresholds.queue_wait_per_slice_ms * 1e-3, thresholds.cpu_bound_demand, thresholds.working_cpu_share,
                   usable_cpus};
}

double progress_loss(const Work& work) { return lost(work.progress_s, work.working_s); }

LossRange progress_range(const Work& work) {
  return {lost(work.apart_progress_s, work.working_s), lost(work.together_progress_s, work.working_s)};
}

int job_cpus(const Evidence& evidence, int usable_cpus) {
  int cpus = usable_cpus;
  for (const auto& [key, group] : evidence.cgroups) {
    if (group.quota.cpus) cpus = std::min(cpus, std::max(1, static_cast<int>(std::floor(*group.quota.cpus))));
  }
  return cpus;
}

LossEstimate estimate_loss(const Evidence& evidence, const Thresholds& thresholds, int cpus, double others) {
  const Evidence& e = evidence;
  const Thresholds& t = thresholds;
  LossEstimate loss;
  loss.job = job_loss(e.work, e.duration_s, cpus, others);
  loss.processes = progress_loss(e.work);
  loss.decides = deciding_loss(e.work, e.duration_s, cpus, others);
  loss.job_range = job_range(e.work, e.duration_s, cpus, others);
  loss.processes_range = progress_range(e.work);
  loss.decides_range = {std::max(loss.job_range.low, loss.processes_range.low),
                        std::max(loss.job_range.high, loss.processes_range.high)};
  std::vector<double> intervals;
  for (const auto& entry : e.work_series.entries()) {
    if (entry.work.working_s <= 0) continue;
    intervals.push_back(deciding_loss(entry.work, entry.duration_s, cpus, entry.others_s));
  }
  // The window's figure is a ratio of sums, not a percentile of the
  // intervals' ratios: a few busy intervals among many calm ones can put it
  // outside their 10th–90th percentiles, so the range widens to take it in.
  const double d = loss.decides;
  loss.low = intervals.empty() ? d : std::min(d, quantile(intervals, 0.1));
  loss.high = intervals.empty() ? d : std::max(d, quantile(intervals, 0.9));
  const bool nearer_warn = std::abs(d - t.warn_throughput_loss) < std::abs(d - t.max_throughput_loss);
  loss.margin = d - (nearer_warn ? t.warn_throughput_loss : t.max_throughput_loss);
  open_range(loss, e, t);
  return loss;
}

std::optional<Verdict> loss_severity(const LossRange& loss, const Thresholds& thresholds) {
  if (loss.low >= thresholds.max_throughput_loss) return Verdict::oversubscribed;
  if (loss.high >= thresholds.warn_throughput_loss) return Verdict::warning;
  return std::nullopt;
}

}  // namespace mptrain::monitor
