// The monitor inside `mptrain run` (monitor/run_monitor.hpp), made from a plan.
#pragma once

#include "affinity/plan.hpp"
#include "monitor/run_monitor.hpp"

namespace mptrain::cli {

using monitor::SpreadThreads;
using monitor::VerdictChange;

// monitor::RunMonitor over `plan`'s usable CPUs; `launch`: the run's own options.
class RunMonitor : public monitor::RunMonitor {
 public:
  explicit RunMonitor(const affinity::Plan& plan, SpreadThreads spread = SpreadThreads::off,
                      const monitor::Launch& launch = {})
      : monitor::RunMonitor({plan.usable_cpus, plan.usable_cpu_list, launch}, spread) {}
};

}  // namespace mptrain::cli
