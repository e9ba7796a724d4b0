// The doctor's thresholds: one table of rows (option, member, default,
// help, reason, the option it may not exceed), from which the defaults,
// the doctor's options (cli/doctor.cpp), --help-thresholds and the checks
// of given values all come. Why each default sits where it does is its
// row's reason, also in mptrain-doctor(1); what the detector does with
// them is in loss_model.hpp and rules.hpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace mptrain::monitor {

// Named thresholds, each set by the doctor option its row names.
struct Thresholds {
  // Every threshold at its row's default.
  Thresholds();

  double min_cpu_seconds;
  double queue_wait_per_slice_ms;
  double cpu_bound_demand;
  double warn_queued_share;
  double min_queued_threads;
  double warn_throughput_loss;
  double max_throughput_loss;
  double warn_demand_ratio;
  double max_demand_ratio;
  double warn_throttle_ratio;
  double max_throttle_ratio;
  double min_throttled_share;
  double working_cpu_share;
  double busy_process_demand;
  double contended_cpu_demand;
  double spare_cpu_demand;
  double outside_load_cpus;
  double job_cpu_demand;
  double idle_cpu_busy;
  double idle_min_cpu_seconds;
  double idle_max_demand_share;
  double idle_min_spare_cpus;
  double idle_min_busy_share;
  double idle_max_peak_share;
  double idle_max_outside_share;
  double idle_max_sleep_share;
};

// One threshold: the doctor option that sets it (without "--"), the member,
// its default, the option's help, why the default sits where it does, and
// the option of the threshold it may not exceed (a warning's maximum; "": none).
// Every threshold is a number of at least 0.
struct ThresholdRow {
  std::string_view option;
  double Thresholds::*member;
  double value;
  std::string_view help;
  std::string_view reason;
  std::string_view at_most = {};
};

// Every threshold, once, in the order the doctor's --help lists them.
std::span<const ThresholdRow> threshold_table();

// The row of threshold option `option` (without "--"); nullptr when none has that name.
const ThresholdRow* threshold_row(std::string_view option);

// `--help-thresholds`: a line per row, its option, default and help, under a title.
std::string thresholds_help();

// Ok when each threshold of `thresholds` is at most the one its row names;
// otherwise an Error (a usage error for callers) naming the first pair in
// table order: "--warn-demand-ratio 2 is above --max-demand-ratio 1.25; …".
Status check_thresholds(const Thresholds& thresholds);

// a / b, or 0 where b is not positive (a share of nothing measured).
inline double ratio(double a, double b) { return b > 0 ? a / b : 0; }

}  // namespace mptrain::monitor
