// The fixes the detector prints for too many threads, and for too few
// (idle_capacity): which threading runtimes own the pools, the knob that
// sizes each, and the exact command that runs the job right-sized — with
// the variables set, or under `mptrain run -n M`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "monitor/evidence.hpp"
#include "monitor/finding.hpp"

namespace mptrain::monitor {

// " — its threads come from GNU OpenMP (libgomp.so.1, OMP_NUM_THREADS) and PyTorch (…)" for the
// runtimes `processes` map, "" when none is known.
std::string runtimes_note(const std::vector<const ProcessEvidence*>& processes);

// What to run instead so that `processes` (the ones with pools) fit `n` usable CPUs: floor(n/M) threads
// each, e.g. "run each with 1 thread: `OMP_NUM_THREADS=1 python3 main.py`, or start them with
// `mptrain run -n 2 -- python3 main.py`, which sets … and pins each process to its own CPU". The command
// is the one they share, else CMD; processes that one watched program started itself (their common
// parent among `all`: multiprocessing, a forking OpenMP program) get that program's command and
// `mptrain run -n 1 --children M -- …` instead.
// A pool larger than its runtime's thread-count variable (`pools`: pool threads per pid) was sized by the
// program itself: then the fix names that call and the line to change, and what mptrain does about it.
// Inside `launch` (mptrain run's monitor) the fix never names the command already running.
std::string sizing_fix(const std::vector<const ProcessEvidence*>& processes, int n,
                       const std::map<pid_t, ProcessEvidence>& all, const std::map<pid_t, int>& pools = {},
                       const struct Launch& launch = {});

// Whether `cmdline` (argv shell-quoted, as the sampler reads it) is a title
// the program wrote over its argv ("stress-ng-cpu [run]", "postgres:
// writer"), not a command that would run: its first word holds white space.
bool retitled(std::string_view cmdline);

// The call a program sizes a pool of `process` with ("torch.set_num_threads", "omp_set_num_threads",
// "openblas_set_num_threads", …) when its pool of `pool` threads is larger than its runtime's
// thread-count variable says; "" when the variables account for it.
std::string program_sizing_call(const ProcessEvidence& process, int pool);

// How to give the pools of `processes` `threads` threads each, through the
// knob of every runtime they map, each once: "set OPENBLAS_NUM_THREADS=1",
// "set OMP_NUM_THREADS=1 and call torch.set_num_threads(1)"; "set
// OMP_NUM_THREADS=N" when no runtime is known (the knob most runtimes read).
std::string knob_settings(const std::vector<const ProcessEvidence*>& processes, int threads);

// What sizes `process`'s pool of `pool` threads, as the idle_capacity
// finding names it: the thread-count variable of a runtime it maps, set to
// at most `pool` ("OMP_NUM_THREADS=1 (GNU OpenMP, libgomp.so.1)"); else a
// mapped runtime and its knob ("PyTorch (libtorch_cpu.so), sized by
// torch.set_num_threads"); else a thread-count variable in its environment
// set to at most `pool`; "" when none of these is known (a variable set
// higher than the pool is not what limits it).
std::string pool_limit(const ProcessEvidence& process, int pool);

// What to run instead so that `processes` (the busy ones, pools of at most
// `most` threads, sized by what pool_limit names) use `n` usable CPUs:
// ⌊n/M⌋ threads each through their knob — the variables of the runtimes
// they map, else those set to at most `most` —, or ⌊n/most⌋ ranks under
// `mptrain run`; a program that sizes no pool gets the ranks alone. The
// command is found as sizing_fix finds it.
std::string widening_fix(const std::vector<const ProcessEvidence*>& processes, int most, int n,
                         const std::map<pid_t, ProcessEvidence>& all);

}  // namespace mptrain::monitor
