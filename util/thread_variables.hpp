// The environment variables that size a program's thread pools, one per
// runtime, derived from the one runtime table (util/runtime_table.def).
// `run -- CMD` sets each to T (procmgr/environment.hpp); the doctor reads
// them from /proc/PID/environ (monitor/procfs.hpp) and names them in its fixes.
#pragma once

#include "util/runtime_table.hpp"
