// Readers of the kernel's per-task and machine-wide accounting in /proc:
// pure parsers over a file's text, and readers that take an FsRoot so tests
// read recorded trees. Processes and threads vanish while being read; a
// reader then returns an Error (ENOENT or ESRCH) that the sampler treats as
// "gone", never as a failure of the run.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/fs.hpp"
#include "util/result.hpp"
#include "util/task_stat.hpp"
#include "util/thread_variables.hpp"

namespace mptrain::monitor {

// /proc/PID/stat and its tasks' are read by util/task_stat.hpp, here under
// the monitor's names as before.
using mptrain::parse_task_stat;
using mptrain::read_process_stat;
using mptrain::TaskStat;

// /proc/PID/task/TID/schedstat: the scheduler's run-time accounting.
struct SchedStat {
  std::uint64_t on_cpu_ns = 0;  // field 1: time spent on a CPU
  std::uint64_t wait_ns = 0;    // field 2: time spent runnable on a run queue, waiting
  std::uint64_t timeslices = 0;
};

// /proc/PID/status (or a task's): the fields the monitor uses.
struct ProcStatus {
  std::string name;
  pid_t tgid = 0;  // the process a task belongs to (itself for a process; 0: not said)
  int threads = 0;
  std::string cpus_allowed_list;  // e.g. "0-1"
  std::uint64_t voluntary_switches = 0;
  std::uint64_t nonvoluntary_switches = 0;
};

// The thread-count variables found in /proc/PID/environ.
struct ThreadEnv {
  // The count each of thread_count_variables sets (same index); nullopt: unset or not a count.
  std::array<std::optional<int>, thread_count_variables.size()> counts;
  // What `mptrain run -- CMD` told the process (procmgr's worker environment): started by it
  // (MPTRAIN_CPUS), its workers (LOCAL_WORLD_SIZE), --children (the slices in MPTRAIN_PLACE_SLICES)
  // and --keep-program-threads (MPTRAIN_PLACE_KEEP=1).
  bool mptrain_launched = false;
  int mptrain_workers = 0;
  int mptrain_children = 0;
  bool mptrain_keep = false;
  // What a launcher gave the job (allocation_mismatch): Open MPI's ranks on this node
  // (OMPI_COMM_WORLD_LOCAL_SIZE) and whether it bound this rank at launch
  // (OMPI_MCA_orte_bound_at_launch=1); Slurm's CPUs per task (SLURM_CPUS_PER_TASK) and
  // those srun was told to give the step (SRUN_CPUS_PER_TASK); 0: not set.
  int ompi_local_size = 0;
  bool ompi_bound_at_launch = false;
  int slurm_cpus_per_task = 0;
  int srun_cpus_per_task = 0;
};

// One CPU's line of /proc/stat, in seconds.
struct CpuTimes {
  int cpu = -1;        // -1 for the "cpu" total line
  double busy_s = 0;   // user+nice+system+irq+softirq+steal
  double total_s = 0;  // busy + idle + iowait
};

// /proc/loadavg.
struct LoadAvg {
  double load1 = 0, load5 = 0, load15 = 0;
  int runnable = 0;  // currently runnable scheduling entities
  int tasks = 0;     // existing scheduling entities
};

// The "some" line of /proc/pressure/cpu.
struct CpuPressure {
  double some_avg10 = 0;            // percent of the last 10 s some task waited for a CPU
  std::uint64_t some_total_us = 0;  // cumulative microseconds some task waited
};

// Parses a schedstat line; an Error when malformed.
Result<SchedStat> parse_schedstat(std::string_view text);
// Parses a status file, leaving fields it lacks at their defaults; never fails.
ProcStatus parse_status(std::string_view text);
// Extracts the thread-count variables from NUL-separated environ text.
ThreadEnv parse_thread_env(std::string_view text);
// Parses NUL-separated cmdline text into a command line a shell takes back
// as the same words: each word shell-quoted where needed, joined with spaces.
std::string parse_cmdline(std::string_view text);
// Parses the per-CPU lines of /proc/stat (not the total) using `ticks_per_second`.
Result<std::vector<CpuTimes>> parse_proc_stat(std::string_view text, double ticks_per_second);
// Parses /proc/loadavg; an Error when malformed.
Result<LoadAvg> parse_loadavg(std::string_view text);
// Parses /proc/pressure/cpu; an Error when it has no "some" line.
Result<CpuPressure> parse_cpu_pressure(std::string_view text);

// The system's clock ticks per second (sysconf(_SC_CLK_TCK)).
double ticks_per_second();

// Reads /proc/PID/environ's thread variables; an Error when unreadable (e.g. another user's process).
Result<ThreadEnv> read_thread_env(const FsRoot& root, pid_t pid);
// /proc/PID/status parsed (PID may be a thread's id: /proc/TID exists though unlisted).
Result<ProcStatus> read_process_status(const FsRoot& root, pid_t pid);
// Reads /proc/PID/cmdline as a shell-quoted line (empty for kernel threads); an Error when gone.
Result<std::string> read_cmdline(const FsRoot& root, pid_t pid);
// The thread ids in /proc/PID/task; an Error when the process is gone.
Result<std::vector<pid_t>> list_tasks(const FsRoot& root, pid_t pid);
// The process ids in /proc (numeric names only); an Error when /proc cannot be listed.
Result<std::vector<pid_t>> list_processes(const FsRoot& root);

// A /proc file kept open and re-read with pread into a reused buffer, so
// periodic sampling costs one system call per read. The sampler reads
// every per-thread and machine-wide file this way and parses it with the
// parse_* functions above.
class ProcFile {
 public:
  ProcFile() = default;
  ProcFile(const ProcFile&) = delete;
  ProcFile& operator=(const ProcFile&) = delete;
  ProcFile(ProcFile&& other) noexcept;
  ProcFile& operator=(ProcFile&& other) noexcept;
  ~ProcFile();

  // Opens `absolute` under `root`; an Error naming the path otherwise.
  Status open(const FsRoot& root, std::string_view absolute);
  // The file's current content (valid until the next read); an Error when it can no longer be read.
  Result<std::string_view> read();
  bool is_open() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
  std::string path_;
  std::string buffer_;
};

}  // namespace mptrain::monitor
