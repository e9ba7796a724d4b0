// Advice a launch's diagnosis calls for (pure, but for the reader of this
// process's command line): processes that inherited one CPU of a worker's
// several, programs that start working children without --children, and
// the refusal of more working children than a worker has CPUs.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "monitor/detector.hpp"
#include "util/cpu_set.hpp"
#include "util/fs.hpp"

namespace mptrain::monitor {

// One worker of a launch: its rank, pid and the CPUs the plan gave it.
struct LaunchedWorker {
  int rank = 0;
  pid_t pid = 0;
  CpuSet cpus;
};

// Why the workers' descendants were not placed: --descendants leave, or no placement library.
enum class Unplaced { left, library_missing };

// A warning for each process the workers started (not a worker itself, in
// `diagnosis`) that ran on one CPU of a worker's several: with mptrain's
// OMP_PROC_BIND, OpenMP binds a worker's main thread to its first PU, and a
// process started from that thread inherits that single CPU. `why` says
// what would have placed it.
std::vector<std::string> inherited_binding_warnings(const std::vector<LaunchedWorker>& workers,
                                                    const Diagnosis& diagnosis, Unplaced why);

// K working children per worker, and the command line that gives each its own CPUs.
struct ChildrenAdvice {
  int children = 0;
  std::string command;
};

// With no --children (`children` 0) and the workers' programs starting
// processes that each ran a thread pool (two threads or more that ran): K
// per worker (rounded up, at least 2) and `argv` (this run's own command
// line, with "--" before the program) with --children K before "--", named
// mptrain and shell-quoted; nullopt otherwise.
std::optional<ChildrenAdvice> children_advice(const std::vector<LaunchedWorker>& workers, const Diagnosis& diagnosis,
                                              int children, std::vector<std::string> argv);

// The note that prints `advice`.
std::string children_note(const ChildrenAdvice& advice);

// This process's command line (/proc/self/cmdline under `root`), word by word; empty when it cannot be read.
std::vector<std::string> own_command_line(const FsRoot& root = {});

// "the monitor's verdict reaches --fail-on oversubscribed (it is …)": why a
// run exits 3, `ignored` when --ignore left findings out.
std::string gate_message(const Diagnosis& diagnosis, FailOn fail_on, bool ignored);

// The gate a CI script sets on a verdict: --fail-on (exit 3 from a verdict
// on) and the finding kinds --ignore leaves out.
struct Gate {
  FailOn fail_on = FailOn::oversubscribed;
  std::vector<FindingKind> ignored;
};
// Whether `diagnosis` fails `gate` (reaches() with its ignored kinds left out): then the command exits 3.
bool fails(const Diagnosis& diagnosis, const Gate& gate);
// gate_message() for `gate`: why a run or diagnosis that fails it exits 3.
std::string failed_gate_message(const Diagnosis& diagnosis, const Gate& gate);

}  // namespace mptrain::monitor
