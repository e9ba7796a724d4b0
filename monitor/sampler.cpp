// Linux sampler over /proc (see sampler.hpp).
#include "monitor/sampler.hpp"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "util/cgroup.hpp"
#include "util/fd.hpp"

namespace mptrain::monitor {

namespace {

// The open files of one thread.
struct TaskFiles {
  ProcFile stat;
  ProcFile schedstat;
  ProcFile status;
  ThreadSample last;  // the last full reading (status fields reused between status reads)
};

// The descriptors `files` holds open.
std::size_t open_count(const TaskFiles& files) {
  return std::size_t{files.stat.is_open()} + files.schedstat.is_open() + files.status.is_open();
}

// What is known about one watched process.
struct ProcessState {
  ProcessSample info;         // identity fields (comm, cmdline, env, cgroup, runtimes); threads unused
  int runtimes_read_at = -1;  // its thread count when its maps were last read (-1: not since it exec'd)
  ProcFile stat;
  ProcFile whole_stat;               // /proc/PID/stat: the CPU time of every thread, exited ones included
  std::map<pid_t, TaskFiles> tasks;  // its threads by tid, as last listed
};

// Which of a process's known threads sample_threads reads.
enum class Threads { all, unsampled };

// The fds the program keeps for itself: 1,024 (what a process gets by
// default), or three quarters of a soft limit that is not much larger.
constexpr std::size_t program_fds = 1024;

// The fds all samplers in this process keep open, counted against one budget.
std::atomic<std::size_t> process_kept_fds{0};

// The fds the samplers of this process may keep open together. Over the real /proc the soft limit is
// first raised to the hard limit (children get it back: procmgr/spawn), so
// that even 5,000 threads' files stay open instead of being opened by path
// at every sample, which costs several times more.
std::size_t fd_budget(const FsRoot& root) {
  rlimit limit{};
  const std::uint64_t soft = root.is_real()                            ? raise_open_file_limit()
                             : ::getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur
                                                                       : RLIM_INFINITY;
  if (soft == RLIM_INFINITY) return 4096;
  return static_cast<std::size_t>(soft) - std::min(static_cast<std::size_t>(soft) * 3 / 4, program_fds);
}

std::string task_dir(pid_t pid, pid_t tid) { return "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid); }

}  // namespace

struct Sampler::State {
  FsRoot root;
  Scope scope;
  SamplerOptions options;
  std::vector<pid_t> roots;
  std::map<pid_t, ProcessState> processes;      // watched, by pid
  std::unordered_map<pid_t, pid_t> parents;     // every process's parent, read when it appeared (trees scope)
  std::optional<CgroupLocator> locator;         // nullopt: this process's mount table is unreadable
  std::map<std::string, CgroupSample> cgroups;  // the CPU cgroups to read (counters unset), by key
  ProcFile proc_stat, loadavg, pressure;
  std::size_t budget = 0;
  std::size_t open_fds = 0;  // this sampler's share of process_kept_fds
  long samples = 0;
  bool pressure_absent = false;

  // Reads a file kept open in `file` (opening it first at `path()`), or by path when the fd budget is spent.
  template <class Path>
  Result<std::string_view> read_kept(ProcFile& file, const Path& path, std::string& scratch);
  void discover();
  void discover_trees(const std::vector<pid_t>& all);
  // Reads the identity of `info.pid`: command line, thread variables, CPU cgroup.
  void identify(ProcessSample& info);
  // Re-reads the runtimes `pid` maps when it runs more `threads` than when they were last read.
  void refresh_runtimes(pid_t pid, ProcessState& process, int threads);
  void watch(pid_t pid);
  ~State() { process_kept_fds -= open_fds; }
  // Returns `count` descriptors that were closed to the budget.
  void release(std::size_t count) {
    open_fds -= count;
    process_kept_fds -= count;
  }
  // Returns the descriptors of a thread (or of a whole process) that is gone to the budget.
  void forget(const TaskFiles& files) { release(open_count(files)); }
  void forget(const ProcessState& process);
  bool sample_process(pid_t pid, ProcessState& process, ProcessSample& out);
  bool list_threads(pid_t pid, ProcessState& process);
  bool sample_threads(pid_t pid, ProcessState& process, Threads which, std::vector<ThreadSample>& out);
  bool sample_task(pid_t pid, pid_t tid, TaskFiles& files, ThreadSample& out);
  void sample_machine(MachineSample& out);
};

Sampler::Sampler(FsRoot root, Scope scope, std::vector<pid_t> pids, SamplerOptions options)
    : state_(std::make_unique<State>()) {
  state_->root = std::move(root);
  state_->scope = scope;
  state_->options = options;
  state_->budget = fd_budget(state_->root);
  if (auto locator = CgroupLocator::open(state_->root); locator.ok()) state_->locator = std::move(*locator);
  set_roots(std::move(pids));
}

Sampler::~Sampler() = default;

void Sampler::set_roots(std::vector<pid_t> pids) {
  state_->roots = std::move(pids);
  std::erase(state_->roots, 0);
}

bool Sampler::all_gone() const { return state_->samples > 0 && state_->processes.empty(); }

template <class Path>
Result<std::string_view> Sampler::State::read_kept(ProcFile& file, const Path& path, std::string& scratch) {
  if (file.is_open()) return file.read();
  if (process_kept_fds < budget) {
    if (auto opened = file.open(root, path()); !opened.ok()) return opened.error();
    ++open_fds;
    ++process_kept_fds;
    return file.read();
  }
  auto text = root.read(path());
  if (!text.ok()) return text.error();
  scratch = std::move(*text);
  return std::string_view(scratch);
}

void Sampler::State::identify(ProcessSample& info) {
  // The comm first: a process that execs after it was read is identified again at its next sample (the
  // comm differs), so a forked child seen before its exec (mpirun's rank) never keeps its parent's environ.
  if (auto stat = read_process_stat(root, info.pid); stat.ok()) info.comm = stat->comm;
  info.cmdline = read_cmdline(root, info.pid).value_or("");
  info.env = read_thread_env(root, info.pid).value_or(ThreadEnv{});
  info.cgroup.clear();
  if (!locator) return;
  auto location = locator->locate(info.pid, "cpu");
  if (!location.ok() || !*location) return;
  info.cgroup = (*location)->key();
  for (const CgroupLevel& level : (*location)->levels) {
    // The root of a hierarchy has no quota, so it is never throttled.
    const std::string key = (*location)->key_of(level);
    if (level.path != "/") cgroups.emplace(key, CgroupSample{key, (*location)->version, level.path, level.dir, {}, {}});
  }
}

void Sampler::State::forget(const ProcessState& process) {
  for (const auto& [tid, files] : process.tasks) forget(files);
  release(std::size_t{process.stat.is_open()} + process.whole_stat.is_open());
}

void Sampler::State::watch(pid_t pid) {
  if (processes.contains(pid)) return;
  ProcessState process;
  process.info.pid = pid;
  identify(process.info);
  processes.emplace(pid, std::move(process));
}

void Sampler::State::discover_trees(const std::vector<pid_t>& all) {
  // A process's parent is read once, when its pid first appears: children
  // appear as new pids, so each scan costs one read per new process only.
  std::unordered_map<pid_t, pid_t> current;
  current.reserve(all.size());
  for (const pid_t pid : all) {
    auto known = parents.find(pid);
    if (known != parents.end()) {
      current.emplace(pid, known->second);
      continue;
    }
    auto stat = read_process_stat(root, pid);
    if (stat.ok()) current.emplace(pid, stat->ppid);
  }
  parents = std::move(current);
  std::unordered_map<pid_t, std::vector<pid_t>> children;
  for (const auto& [pid, ppid] : parents) children[ppid].push_back(pid);
  std::vector<pid_t> pending(roots);
  for (const auto& entry : processes) pending.push_back(entry.first);
  // The sampler's own process is no part of a tree it watches (`doctor --pid $$` from a shell).
  std::unordered_set<pid_t> visited{root.is_real() ? ::getpid() : 0};
  while (!pending.empty()) {
    const pid_t pid = pending.back();
    pending.pop_back();
    if (!parents.contains(pid) || !visited.insert(pid).second) continue;
    watch(pid);
    if (auto it = children.find(pid); it != children.end())
      pending.insert(pending.end(), it->second.begin(), it->second.end());
  }
}

void Sampler::State::discover() {
  if (scope == Scope::processes) {
    for (const pid_t pid : roots) {
      std::error_code ec;
      if (std::filesystem::exists(root.path("/proc/" + std::to_string(pid)), ec)) watch(pid);
    }
    return;
  }
  auto all = list_processes(root);
  if (!all.ok()) return;
  if (scope == Scope::trees) return discover_trees(*all);
  const pid_t self = root.is_real() ? ::getpid() : 0;
  for (const pid_t pid : *all) {
    if (pid != self) watch(pid);
  }
}

bool Sampler::State::sample_task(pid_t pid, pid_t tid, TaskFiles& files, ThreadSample& out) {
  auto path = [pid, tid](const char* name) { return [=] { return task_dir(pid, tid) + "/" + name; }; };
  std::string scratch;
  auto sched_text = read_kept(files.schedstat, path("schedstat"), scratch);
  if (!sched_text.ok()) return false;
  auto sched = parse_schedstat(*sched_text);
  if (!sched.ok()) return false;
  ThreadSample& last = files.last;
  // A thread whose counters did not move has not run: its stat and status are unchanged too (SamplerOptions).
  const bool ran = last.tid != tid || sched->on_cpu_ns != last.on_cpu_ns || sched->wait_ns != last.wait_ns ||
                   sched->timeslices != last.timeslices;
  if (ran) {
    auto stat_text = read_kept(files.stat, path("stat"), scratch);
    if (!stat_text.ok()) return false;
    auto stat = parse_task_stat(*stat_text);
    if (!stat.ok()) return false;
    last.comm = std::move(stat->comm);
    last.state = stat->state;
    last.last_cpu = stat->last_cpu;
  }
  last.tid = tid;
  last.on_cpu_ns = sched->on_cpu_ns;
  last.wait_ns = sched->wait_ns;
  last.timeslices = sched->timeslices;
  if (ran) {
    auto status_text = read_kept(files.status, path("status"), scratch);
    if (!status_text.ok()) return false;
    const ProcStatus status = parse_status(*status_text);
    last.voluntary_switches = status.voluntary_switches;
    last.nonvoluntary_switches = status.nonvoluntary_switches;
    last.cpus_allowed = status.cpus_allowed_list;
  }
  out = last;
  return true;
}

// Lists /proc/PID/task: threads that are gone are forgotten, new ones added
// unsampled. False when the process is gone.
bool Sampler::State::list_threads(pid_t pid, ProcessState& process) {
  auto tids = list_tasks(root, pid);
  if (!tids.ok()) return false;
  const std::unordered_set<pid_t> listed(tids->begin(), tids->end());
  std::erase_if(process.tasks, [&](auto& entry) {
    const bool gone = !listed.contains(entry.first);
    if (gone) forget(entry.second);
    return gone;
  });
  for (const pid_t tid : *tids) process.tasks.try_emplace(tid);
  return true;
}

// Samples `which` of the known threads of `process` into `out`, forgetting
// those that could not be read (gone); false when one could not.
bool Sampler::State::sample_threads(pid_t pid, ProcessState& process, Threads which, std::vector<ThreadSample>& out) {
  bool complete = true;
  for (auto it = process.tasks.begin(); it != process.tasks.end();) {
    ThreadSample thread;
    if (which == Threads::unsampled && it->second.last.tid != 0) {
      ++it;
    } else if (sample_task(pid, it->first, it->second, thread)) {
      out.push_back(std::move(thread));
      ++it;
    } else {
      forget(it->second);
      it = process.tasks.erase(it);
      complete = false;
    }
  }
  return complete;
}

void Sampler::State::refresh_runtimes(pid_t pid, ProcessState& process, int threads) {
  // Runtimes are loaded before the pools they start, so a process is
  // re-read only when it has more threads than at the last reading.
  if (threads <= process.runtimes_read_at) return;
  process.runtimes_read_at = threads;
  process.info.runtimes = read_runtimes(root, pid).value_or(std::vector<Runtime>{});
}

bool Sampler::State::sample_process(pid_t pid, ProcessState& process, ProcessSample& out) {
  std::string scratch;
  // The leader thread's stat has the fields used here (comm, state, parent,
  // the process's thread count) without /proc/PID/stat's sum of every
  // thread's CPU time, which costs as much as the rest for 5,000 threads.
  auto text = read_kept(
      process.stat, [pid] { return task_dir(pid, pid) + "/stat"; }, scratch);
  if (!text.ok()) return false;
  auto stat = parse_task_stat(*text);
  if (!stat.ok()) return false;
  if (process.info.ppid != stat->ppid || process.info.parent_cmdline.empty()) {
    // Read once per parent: the fix for one program's workers names it even when it is not watched.
    process.info.parent_cmdline = read_cmdline(root, stat->ppid).value_or("");
  }
  process.info.ppid = stat->ppid;
  if (!process.info.comm.empty() && process.info.comm != stat->comm) {  // it exec'd
    identify(process.info);
    process.runtimes_read_at = -1;
  }
  process.info.comm = stat->comm;
  refresh_runtimes(pid, process, stat->num_threads);
  out = process.info;
  // The process's own CPU time counts the threads that came and went between
  // two samples (a BLAS starting its threads inside each call, joblib's per-fit
  // threads), which no task directory shows.
  if (auto whole = read_kept(
          process.whole_stat, [pid] { return "/proc/" + std::to_string(pid) + "/stat"; }, scratch);
      whole.ok()) {
    if (auto parsed = parse_task_stat(*whole); parsed.ok()) {
      out.cpu_s = static_cast<double>(parsed->utime_ticks + parsed->stime_ticks) / ticks_per_second();
    }
  }
  out.threads.clear();
  out.threads.reserve(static_cast<std::size_t>(stat->num_threads));
  // The task directory is listed only when the thread count in the stat
  // just read differs from the known threads', or when a known thread is
  // gone (another may have taken its place): listing it costs more than
  // reading 5,000 kept-open schedstat files.
  const bool listed = process.tasks.size() != static_cast<std::size_t>(stat->num_threads);
  if (listed && !list_threads(pid, process)) return false;
  if (!sample_threads(pid, process, Threads::all, out.threads) && !listed) {
    if (!list_threads(pid, process)) return false;
    sample_threads(pid, process, Threads::unsampled, out.threads);
  }
  return !out.threads.empty() || stat->state == 'Z';
}

void Sampler::State::sample_machine(MachineSample& out) {
  std::string scratch;
  if (auto text = read_kept(
          proc_stat, [] { return std::string("/proc/stat"); }, scratch);
      text.ok()) {
    out.cpus = parse_proc_stat(*text, ticks_per_second()).value_or(std::vector<CpuTimes>{});
  }
  if (auto text = read_kept(
          loadavg, [] { return std::string("/proc/loadavg"); }, scratch);
      text.ok()) {
    if (auto load = parse_loadavg(*text); load.ok()) out.load = *load;
  }
  if (!pressure_absent) {
    auto text = read_kept(
        pressure, [] { return std::string("/proc/pressure/cpu"); }, scratch);
    auto parsed = text.ok() ? parse_cpu_pressure(*text) : Result<CpuPressure>(text.error());
    if (parsed.ok()) out.pressure = *parsed;
    pressure_absent = !parsed.ok();
  }
  for (const auto& [key, group] : cgroups) {
    auto stat = read_cpu_stat(root, group.dir);
    if (!stat.ok()) continue;
    CgroupSample& sample = out.cgroups.emplace_back(group);
    sample.stat = *stat;
    sample.quota = read_cpu_quota(root, group.version, group.dir).value_or(CpuQuota{});
  }
}

Snapshot Sampler::sample() {
  State& s = *state_;
  s.discover();
  Snapshot snapshot;
  const double start = monotonic_seconds();
  snapshot.processes.reserve(s.processes.size());
  for (auto it = s.processes.begin(); it != s.processes.end();) {
    ProcessSample process;
    if (s.sample_process(it->first, it->second, process)) {
      snapshot.processes.push_back(std::move(process));
      ++it;
    } else {
      s.forget(it->second);
      it = s.processes.erase(it);
    }
  }
  snapshot.time_s = (start + monotonic_seconds()) / 2;
  s.sample_machine(snapshot.machine);
  ++s.samples;
  return snapshot;
}

double monotonic_seconds() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace mptrain::monitor
