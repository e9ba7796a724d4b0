// The threshold table and what is derived from it (see thresholds.hpp).
#include "monitor/thresholds.hpp"

#include <fmt/format.h>

#include <array>

namespace mptrain::monitor {

namespace {

using T = Thresholds;

constexpr std::array threshold_rows{
    ThresholdRow{"min-cpu-seconds", &T::min_cpu_seconds, 0.2, "CPU-seconds the job must run before any judgement",
                 "10% of one CPU over the default 2 s window; less is a job that barely ran"},
    ThresholdRow{"queue-wait-per-slice-ms", &T::queue_wait_per_slice_ms, 1.0,
                 "Wait per time slice (ms) that counts as queueing behind others",
                 "a woken thread with room runs within 0.05-0.4 ms; one behind a CPU hog waits 1.4-30 ms"},
    ThresholdRow{"cpu-bound-demand", &T::cpu_bound_demand, 0.75,
                 "Share of an interval a thread wants a CPU from which all its wait is queueing",
                 "a thread runnable 75% of an interval is CPU-bound there, however short its slices"},
    ThresholdRow{"warn-queued-share", &T::warn_queued_share, 0.10,
                 "Queued threads per usable CPU from which a shared CPU is a finding and spare CPUs are not idle",
                 "0.1 queued threads per CPU costs CPU-bound work about 10%"},
    ThresholdRow{"min-queued-threads", &T::min_queued_threads, 0.10,
                 "Threads queued on average below which the job's loss, whatever its share, is no finding",
                 "a tenth of one CPU kept waiting: the most the job could gain; wake-ups of threads that mostly "
                 "sleep (a share of a tiny demand) queue less"},
    ThresholdRow{"warn-throughput-loss", &T::warn_throughput_loss, 0.10,
                 "Estimated throughput loss (job's or processes') for a warning; the throttled share of the time "
                 "below which a cgroup whose pools fit its quota is no finding",
                 "a tenth of the throughput; the corpus's right-sized jobs estimate 0.03 or less",
                 "max-throughput-loss"},
    ThresholdRow{"max-throughput-loss", &T::max_throughput_loss, 0.25,
                 "Estimated throughput loss (job's or processes') for oversubscribed",
                 "a quarter; the corpus's oversubscribed jobs estimate 0.5 or more, its outside load about 0.2"},
    ThresholdRow{"warn-demand-ratio", &T::warn_demand_ratio, 1.05, "Runnable threads ÷ N for a warning",
                 "demand 5% beyond the CPUs, more than measuring noise", "max-demand-ratio"},
    ThresholdRow{"max-demand-ratio", &T::max_demand_ratio, 1.25, "Runnable threads ÷ N for oversubscribed",
                 "a quarter more threads than CPUs"},
    ThresholdRow{"warn-throttle-ratio", &T::warn_throttle_ratio, 0.05, "Throttled ÷ CFS periods for a warning",
                 "one period in twenty held back", "max-throttle-ratio"},
    ThresholdRow{"max-throttle-ratio", &T::max_throttle_ratio, 0.25, "Throttled ÷ CFS periods for oversubscribed",
                 "one period in four held back"},
    ThresholdRow{"min-throttled-share", &T::min_throttled_share, 0.01,
                 "Throttled time ÷ time watched below which throttling is no finding",
                 "below 1%, a quota used exactly (microseconds now and then) costs nothing"},
    ThresholdRow{"working-cpu-share", &T::working_cpu_share, 0.05,
                 "Share of an interval on a CPU from which a thread is working (not a sleeper)",
                 "idle service threads run 0.1-0.5% of the time; OpenMP workers at barriers far more than 5%"},
    ThresholdRow{"busy-process-demand", &T::busy_process_demand, 0.5,
                 "CPUs a process's working threads want over the window for its pool to count",
                 "half a CPU: a parent that loaded data before forking its workers is left out"},
    ThresholdRow{"contended-cpu-demand", &T::contended_cpu_demand, 1.10, "Job's demand on one CPU to call it shared",
                 "more than one thread's worth (1.1, not 2: two pinned threads that share a CPU for part of the "
                 "window still show)"},
    ThresholdRow{"spare-cpu-demand", &T::spare_cpu_demand, 0.50, "Job's use of a CPU at most which it is left",
                 "a CPU the job uses less than half the time is one it could move a thread to"},
    ThresholdRow{"outside-load-cpus", &T::outside_load_cpus, 0.25, "CPUs used by others on the job's CPUs to warn",
                 "a quarter of a CPU of others' work is more than the machine's own housekeeping"},
    ThresholdRow{"job-cpu-demand", &T::job_cpu_demand, 0.1,
                 "Job's demand on a CPU from which outside_load counts it as one of the job's CPUs",
                 "a tenth of a CPU: the job ran there, not just woke up there"},
    ThresholdRow{"idle-cpu-busy", &T::idle_cpu_busy, 0.5,
                 "Share of the window a CPU is busy (by others, for overlapping_affinity) below which it is free "
                 "to move to",
                 "busy less than half the time: a place the job could go"},
    ThresholdRow{"idle-min-cpu-seconds", &T::idle_min_cpu_seconds, 1.0,
                 "CPU-seconds the job's CPU-bound threads must run for an idle_capacity finding",
                 "a second of CPU: a job that ran, not one that started"},
    ThresholdRow{"idle-max-demand-share", &T::idle_max_demand_share, 0.55,
                 "Most CPUs the job may want, as a share of N, for an idle_capacity finding",
                 "about half of N (0.55: a one-thread job measures up to about 1.05 on 2 CPUs)"},
    ThresholdRow{"idle-min-spare-cpus", &T::idle_min_spare_cpus, 0.9,
                 "Fewest usable CPUs the job must leave for an idle_capacity finding",
                 "a whole CPU, less measuring noise and the doctor's own sampling"},
    ThresholdRow{"idle-min-busy-share", &T::idle_min_busy_share, 0.5,
                 "Share of the job's demand its CPU-bound threads must carry for an idle_capacity finding",
                 "at least half: not a service, not a job waiting on I/O"},
    ThresholdRow{"idle-max-peak-share", &T::idle_max_peak_share, 0.75,
                 "Most demand, as a share of N, in any one interval for an idle_capacity finding",
                 "a job that ran wide for a while can use the CPUs"},
    ThresholdRow{"idle-max-outside-share", &T::idle_max_outside_share, 0.5,
                 "Most of the CPUs the job leaves that others may use for an idle_capacity finding",
                 "beyond half, the CPUs the job leaves are not idle"},
    ThresholdRow{"idle-max-sleep-share", &T::idle_max_sleep_share, 0.5,
                 "Share of the time a process's pool threads may sleep (S or D) for idle_capacity to advise more "
                 "threads",
                 "asleep most of the window, they wait on a pipe, a queue or I/O, and more threads would wait too"},
};

}  // namespace

Thresholds::Thresholds() {
  for (const auto& row : threshold_rows) this->*row.member = row.value;
}

std::span<const ThresholdRow> threshold_table() { return threshold_rows; }

const ThresholdRow* threshold_row(std::string_view option) {
  for (const auto& row : threshold_rows) {
    if (row.option == option) return &row;
  }
  return nullptr;
}

std::string thresholds_help() {
  std::string text =
      "The doctor's thresholds (mptrain doctor --OPTION VALUE; mptrain-doctor(1) says why each sits "
      "where it does):\n";
  for (const auto& row : threshold_rows) {
    text += fmt::format("  --{:<28} {:<8g} {}\n", row.option, row.value, row.help);
  }
  return text;
}

Status check_thresholds(const Thresholds& thresholds) {
  for (const auto& row : threshold_rows) {
    const ThresholdRow* limit = row.at_most.empty() ? nullptr : threshold_row(row.at_most);
    if (limit == nullptr || thresholds.*row.member <= thresholds.*limit->member) continue;
    return Error{fmt::format("--{} {:g} is above --{} {:g}; give a warning threshold at most the maximum", row.option,
                             thresholds.*row.member, limit->option, thresholds.*limit->member)};
  }
  return ok_status();
}

}  // namespace mptrain::monitor
