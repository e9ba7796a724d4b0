// The group supervisor: spawn every worker, then one poll() loop reads their
// output, reaps them, forwards signals, stops the group on the first failure
// and calls on_tick; restarts the whole group when asked to.
#include "procmgr/group.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "procmgr/descendants.hpp"
#include "procmgr/environment.hpp"
#include "procmgr/output.hpp"
#include "procmgr/run_cgroup.hpp"
#include "procmgr/signals.hpp"
#include "procmgr/spawn.hpp"
#include "procmgr/watchdog.hpp"
#include "util/console.hpp"
#include "util/fd.hpp"
#include "util/fs.hpp"
#include "util/pinning.hpp"
#include "util/task_stat.hpp"
#include "util/text.hpp"

namespace mptrain::procmgr {

namespace {

// `error`, met while trying to `what` ("start rank 1 (python3)") in a group
// of `workers`: when a resource limit caused it (open files, EMFILE; this
// user's processes, EAGAIN from fork), a message naming the limit, its
// value and what to do (fewer workers only where there are several).
Error limit_error(const Error& error, std::string_view what, int workers) {
  const std::string fewer = workers > 1 ? ", or start fewer workers" : "";
  rlimit limit{};
  if (error.code == EMFILE || error.code == ENFILE) {
    return Error{fmt::format("cannot {}: too many open files ({}); raise the limit (ulimit -n){}", what,
                             open_files_limit(error.code), fewer),
                 error.code};
  }
  if (error.code == EAGAIN) {
    const std::string which = ::getrlimit(RLIMIT_NPROC, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
                                  ? fmt::format("this user's limit on processes is {}", limit.rlim_cur)
                                  : std::string("the system's limit on processes or threads is reached");
    return Error{
        fmt::format("cannot {}: no more processes may start ({}); raise the limit (ulimit -u){}", what, which, fewer),
        error.code};
  }
  return error;
}

using Clock = std::chrono::steady_clock;

// One piped output stream of a worker, read by the parent.
struct Stream {
  UniqueFd fd;  // read end; invalid when not piped or after EOF
  Streams kind = Streams::out;
  LineTagger tagger{""};
  OutputSink console;  // where its whole, prefixed lines go; invalid: not to the console
  OutputSink file;     // where its bytes are copied as they come; invalid: no log file
  TailBuffer* tail = nullptr;
};

// A worker of the current attempt.
struct Worker {
  const WorkerSpec* spec = nullptr;
  WorkerResult result;
  bool running = false;
  Clock::time_point started;
  Stream out;
  Stream err;
  TailBuffer tail;
};

double seconds(std::chrono::nanoseconds duration) { return std::chrono::duration<double>(duration).count(); }

double cpu_seconds(const rusage& usage) {
  auto to_seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return to_seconds(usage.ru_utime) + to_seconds(usage.ru_stime);
}

// Where stream `stream` of rank `rank` goes under `options`.
Destination destination_of(const GroupOptions& options, int rank, Streams stream) {
  if (options.output != Output::log_dir) return Destination::console;
  return destination(options.redirects, options.tee, rank, stream);
}

// The streams of rank `rank` that go to a log file under `options`.
Streams logged_streams(const GroupOptions& options, int rank) {
  const bool out = destination_of(options, rank, Streams::out) != Destination::console;
  const bool err = destination_of(options, rank, Streams::err) != Destination::console;
  if (out && err) return Streams::all;
  if (out) return Streams::out;
  return err ? Streams::err : Streams::none;
}

// Runs one attempt of the group and the restarts after it.
class Supervisor {
 public:
  Supervisor(const std::vector<WorkerSpec>& specs, const ChildTarget& target, const GroupOptions& options)
      : specs_(specs), target_(target), options_(options) {
    // mptrain's own lines end a worker's progress bar left mid-line first.
    previous_line_hook_ = set_console_line_hook([this] { end_open_lines(nullptr); });
  }
  ~Supervisor() {
    set_console_line_hook(std::move(previous_line_hook_));
    if (subreaper_) (void)set_subreaper(false);
  }
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  Result<GroupResult> run();

 private:
  Status prepare();
  Status open_attempt_logs(int restart);
  Result<GroupResult> run_attempt(int restart);
  Status spawn_all(int restart);
  Status spawn_one(Worker& worker, int restart);
  Status pipe_stream(Worker& worker, Streams kind, int& child_end_out, UniqueFd& child_end);
  void supervise();
  void poll_once(int timeout_ms);
  void handle_signals();
  void read_stream(Stream& stream, std::size_t limit);
  void route(Stream& stream, std::string_view data);
  // Ends the console line a worker's progress bar left open (all but `except`'s) with a newline.
  void end_open_lines(const Stream* except);
  void finish_stream(Stream& stream);
  void reap_exited();
  void record_exit(Worker& worker, int wait_status, const rusage& usage);
  void stop_group(int signal);
  void signal_group(int signal);
  std::vector<pid_t> leftovers() const;
  void track_escaped(Clock::time_point now);
  void end_leftovers();
  void drain_streams();
  void abandon_attempt();
  void note_output_problems(const Worker& worker);
  int poll_timeout(Clock::time_point now) const;
  void tick(Clock::time_point now);
  GroupResult collect(int restart);

  const std::vector<WorkerSpec>& specs_;
  const ChildTarget& target_;
  const GroupOptions& options_;
  std::unique_ptr<SignalRelay> relay_;
  bool subreaper_ = false;                 // this process reaps the workers' orphaned descendants
  std::optional<RunCgroup> cgroup_;        // the run's cgroup, where one could be made
  std::optional<GroupWatchdog> watchdog_;  // kills the workers' group and cgroup should mptrain die unreaped
  std::vector<std::string> base_environment_;
  UniqueFd log_lock_;           // held while the group runs (Output::log_dir)
  std::vector<RankLogs> logs_;  // the current attempt's log files, index = worker (Output::log_dir)
  UniqueFd dev_null_;
  std::vector<std::string> warnings_;
  std::vector<OutputLoss> output_losses_;  // of every attempt

  // The current attempt.
  std::vector<Worker> workers_;
  std::vector<UniqueFd> reports_;  // start-report pipes, index = worker
  pid_t process_group_ = 0;
  std::optional<int> failed_rank_;
  int forwarded_signal_ = 0;
  std::vector<int> passed_on_;
  std::function<void()> previous_line_hook_;
  std::optional<Clock::time_point> kill_at_;
  bool killed_ = false;
  bool ending_leftovers_ = false;  // in end_leftovers(): a stop signal kills what is left at once
  Clock::time_point next_escape_scan_;
  std::vector<Descendant> escaped_;  // what the watchdog was last told had left the workers' group
  Clock::time_point next_tick_;
};

Status Supervisor::prepare() {
  std::fflush(nullptr);  // a forked child must not flush the parent's buffered output again
  auto relay = SignalRelay::install();
  if (!relay.ok()) return relay.error();
  relay_ = std::move(*relay);
  // Ctrl-Z stops the workers with mptrain, and fg or bg continues them: they are in a process group of
  // their own, which the terminal's signals do not reach.
  relay_->on_job_control([this](int signal) { signal_group(signal); });
  // Every descendant of a worker stays below mptrain (orphans come back to
  // it) and, where a cgroup can be made, in the run's cgroup (setsid too).
  if (auto status = set_subreaper(true); !status.ok()) return status.error();
  subreaper_ = true;
  auto choice = run_cgroup_choice_from_env();
  if (!choice.ok()) return choice.error();
  if (!options_.workers_start_processes) *choice = RunCgroupChoice::off;
  // The watchdog first, knowing where the cgroup will be: a mptrain killed
  // while making it leaves none behind.
  auto watchdog = GroupWatchdog::start(RunCgroup::planned(*choice), options_.remove_on_death);
  if (!watchdog.ok()) return limit_error(watchdog.error(), "start the watchdog", static_cast<int>(workers_.size()));
  auto made = RunCgroup::create(*choice);
  if (made.ok()) {
    cgroup_.emplace(std::move(made).value());
  } else if (*choice == RunCgroupChoice::v1 || *choice == RunCgroupChoice::v2) {
    // Asked for by name, so not made quietly: say what the run goes without.
    warnings_.push_back(fmt::format(
        "MPTRAIN_RUN_CGROUP={}: cannot make a cgroup for this run ({}); it runs without one, so processes "
        "that call setsid may outlive it; run mptrain where it may create cgroups (as root, or in a delegated "
        "one), or set MPTRAIN_RUN_CGROUP=auto or off to go without one quietly",
        *choice == RunCgroupChoice::v1 ? "v1" : "v2", made.error().message));
  }
  watchdog_.emplace(std::move(*watchdog));
  dev_null_.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!dev_null_.valid()) {
    return limit_error(errno_error("cannot open", "/dev/null"), "open /dev/null", static_cast<int>(workers_.size()));
  }
  base_environment_ = without_variables(current_environment(), options_.unset);
  if (options_.output == Output::log_dir) {
    auto lock = lock_log_dir(options_.log_dir);  // before any worker starts: another run may be writing there
    if (!lock.ok()) return lock.error();
    log_lock_ = std::move(*lock);
  }
  return ok_status();
}

Result<GroupResult> Supervisor::run() {
  if (specs_.empty()) return Error{"no workers to start"};
  if (auto status = prepare(); !status.ok()) return status.error();
  for (int restart = 0;; ++restart) {
    auto result = run_attempt(restart);
    if (!result.ok()) return result;
    const bool retry = result->failed_rank && result->forwarded_signal == 0 && restart < options_.max_restarts;
    if (!retry) return result;
    if (options_.on_restart) options_.on_restart(*result, restart + 1);
  }
}

Status Supervisor::open_attempt_logs(int restart) {
  logs_.clear();
  if (options_.output != Output::log_dir) return ok_status();
  std::vector<LoggedStreams> logged;
  for (const auto& spec : specs_) logged.push_back({spec.rank, logged_streams(options_, spec.rank)});
  const auto layout =
      options_.log_layout.value_or(options_.max_restarts > 0 ? LogLayout::per_attempt : LogLayout::flat);
  auto logs = open_logs(options_.log_dir, layout, restart, logged);
  if (!logs.ok()) return logs.error();
  logs_ = std::move(*logs);
  return ok_status();
}

Result<GroupResult> Supervisor::run_attempt(int restart) {
  // Each attempt writes its own log files, opened before any of its workers starts.
  if (auto status = open_attempt_logs(restart); !status.ok()) return status.error();
  workers_.clear();
  workers_.resize(specs_.size());
  reports_.clear();
  process_group_ = 0;
  failed_rank_.reset();
  forwarded_signal_ = 0;
  passed_on_.clear();
  kill_at_.reset();
  killed_ = false;
  if (auto status = spawn_all(restart); !status.ok()) {
    abandon_attempt();
    return status.error();
  }
  try {
    supervise();
  } catch (...) {  // e.g. from on_tick: leave no worker behind
    abandon_attempt();
    throw;
  }
  end_leftovers();
  drain_streams();
  return collect(restart);
}

Status Supervisor::spawn_all(int restart) {
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    workers_[i].spec = &specs_[i];
    if (auto status = spawn_one(workers_[i], restart); !status.ok()) return status;
  }
  // Wait for the start reports only now, so the workers exec in parallel.
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    StartedChild child{workers_[i].result.pid, std::move(reports_[i])};
    auto started = await_start(child, target_, *workers_[i].spec, warnings_);
    if (!started.ok()) return started;
  }
  return ok_status();
}

// Pipes stream `kind` (out or err) of `worker` to where the options send
// it; stderr also feeds the worker's tail, wherever it goes.
Status Supervisor::pipe_stream(Worker& worker, Streams kind, int& child_end_out, UniqueFd& child_end) {
  auto pipe = make_pipe(PipeMode::nonblocking_read);
  if (!pipe.ok()) return pipe.error();
  const int rank = worker.spec->rank;
  const auto index = static_cast<std::size_t>(&worker - workers_.data());
  const auto where = destination_of(options_, rank, kind);
  const bool is_out = kind == Streams::out;
  Stream& stream = is_out ? worker.out : worker.err;
  const int console = !is_out || options_.tagged_stdout == TaggedStdout::to_stderr ? 2 : 1;
  stream.fd = std::move(pipe->read);
  stream.kind = kind;
  const bool shown =
      options_.console_ranks.empty() ||
      std::find(options_.console_ranks.begin(), options_.console_ranks.end(), rank) != options_.console_ranks.end();
  stream.console = where == Destination::file || !shown
                       ? OutputSink()
                       : OutputSink(console, fmt::format("/dev/std{}", console == 1 ? "out" : "err"));
  if (where != Destination::console) {
    const auto& logs = logs_[index];
    stream.file = OutputSink((is_out ? logs.out : logs.err).get(), (is_out ? logs.out_path : logs.err_path).string());
  }
  stream.tail = is_out ? nullptr : &worker.tail;
  stream.tagger = LineTagger(options_.rank_tag == RankTag::on ? fmt::format("[{}] ", options_.tag_offset + rank) : "",
                             options_.timestamps);
  child_end = std::move(pipe->write);
  child_end_out = child_end.get();
  return ok_status();
}

Status Supervisor::spawn_one(Worker& worker, int restart) {
  const auto& spec = *worker.spec;
  worker.result.rank = spec.rank;
  ChildSetup setup;
  setup.spec = &spec;
  auto overrides = spec.env;
  for (auto& entry : attempt_environment(restart)) overrides.push_back(std::move(entry));
  if (options_.attempt_env) {
    for (auto& entry : options_.attempt_env(spec.rank, restart)) overrides.push_back(std::move(entry));
  }
  setup.environment = merge_environment(base_environment_, overrides);
  setup.streams.in = options_.input == Input::inherit ? -1 : dev_null_.get();
  setup.process_group = process_group_;
  if (target_.function != nullptr) setup.install_handlers = options_.worker_signals;
  if (cgroup_) {
    setup.cgroup_join_fd = cgroup_->join_fd();
    setup.close_fds.push_back(cgroup_->join_fd());
  }
  UniqueFd child_out, child_err;
  if (options_.output != Output::inherit) {
    if (auto s = pipe_stream(worker, Streams::out, setup.streams.out, child_out); !s.ok()) {
      return limit_error(s.error(), fmt::format("create a pipe for {}'s output", worker_name(spec)),
                         static_cast<int>(workers_.size()));
    }
    if (auto s = pipe_stream(worker, Streams::err, setup.streams.err, child_err); !s.ok()) {
      return limit_error(s.error(), fmt::format("create a pipe for {}'s output", worker_name(spec)),
                         static_cast<int>(workers_.size()));
    }
  }
  // A function child keeps inherited descriptors; close the parent's ends of every pipe.
  for (const auto& other : workers_) {
    if (other.out.fd.valid()) setup.close_fds.push_back(other.out.fd.get());
    if (other.err.fd.valid()) setup.close_fds.push_back(other.err.fd.get());
  }
  for (const auto& report : reports_) setup.close_fds.push_back(report.get());
  if (log_lock_.valid()) setup.close_fds.push_back(log_lock_.get());
  auto child = start_child(target_, setup);
  if (!child.ok()) {
    const std::string program = target_.function != nullptr || target_.argv.empty()
                                    ? std::string()
                                    : fmt::format(" ({})", printable(target_.argv.front()));
    return limit_error(child.error(), fmt::format("start {}{}", worker_name(spec), program),
                       static_cast<int>(workers_.size()));
  }
  worker.result.pid = child->pid;
  worker.running = true;
  worker.started = Clock::now();
  if (process_group_ == 0) {
    process_group_ = child->pid;
    watchdog_->watch(process_group_);
  }
  reports_.push_back(std::move(child->report));
  return ok_status();
}

// Waits up to `timeout_ms` for a signal or worker output, and handles what came.
void Supervisor::poll_once(int timeout_ms) {
  std::vector<pollfd> fds{pollfd{relay_->fd(), POLLIN, 0}};
  std::vector<Stream*> streams{nullptr};
  for (auto& worker : workers_) {
    for (Stream* stream : {&worker.out, &worker.err}) {
      if (!stream->fd.valid()) continue;
      fds.push_back(pollfd{stream->fd.get(), POLLIN, 0});
      streams.push_back(stream);
    }
  }
  // An error cannot happen with valid descriptors; the caller's reaping still runs.
  if (::poll(fds.data(), fds.size(), timeout_ms) <= 0) return;
  if (fds[0].revents != 0) handle_signals();
  for (std::size_t i = 1; i < fds.size(); ++i) {
    if (fds[i].revents != 0) read_stream(*streams[i], 64 * 1024);
  }
}

void Supervisor::supervise() {
  next_tick_ = Clock::now() + options_.tick;
  while (std::any_of(workers_.begin(), workers_.end(), [](const Worker& w) { return w.running; })) {
    poll_once(poll_timeout(Clock::now()));
    reap_exited();
    const auto now = Clock::now();
    if (kill_at_ && !killed_ && now >= *kill_at_) {
      signal_group(SIGKILL);
      killed_ = true;
    }
    tick(now);
    track_escaped(now);
  }
}

int Supervisor::poll_timeout(Clock::time_point now) const {
  // A bounded wait also covers a SIGCHLD whose byte was lost.
  auto deadline = now + std::chrono::milliseconds(500);
  if (options_.on_tick) deadline = std::min(deadline, next_tick_);
  if (kill_at_ && !killed_) deadline = std::min(deadline, *kill_at_);
  const auto wait = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
  return static_cast<int>(std::max<long long>(wait, 0));
}

void Supervisor::tick(Clock::time_point now) {
  if (!options_.on_tick || now < next_tick_) return;
  std::vector<pid_t> pids;
  for (const auto& worker : workers_) pids.push_back(worker.running ? worker.result.pid : 0);
  options_.on_tick(pids);
  next_tick_ = std::max(next_tick_ + options_.tick, now);
}

bool contains(const std::vector<int>& signals, int signal) {
  return std::find(signals.begin(), signals.end(), signal) != signals.end();
}

void Supervisor::handle_signals() {
  for (int signal : relay_->take()) {
    if (signal == SIGCHLD) continue;  // reap_exited() runs after every wake-up
    if (contains(options_.notify, signal)) {
      if (options_.on_signal) options_.on_signal(signal);
    } else if (contains(options_.pass_on, signal)) {
      passed_on_.push_back(signal);
      signal_group(signal);
    } else {
      forwarded_signal_ = signal;
      signal_group(options_.stop_with != 0 ? options_.stop_with : signal);
      if (!kill_at_ || ending_leftovers_) kill_at_ = ending_leftovers_ ? Clock::now() : Clock::now() + options_.grace;
    }
  }
}

// A failed write (a full disk, a closed pipe) does not stop the group: the
// sink counts what it lost, and the worker's pipe is still drained.
void Supervisor::route(Stream& stream, std::string_view data) {
  if (stream.tail != nullptr) stream.tail->feed(data);
  stream.file.write(data);
  if (!stream.console.valid()) return;
  std::string lines;
  stream.tagger.feed(data, lines);
  if (!lines.empty()) end_open_lines(&stream);
  stream.console.write(lines);
}

void Supervisor::end_open_lines(const Stream* except) {
  for (auto& worker : workers_) {
    for (Stream* other : {&worker.out, &worker.err}) {
      if (other == except || !other->tagger.open()) continue;
      other->console.write("\n");
      other->tagger.line_ended_elsewhere();
    }
  }
}

// Prints a stream's unfinished last line, if any, and closes it.
void Supervisor::finish_stream(Stream& stream) {
  if (stream.console.valid()) {
    std::string rest;
    stream.tagger.finish(rest);
    if (!rest.empty()) end_open_lines(&stream);
    stream.console.write(rest);
  }
  stream.fd.reset();
}

void Supervisor::read_stream(Stream& stream, std::size_t limit) {
  char buffer[16 * 1024];
  std::size_t total = 0;
  while (total < limit) {
    const ssize_t n = ::read(stream.fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    if (n <= 0) {  // EOF (or an error): flush an unfinished last line
      finish_stream(stream);
      return;
    }
    route(stream, std::string_view(buffer, static_cast<std::size_t>(n)));
    total += static_cast<std::size_t>(n);
  }
}

void Supervisor::reap_exited() {
  // Every child that ended: a worker, or (mptrain being the subreaper) a
  // descendant whose parent died before it.
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid == 0) return;
    const pid_t pid = info.si_pid;
    int wait_status = 0;
    rusage usage{};
    if (::wait4(pid, &wait_status, WNOHANG, &usage) != pid) return;
    const auto worker = std::find_if(workers_.begin(), workers_.end(),
                                     [pid](const Worker& w) { return w.running && w.result.pid == pid; });
    if (worker != workers_.end()) record_exit(*worker, wait_status, usage);
  }
}

void Supervisor::record_exit(Worker& worker, int wait_status, const rusage& usage) {
  worker.running = false;
  auto& result = worker.result;
  result.wall_seconds = seconds(Clock::now() - worker.started);
  result.cpu_seconds = cpu_seconds(usage);
  if (WIFSIGNALED(wait_status)) {
    result.status = ExitStatus{ExitStatus::Kind::signaled, WTERMSIG(wait_status)};
  } else {
    result.status = ExitStatus{ExitStatus::Kind::exited, WEXITSTATUS(wait_status)};
  }
  if (result.status.success() || failed_rank_) return;
  failed_rank_ = result.rank;
  // Those not yet ended (not even waiting to be reaped) are the ones the stop ends.
  for (auto& other : workers_) {
    if (!other.running) continue;
    siginfo_t info{};
    const bool ended = ::waitid(P_PID, static_cast<id_t>(other.result.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                       info.si_pid == other.result.pid;
    other.result.stopped = !ended;
  }
  stop_group(SIGTERM);
}

void Supervisor::stop_group(int signal) {
  signal_group(signal);
  if (!kill_at_) kill_at_ = Clock::now() + options_.grace;
}

void Supervisor::signal_group(int signal) {
  // The process group holds the workers and their own children, as a
  // terminal's foreground group would.
  if (process_group_ > 0) ::killpg(process_group_, signal);
  for (auto& worker : workers_) {
    if (worker.running && ::getpgid(worker.result.pid) != process_group_) ::kill(worker.result.pid, signal);
  }
}

// The processes the workers left behind: whatever is in the run's cgroup
// (which holds every descendant of the workers, the orphans re-parented to
// mptrain included) and the descendants still in the workers' process
// group (one that moved itself out of the cgroup without setsid does not
// escape: only both may), else mptrain's live descendants, its watchdog aside.
std::vector<pid_t> Supervisor::leftovers() const {
  std::vector<pid_t> pids;
  if (cgroup_) pids = cgroup_->members();
  for (const auto& process : live_descendants(watchdog_ ? watchdog_->pid() : 0)) {
    if (cgroup_ && process.group != process_group_) continue;
    if (std::find(pids.begin(), pids.end(), process.pid) == pids.end()) pids.push_back(process.pid);
  }
  return pids;
}

// Without a cgroup, tells the watchdog (at most once a second) which
// descendants left the workers' process group, so it can kill them too
// should mptrain die.
void Supervisor::track_escaped(Clock::time_point now) {
  if (cgroup_ || now < next_escape_scan_) return;
  next_escape_scan_ = now + std::chrono::seconds(1);
  std::vector<Descendant> escaped;
  for (const auto& process : live_descendants(watchdog_->pid())) {
    if (process.group != process_group_) escaped.push_back(process);
  }
  const auto same = [](const Descendant& a, const Descendant& b) { return a.pid == b.pid && a.start == b.start; };
  if (std::equal(escaped.begin(), escaped.end(), escaped_.begin(), escaped_.end(), same)) return;
  watchdog_->watch_escaped(escaped);
  escaped_ = std::move(escaped);
}

// Ends what the workers left behind, however the attempt ended: SIGTERM,
// then SIGKILL once the grace period is over (counted from the stop, if the
// group was stopped), reaping each as it goes; output they write meanwhile
// is still read. Gives up, with a warning, on processes SIGKILL does not end.
void Supervisor::end_leftovers() {
  auto left = leftovers();
  if (left.empty()) return;
  ending_leftovers_ = true;
  if (!kill_at_) kill_at_ = Clock::now() + options_.grace;
  std::vector<pid_t> terminated;
  std::optional<Clock::time_point> give_up_at;
  while (!left.empty()) {
    const auto now = Clock::now();
    const bool kill_now = now >= *kill_at_;
    for (pid_t pid : left) {
      if (kill_now) {
        ::kill(pid, SIGKILL);
      } else if (std::find(terminated.begin(), terminated.end(), pid) == terminated.end()) {
        ::kill(pid, SIGTERM);
        terminated.push_back(pid);
      }
    }
    if (kill_now && !give_up_at) give_up_at = now + std::chrono::seconds(5);
    if (give_up_at && now >= *give_up_at) {
      warnings_.push_back(unkilled_warning(left, FsRoot()));
      break;
    }
    const auto wait =
        kill_now ? std::chrono::milliseconds(20)
                 : std::min<std::chrono::milliseconds>(std::chrono::milliseconds(50),
                                                       std::chrono::ceil<std::chrono::milliseconds>(*kill_at_ - now));
    poll_once(static_cast<int>(wait.count()));
    reap_exited();
    left = leftovers();
  }
  reap_exited();
  ending_leftovers_ = false;
}

void Supervisor::drain_streams() {
  // Workers are gone; read what their pipes still hold, without waiting for
  // EOF (a worker's own child may keep a pipe open).
  for (auto& worker : workers_) {
    for (Stream* stream : {&worker.out, &worker.err}) {
      if (!stream->fd.valid()) continue;
      read_stream(*stream, 4 * 1024 * 1024);
      if (stream->fd.valid()) finish_stream(*stream);
    }
  }
}

void Supervisor::abandon_attempt() {
  signal_group(SIGKILL);
  for (auto& worker : workers_) {
    if (!worker.running) continue;
    int wait_status = 0;
    while (::waitpid(worker.result.pid, &wait_status, 0) < 0 && errno == EINTR) {
    }
    worker.running = false;
  }
  kill_at_ = Clock::now();  // what they left is killed at once
  end_leftovers();
  drain_streams();
}

// The warning that stream `kind` of rank `rank` had `split` lines over max_line_bytes, cut on the console;
// `file` is its log file (invalid: none), which holds them whole.
std::string split_lines_warning(int rank, Streams kind, std::uint64_t split, const OutputSink& file) {
  const bool one = split == 1;
  const auto mib = max_line_bytes >> 20;
  return fmt::format(
      "rank {}'s {} had {} longer than {} MiB; the console got {} in pieces of {} MiB, each a line of its own{}", rank,
      kind == Streams::err ? "stderr" : "stdout", one ? "a line" : fmt::format("{} lines", split), mib,
      one ? "it" : "them", mib,
      file.valid() ? fmt::format(" ({} holds {} whole)", file.name(), one ? "it" : "them") : std::string());
}

// Records the output of `worker` that could not be written, and warns of lines split on the console.
void Supervisor::note_output_problems(const Worker& worker) {
  const int rank = worker.result.rank;
  for (const Stream* stream : {&worker.out, &worker.err}) {
    for (const OutputSink* sink : {&stream->file, &stream->console}) {
      if (sink->error() != 0) output_losses_.push_back({rank, stream->kind, sink->name(), sink->error(), sink->lost()});
    }
    if (const auto split = stream->tagger.split_lines(); split > 0 && stream->console.valid()) {
      warnings_.push_back(split_lines_warning(rank, stream->kind, split, stream->file));
    }
  }
}

GroupResult Supervisor::collect(int restart) {
  GroupResult result;
  for (auto& worker : workers_) {
    note_output_problems(worker);
    worker.result.stderr_tail = worker.tail.text();
    result.workers.push_back(worker.result);
  }
  result.failed_rank = failed_rank_;
  result.restarts = restart;
  result.forwarded_signal = forwarded_signal_;
  result.passed_on = passed_on_;
  result.warnings = warnings_;
  result.output_losses = output_losses_;
  return result;
}

}  // namespace

std::string unkilled_warning(const std::vector<pid_t>& pids, const FsRoot& root) {
  // Each one's state, from its /proc/PID/stat.
  std::vector<std::string> states;
  for (pid_t pid : pids) {
    const auto stat = read_process_stat(root, pid);
    const char state = stat.ok() ? stat->state : '?';
    states.push_back(fmt::format("{} ({})", pid,
                                 state == '?' ? std::string("gone or unreadable") : "state " + std::string(1, state)));
  }
  const bool one = pids.size() == 1;
  return fmt::format(
      "{} left by the workers did not end after SIGKILL: {}; a process in state D is blocked in the kernel "
      "(uninterruptible sleep: a hung NFS mount, a device or a driver) and ends only when that call returns; "
      "see `ps -o pid,stat,wchan -p {}`; {} left running",
      one ? "a process" : "processes", fmt::join(states, ", "), fmt::join(pids, ","), one ? "it is" : "they are");
}

Result<GroupResult> run_group(const std::vector<WorkerSpec>& specs, const Program& program,
                              const GroupOptions& options) {
  if (program.argv.empty()) return Error{"no command given after --"};
  auto resolved = resolve_in_path(program.argv[0]);
  if (!resolved.ok()) return resolved.error();
  const ChildTarget target{*resolved, program.argv, nullptr};
  return Supervisor(specs, target, options).run();
}

Result<GroupResult> run_group(const std::vector<WorkerSpec>& specs, const ChildFunction& function,
                              const GroupOptions& options) {
  if (!function) return Error{"no worker function given"};
  const ChildTarget target{"", {}, &function};
  return Supervisor(specs, target, options).run();
}

}  // namespace mptrain::procmgr
