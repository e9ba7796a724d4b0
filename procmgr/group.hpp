// Running a group of M worker processes: spawn each pinned to its CPUs,
// supervise, stop the group when one fails, forward signals, reap all.
// Used by the launcher (`run -- CMD`: workers exec a program) and by the
// built-in training (`run`: workers are forked and call a function).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "procmgr/output.hpp"
#include "util/cpu_set.hpp"
#include "util/failure.hpp"
#include "util/fs.hpp"
#include "util/pinning.hpp"
#include "util/result.hpp"

namespace mptrain::procmgr {

// How a process ended.
struct ExitStatus {
  enum class Kind { exited, signaled };
  Kind kind = Kind::exited;
  int code = 0;  // the exit code, or the signal number when signaled

  // True for an exit with code 0.
  bool success() const { return kind == Kind::exited && code == 0; }
  // The shell's view: the exit code, or 128 + signal.
  int shell_code() const { return kind == Kind::exited ? code : exit_code::of_signal(code); }
  // "exited with code 7" or "killed by SIGKILL".
  std::string describe() const;
};

// What happens when the kernel refuses a worker's memory policy.
enum class MemoryRefusal {
  warn,  // the worker runs anyway (a default binding; containers often forbid it)
  fail,  // the worker is not started (a policy the user asked for)
};

// Where a worker's memory comes from, set before it runs.
struct MemoryPolicy {
  MemoryMode mode = MemoryMode::bind;
  CpuSet nodes;  // NUMA nodes; empty: the parent's policy (the kernel's default allocates locally)
  MemoryRefusal refusal = MemoryRefusal::warn;
};

// The default policy of a worker whose CPUs sit in NUMA node `node` (-1:
// several or unknown) on a machine whose online nodes are `online`: bound to
// that node when the machine has several nodes, else the parent's.
MemoryPolicy node_memory_policy(int node, const CpuSet& online);

// "membind 0", "interleave 0-1" or "default" (the parent's policy).
std::string to_string(const MemoryPolicy& policy);

// One worker to start.
struct WorkerSpec {
  int rank = 0;
  CpuSet cpus;                   // pinned to these before it runs; empty: not pinned
  MemoryPolicy memory;           // applied before it runs
  std::vector<std::string> env;  // "NAME=value" set in the child on top of the parent's environment
  std::vector<int> inherit_fds;  // descriptors of mptrain's the child keeps across exec (close-on-exec
                                 // cleared in the child only), under the same numbers
  std::string name;              // how messages name it ("the command" for doctor -- CMD); empty: "rank N"
};

// How messages name `spec`'s worker: its name, or "rank N".
std::string worker_name(const WorkerSpec& spec);

// A program each worker execs (argv[0] searched in PATH).
struct Program {
  std::vector<std::string> argv;
};

// A function each forked worker calls instead of exec; its return value is
// the worker's exit code. It runs after pinning, with SIGINT/SIGTERM at
// their default dispositions unless it installs its own handlers.
using ChildFunction = std::function<int(const WorkerSpec&)>;

// Where workers' stdout and stderr go.
enum class Output {
  inherit,  // straight to mptrain's own stdout/stderr
  // To the console: whole lines (up to max_line_bytes), never interleaved
  // mid-line, each prefixed as GroupOptions says.
  tagged,
  // To files under GroupOptions::log_dir as its `redirects` and `tee` say,
  // the rest to the console as with `tagged`. The files hold the bytes as
  // written (no tag, no timestamp): rank-R.out and rank-R.err, or with
  // max_restarts > 0 attempt-A/rank-R.out and .err for each attempt A
  // (0, 1, ...) with rank-R.out and .err links to the latest attempt's
  // (LogLayout::per_attempt); each file is truncated when its attempt starts.
  // The directory is locked for the group's life (lock_log_dir), so a second
  // group cannot write there at the same time.
  log_dir,
};

// Whether console lines start with the worker's rank, "[RANK] ".
enum class RankTag { on, off };

// Where tagged worker stdout lines are written (`--json` keeps stdout for the report).
enum class TaggedStdout { to_stdout, to_stderr };

// What the workers read on stdin: /dev/null (several workers cannot share one input), or mptrain's own.
enum class Input { dev_null, inherit };

struct GroupResult;

// How the group is supervised.
struct GroupOptions {
  Output output = Output::inherit;
  // A temporary folder of the run's that the watchdog removes should mptrain
  // die unreaped (SIGKILL); "": none.
  std::string remove_on_death;
  // Variables of mptrain's environment the workers do not inherit (the MPI
  // launcher's own, which describe mptrain, not its workers).
  std::vector<std::string> unset;
  std::filesystem::path log_dir;           // for Output::log_dir
  std::chrono::milliseconds grace{10000};  // SIGTERM to SIGKILL when stopping the group
  int max_restarts = 0;                    // restarts of the whole group after a failure
  std::chrono::milliseconds tick{100};     // period of on_tick
  // Called in the parent every `tick` while workers run, with the live
  // workers' pids (index = rank; 0 for a worker already reaped). It runs on
  // the supervising thread, so it should return quickly (a sampler's step).
  // An exception it throws kills and reaps the workers, then propagates.
  std::function<void(const std::vector<pid_t>&)> on_tick;
  TaggedStdout tagged_stdout = TaggedStdout::to_stdout;  // for workers' stdout lines on the console
  Input input = Input::dev_null;                         // the workers' stdin
  RankTag rank_tag = RankTag::on;                        // for lines on the console
  int tag_offset = 0;  // added to the local rank in the tag: node rank x M across nodes, so "[R]" is global
  Timestamps timestamps = Timestamps::off;  // for lines on the console, before the rank tag
  // For Output::log_dir: the streams that go to their log file only, and
  // those that go to it and to the console (tee wins where both name one).
  StreamChoice redirects{Streams::all, {}};
  StreamChoice tee;
  // For Output::log_dir: where the files are; nullopt: flat, or per_attempt
  // when max_restarts > 0.
  std::optional<LogLayout> log_layout;
  // The ranks whose console lines are shown (torchrun's
  // --local-ranks-filter); empty: every rank's. Their log files are kept whole.
  std::vector<int> console_ranks;
  // Variables for worker `rank` in restart attempt `restart`, on top of its
  // spec's (torchrun's per-attempt error file); called in the parent before it starts.
  std::function<std::vector<std::string>(int rank, int restart)> attempt_env;
  // Called in the parent before a restart with the failed attempt's result
  // and the number of the restart about to be made (1 for the first).
  std::function<void(const GroupResult&, int)> on_restart;
  // What a signal mptrain receives while the group runs does (see
  // signals.hpp for those caught): one of `pass_on` is forwarded to every
  // worker and the group goes on (schedulers such as Slurm send SIGUSR1
  // before a job's time runs out); one of `notify` calls `on_signal` in the
  // parent (on the supervising thread) and no worker is signalled; any other
  // is a stop: forwarded as `stop_with` (0: the signal received), SIGKILL
  // after `grace`, no restart.
  std::vector<int> pass_on{SIGUSR1, SIGUSR2};
  std::vector<int> notify;
  std::function<void(int)> on_signal;
  int stop_with = 0;
  // For a group of function workers: called in each worker, after the
  // parent's handlers were reset and before any signal can be delivered
  // (every signal stays blocked from fork until it returns), to install the
  // worker's own handlers; a stop forwarded at once then reaches them
  // instead of killing a worker still starting. Async-signal-safe calls only
  // (sigaction): the parent may have other threads. Not used for programs.
  void (*worker_signals)() = nullptr;
  // False where the workers start no processes of their own (the built-in
  // trainer's): no run cgroup is made, since there is nothing for it to hold
  // that the workers' process group and death signal do not already end,
  // and joining one costs each run a wait for an RCU grace period (the
  // kernel's cgroup migration lock; 15-20 ms on a quiet machine).
  bool workers_start_processes = true;
};

// How one worker ended.
struct WorkerResult {
  int rank = 0;
  pid_t pid = 0;
  ExitStatus status;
  double wall_seconds = 0;
  double cpu_seconds = 0;   // user + system time of the worker and its reaped children
  std::string stderr_tail;  // last lines of its stderr in its attempt (tagged and log_dir output)
  bool stopped = false;     // still running when another worker's failure stopped the group
};

// How the whole group ended (the last attempt when restarted).
struct GroupResult {
  std::vector<WorkerResult> workers;  // index = rank
  std::optional<int> failed_rank;     // the first worker that failed, if any
  int restarts = 0;                   // restarts that were made
  int forwarded_signal = 0;           // a stop signal mptrain received and forwarded (0: none)
  std::vector<int> passed_on;         // the GroupOptions::pass_on signals forwarded, in order
  std::vector<std::string> warnings;  // non-fatal problems (e.g. memory binding refused by the kernel)
  // Workers' output that could not be written to the console or a log file
  // (a full disk, a closed pipe), in every attempt; the workers ran on.
  std::vector<OutputLoss> output_losses;

  // 0 when every worker succeeded; the first failing worker's shell code otherwise.
  int exit_code() const;
};

// The warning for processes `pids` that SIGKILL did not end: each one's
// state from /proc under `root` ("1234 (state D)"), why state D resists,
// and the ps command that shows where each one waits.
std::string unkilled_warning(const std::vector<pid_t>& pids, const FsRoot& root);

// The name of signal `signal` ("SIGKILL"), or "signal N" for one without a name.
std::string signal_name(int signal);

// Starts one worker per spec running `program` and supervises them until all
// have ended (see GroupOptions). Each worker runs in the group's own process
// group with stdin from /dev/null, dies with mptrain (PR_SET_PDEATHSIG), and
// gets attempt_environment(K) (K = restarts made so far, environment.hpp) on
// top of its spec's environment. Signals sent to mptrain meanwhile are
// forwarded to the group's process group as GroupOptions says (after a stop
// signal SIGKILL follows after `grace`; no restart then).
// Returns an Error when a worker cannot be started at all (command not found,
// not executable, log file not writable, log directory in use by another
// run, pinning refused: the message says so);
// workers already started are then killed and reaped.
Result<GroupResult> run_group(const std::vector<WorkerSpec>& specs, const Program& program,
                              const GroupOptions& options);

// As above, but each worker is a forked child (no exec) calling `function`;
// the parent's stdio is flushed before forking and the child's after
// `function` returns, then it ends with _exit(return value) (an exception
// escaping `function` is printed and gives exit code 1).
Result<GroupResult> run_group(const std::vector<WorkerSpec>& specs, const ChildFunction& function,
                              const GroupOptions& options);

}  // namespace mptrain::procmgr
