// The environment variables that size a program's thread pools, one per
// runtime. `run -- CMD` sets each to T (procmgr/environment.hpp); the
// doctor reads them from /proc/PID/environ (monitor/procfs.hpp) and names
// them in its fixes. Adding a runtime's variable is one edit here.
#pragma once

#include <array>
#include <string_view>

namespace mptrain {

// OpenMP's variable first: fixes name it as the one to set. Then the BLAS
// libraries (MKL, OpenBLAS, BLIS, Apple's vecLib as numpy builds on macOS
// read it) and numexpr, which pandas and numexpr users start.
inline constexpr std::array<std::string_view, 6> thread_count_variables = {
    "OMP_NUM_THREADS",  "MKL_NUM_THREADS",        "OPENBLAS_NUM_THREADS",
    "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"};

}  // namespace mptrain
