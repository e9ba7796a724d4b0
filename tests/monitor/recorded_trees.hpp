// The recorded /proc and /sys trees the monitor's reader tests run on.
#pragma once

#include "util/fs.hpp"

namespace mptrain::monitor::testing {

// A machine with cgroup v1 (cpu controller) and the monitor's fixture processes.
inline const FsRoot v1_tree(MPTRAIN_TEST_DATA "/monitor/proc-v1");
// The same machine with cgroup v2 only.
inline const FsRoot v2_tree(MPTRAIN_TEST_DATA "/monitor/proc-v2");

}  // namespace mptrain::monitor::testing
