#include "procmgr/group.hpp"

#include <fcntl.h>
#include <numaif.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "tests/procmgr/temp_files.hpp"
#include "util/fd.hpp"

using namespace mptrain;
using namespace mptrain::procmgr;
using mptrain::test::make_temp_dir;
using mptrain::test::slurp;
using namespace std::chrono_literals;

namespace {

std::vector<WorkerSpec> specs(int count) {
  std::vector<WorkerSpec> result(static_cast<std::size_t>(count));
  for (int rank = 0; rank < count; ++rank) {
    result[static_cast<std::size_t>(rank)].rank = rank;
    result[static_cast<std::size_t>(rank)].env = {"TEST_RANK=" + std::to_string(rank)};
  }
  return result;
}

// Sleeps in short steps so a worker waiting for a signal is not in one long call.
int sleep_long() {
  for (int i = 0; i < 600; ++i) ::usleep(100 * 1000);
  return 0;
}

GroupOptions quick_options() {
  GroupOptions options;
  options.grace = 2000ms;
  return options;
}

// Points descriptor `fd` at file `path`, opened for writing, until destroyed.
class Redirect {
 public:
  Redirect(int fd, const std::filesystem::path& path) : fd_(fd), saved_(::dup(fd)) {
    std::fflush(nullptr);
    UniqueFd target(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    REQUIRE(target.valid());
    REQUIRE(::dup2(target.get(), fd_) == fd_);
  }
  ~Redirect() {
    std::fflush(nullptr);
    ::dup2(saved_.get(), fd_);
  }
  Redirect(const Redirect&) = delete;
  Redirect& operator=(const Redirect&) = delete;

 private:
  int fd_;
  UniqueFd saved_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("workers calling a function that returns 0 all succeed") {
  auto result = run_group(
      specs(3), [](const WorkerSpec&) { return 0; }, quick_options());
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 0);
  CHECK_FALSE(result->failed_rank);
  REQUIRE(result->workers.size() == 3);
  for (int rank = 0; rank < 3; ++rank) {
    CHECK(result->workers[static_cast<std::size_t>(rank)].rank == rank);
    CHECK(result->workers[static_cast<std::size_t>(rank)].pid > 0);
    CHECK(result->workers[static_cast<std::size_t>(rank)].status.success());
  }
}

TEST_CASE("a worker's environment carries its spec's variables and the restart count") {
  auto check = [](const WorkerSpec& spec) {
    const char* rank = std::getenv("TEST_RANK");
    const char* restarts = std::getenv("MPTRAIN_RESTART_COUNT");
    const bool ok = rank != nullptr && std::stoi(rank) == spec.rank && restarts != nullptr &&
                    std::string(restarts) == "0" && std::getenv("PATH") != nullptr;
    return ok ? 0 : 3;
  };
  auto result = run_group(specs(2), check, quick_options());
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 0);
}

TEST_CASE("a worker is pinned to its CPUs before its function runs") {
  auto group = specs(2);
  for (auto& spec : group) spec.cpus = CpuSet({0});
  auto check = [](const WorkerSpec&) {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (::sched_getaffinity(0, sizeof mask, &mask) != 0) return 2;
    return CPU_COUNT(&mask) == 1 && CPU_ISSET(0, &mask) ? 0 : 3;
  };
  auto result = run_group(group, check, quick_options());
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 0);
}

// 0 when the calling process's memory policy is `mode` over node `node` only, else a code saying why not.
int memory_policy_is(int expected_mode, int node) {
  int mode = -1;
  unsigned long nodes[16] = {};
  if (::get_mempolicy(&mode, nodes, sizeof nodes * 8, nullptr, 0) != 0) return 2;
  if (mode != expected_mode) return 3;
  return nodes[0] == (1UL << node) ? 0 : 4;
}

// The first online NUMA node of this machine (every Debian kernel has NUMA support).
int first_online_node() {
  auto nodes = read_online_nodes(FsRoot());
  if (!nodes.ok() || nodes->empty()) FAIL("this kernel reports no NUMA nodes: " << nodes.error().message);
  return nodes->cpus().front();
}

TEST_CASE("a worker's memory is bound to, or interleaved over, its nodes before its function runs") {
  const int node = first_online_node();
  for (auto [mode, kernel_mode] : {std::pair{MemoryMode::bind, MPOL_BIND}, {MemoryMode::interleave, MPOL_INTERLEAVE}}) {
    auto group = specs(1);
    group[0].memory = MemoryPolicy{mode, CpuSet({node}), MemoryRefusal::fail};
    auto result = run_group(
        group, [kernel_mode = kernel_mode, node](const WorkerSpec&) { return memory_policy_is(kernel_mode, node); },
        quick_options());
    REQUIRE(result.ok());
    CHECK(result->exit_code() == 0);
    CHECK(result->warnings.empty());
  }
}

TEST_CASE("a worker without a memory policy keeps the default one") {
  auto result = run_group(
      specs(1), [](const WorkerSpec&) { return memory_policy_is(MPOL_BIND, 0); }, quick_options());
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 3);  // the default policy
}

TEST_CASE("a memory policy the kernel refuses stops the start when asked for, and is a warning by default") {
  auto group = specs(1);
  group[0].memory = MemoryPolicy{MemoryMode::bind, CpuSet({IdMask::capacity - 1}), MemoryRefusal::fail};
  auto refused = run_group(
      group, [](const WorkerSpec&) { return 0; }, quick_options());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("cannot set the memory policy of rank 0 (membind 8191)") != std::string::npos);
  group[0].memory.refusal = MemoryRefusal::warn;
  auto warned = run_group(
      group, [](const WorkerSpec&) { return 0; }, quick_options());
  REQUIRE(warned.ok());
  CHECK(warned->exit_code() == 0);
  REQUIRE(warned->warnings.size() == 1);
  CHECK(warned->warnings[0].find("cannot set the memory policy of rank 0") != std::string::npos);
}

TEST_CASE("the default memory policy binds a worker to its node only on a machine of several nodes") {
  CHECK(to_string(node_memory_policy(2, CpuSet::range(0, 3))) == "membind 2");
  CHECK(node_memory_policy(2, CpuSet::range(0, 3)).refusal == MemoryRefusal::warn);
  CHECK(to_string(node_memory_policy(0, CpuSet({0}))) == "default");           // one node: nothing to choose
  CHECK(to_string(node_memory_policy(-1, CpuSet::range(0, 3))) == "default");  // a worker across nodes
  CHECK(to_string(node_memory_policy(5, CpuSet::range(0, 3))) == "default");   // not an online node
}

TEST_CASE("pinning to a CPU that does not exist is a start error") {
  auto group = specs(1);
  group[0].cpus = CpuSet({4000});
  auto result = run_group(
      group, [](const WorkerSpec&) { return 0; }, quick_options());
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message.find("cannot pin rank 0 to CPUs 4000") != std::string::npos);
}

TEST_CASE("the first failing worker stops the group and gives its exit code") {
  const auto start = std::chrono::steady_clock::now();
  auto result = run_group(
      specs(3), [](const WorkerSpec& spec) { return spec.rank == 1 ? 7 : sleep_long(); }, quick_options());
  REQUIRE(result.ok());
  CHECK(seconds_since(start) < 10);
  CHECK(result->exit_code() == 7);
  REQUIRE(result->failed_rank == 1);
  for (int rank : {0, 2}) {
    const auto& status = result->workers[static_cast<std::size_t>(rank)].status;
    CHECK(status.kind == ExitStatus::Kind::signaled);
    CHECK(status.code == SIGTERM);
  }
}

TEST_CASE("a worker killed by a signal gives 128 plus the signal") {
  auto result = run_group(
      specs(2),
      [](const WorkerSpec& spec) {
        if (spec.rank == 0) ::raise(SIGKILL);
        return sleep_long();
      },
      quick_options());
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 137);
  CHECK(result->workers[0].status.describe() == "killed by SIGKILL");
}

TEST_CASE("a worker ignoring SIGTERM is killed after the grace period") {
  auto options = quick_options();
  options.grace = 300ms;
  // Rank 0 fails only once rank 1 ignores SIGTERM (it says so through the
  // pipe), so the group's SIGTERM can never reach rank 1 before that.
  auto ready = mptrain::make_pipe(mptrain::PipeMode::blocking);
  REQUIRE(ready.ok());
  const int ready_read = ready->read.get();
  const int ready_write = ready->write.get();
  const auto start = std::chrono::steady_clock::now();
  auto result = run_group(
      specs(2),
      [ready_read, ready_write](const WorkerSpec& spec) {
        if (spec.rank == 0) {
          pollfd wait_for_rank_1{ready_read, POLLIN, 0};
          ::poll(&wait_for_rank_1, 1, 10000);
          return 1;
        }
        ::signal(SIGTERM, SIG_IGN);
        if (::write(ready_write, "r", 1) != 1) return 2;
        return sleep_long();
      },
      options);
  REQUIRE(result.ok());
  CHECK(seconds_since(start) < 10);
  CHECK(result->exit_code() == 1);
  CHECK(result->workers[1].status.describe() == "killed by SIGKILL");
}

TEST_CASE("an exception escaping the function gives exit code 1") {
  auto result = run_group(
      specs(1), [](const WorkerSpec&) -> int { throw std::runtime_error("boom"); }, quick_options());
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 1);
}

TEST_CASE("on_tick is called with the live workers' pids") {
  auto options = quick_options();
  options.tick = 20ms;
  int ticks = 0;
  bool saw_live_pids = false;
  options.on_tick = [&](const std::vector<pid_t>& pids) {
    ++ticks;
    if (pids.size() == 2 && pids[0] > 0 && pids[1] > 0) saw_live_pids = true;
  };
  auto result = run_group(
      specs(2),
      [](const WorkerSpec&) {
        ::usleep(300 * 1000);
        return 0;
      },
      options);
  REQUIRE(result.ok());
  CHECK(ticks >= 3);
  CHECK(saw_live_pids);
}

TEST_CASE("an exception from on_tick kills the workers and propagates") {
  auto options = quick_options();
  options.tick = 10ms;
  pid_t worker = 0;
  options.on_tick = [&](const std::vector<pid_t>& pids) {
    worker = pids.at(0);
    throw std::runtime_error("sampler failed");
  };
  CHECK_THROWS_WITH(run_group(
                        specs(1), [](const WorkerSpec&) { return sleep_long(); }, options),
                    "sampler failed");
  REQUIRE(worker > 0);
  CHECK(::kill(worker, 0) != 0);  // killed and reaped
}

TEST_CASE("a failing group is restarted up to max_restarts times") {
  auto options = quick_options();
  options.max_restarts = 2;
  std::vector<int> restarts_seen;
  options.on_restart = [&](const GroupResult& failed, int restart) {
    CHECK(failed.exit_code() == 5);
    restarts_seen.push_back(restart);
  };
  auto fail_twice = [](const WorkerSpec&) { return std::string(std::getenv("MPTRAIN_RESTART_COUNT")) == "2" ? 0 : 5; };
  auto result = run_group(specs(2), fail_twice, options);
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 0);
  CHECK(result->restarts == 2);
  CHECK(restarts_seen == std::vector<int>{1, 2});

  auto always_fail = [](const WorkerSpec&) { return 5; };
  result = run_group(specs(1), always_fail, options);
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 5);
  CHECK(result->restarts == 2);
}

TEST_CASE("log_dir output keeps each rank's streams apart and the tail of stderr") {
  const auto dir = make_temp_dir();
  auto options = quick_options();
  options.output = Output::log_dir;
  options.log_dir = dir / "logs";
  auto result = run_group(
      specs(2),
      [](const WorkerSpec& spec) {
        std::printf("out of %d\nno newline", spec.rank);
        std::fprintf(stderr, "err of %d\n", spec.rank);
        // Rank 1's failure stops the group: it waits so that rank 0 has written and exited first.
        if (spec.rank == 1) std::this_thread::sleep_for(std::chrono::milliseconds(300));
        return spec.rank == 1 ? 4 : 0;
      },
      options);
  REQUIRE(result.ok());
  CHECK(slurp(dir / "logs/rank-0.out") == "out of 0\nno newline");
  CHECK(slurp(dir / "logs/rank-1.err") == "err of 1\n");
  CHECK(result->workers[1].stderr_tail == "err of 1");
  CHECK(result->exit_code() == 4);
  std::filesystem::remove_all(dir);
}

TEST_CASE("an unwritable log directory is an error") {
  auto options = quick_options();
  options.output = Output::log_dir;
  options.log_dir = "/dev/null/logs";
  auto result = run_group(
      specs(1), [](const WorkerSpec&) { return 0; }, options);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message.find("/dev/null/logs") != std::string::npos);
}

TEST_CASE("a program's exit code is the group's") {
  auto result =
      run_group(specs(2), Program{{"sh", "-c", "[ $TEST_RANK = 0 ] && exit 3; exec sleep 30"}}, quick_options());
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 3);
  CHECK(result->failed_rank == 0);
  CHECK(result->workers[1].status.describe() == "killed by SIGTERM");
}

TEST_CASE("a program that is not found is an error before anything starts") {
  auto result = run_group(specs(2), Program{{"mptrain-no-such-command"}}, quick_options());
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message.find("not found in PATH") != std::string::npos);
}

TEST_CASE("an exec failure in the child is reported") {
  const auto dir = make_temp_dir();
  const auto script = dir / "no-interpreter";
  std::ofstream(script) << "#!/nonexistent/interpreter\n";
  ::chmod(script.c_str(), 0755);
  auto result = run_group(specs(2), Program{{script.string()}}, quick_options());
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message.find("cannot run '" + script.string() + "' for rank 0") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("tagged output of a program keeps its stderr tail") {
  auto options = quick_options();
  options.output = Output::tagged;
  options.tagged_stdout = TaggedStdout::to_stderr;
  auto result = run_group(specs(1), Program{{"sh", "-c", "echo one >&2; printf 'two' >&2; exit 2"}}, options);
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 2);
  CHECK(result->workers[0].stderr_tail == "one\ntwo");
}

TEST_CASE("redirects and tee send only the streams they name to files") {
  const auto dir = make_temp_dir();
  auto options = quick_options();
  options.output = Output::log_dir;
  options.log_dir = dir;
  options.redirects = StreamChoice{Streams::none, {{0, Streams::out}}};
  options.tee = StreamChoice{Streams::none, {{1, Streams::err}}};
  options.tagged_stdout = TaggedStdout::to_stderr;
  auto result = run_group(specs(2), Program{{"sh", "-c", "echo out $TEST_RANK; echo err $TEST_RANK >&2"}}, options);
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 0);
  CHECK(slurp(dir / "rank-0.out") == "out 0\n");
  CHECK(slurp(dir / "rank-1.err") == "err 1\n");
  CHECK_FALSE(std::filesystem::exists(dir / "rank-0.err"));
  CHECK_FALSE(std::filesystem::exists(dir / "rank-1.out"));
  CHECK(result->workers[0].stderr_tail == "err 0");  // printed on the console, kept all the same
  std::filesystem::remove_all(dir);
}

TEST_CASE("with restarts each attempt writes its own logs and the links name the latest") {
  const auto dir = make_temp_dir();
  auto options = quick_options();
  options.output = Output::log_dir;
  options.log_dir = dir;
  options.max_restarts = 1;
  auto result = run_group(specs(1),
                          Program{{"sh", "-c",
                                   "echo out $MPTRAIN_RESTART_COUNT; echo err $MPTRAIN_RESTART_COUNT >&2; "
                                   "[ $MPTRAIN_RESTART_COUNT = 1 ]"}},
                          options);
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 0);
  CHECK(result->restarts == 1);
  CHECK(slurp(dir / "attempt-0/rank-0.out") == "out 0\n");
  CHECK(slurp(dir / "attempt-0/rank-0.err") == "err 0\n");
  CHECK(slurp(dir / "attempt-1/rank-0.out") == "out 1\n");
  CHECK(std::filesystem::read_symlink(dir / "rank-0.out") == "attempt-1/rank-0.out");
  CHECK(slurp(dir / "rank-0.err") == "err 1\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a restarted attempt's stderr tail holds that attempt's lines only") {
  auto options = quick_options();
  options.output = Output::tagged;
  options.tagged_stdout = TaggedStdout::to_stderr;
  options.max_restarts = 1;
  std::string first_tail;
  options.on_restart = [&](const GroupResult& failed, int) { first_tail = failed.workers[0].stderr_tail; };
  auto result = run_group(specs(1), Program{{"sh", "-c", "echo attempt $MPTRAIN_RESTART_COUNT >&2; exit 4"}}, options);
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 4);
  CHECK(first_tail == "attempt 0");
  CHECK(result->workers[0].stderr_tail == "attempt 1");
}

TEST_CASE("console output that cannot be written is a loss per rank and stream, and the workers run to their end") {
  const Program program{{"sh", "-c", "echo out; echo err >&2; echo done > \"$MARK.$TEST_RANK\""}};
  const auto dir = make_temp_dir();
  auto group = specs(2);
  for (auto& spec : group) spec.env.push_back("MARK=" + (dir / "done").string());
  auto options = quick_options();
  options.output = Output::tagged;
  Result<GroupResult> result = Error{"not run"};
  {
    Redirect out(1, "/dev/full");
    Redirect err(2, "/dev/full");
    result = run_group(group, program, options);
  }
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 0);
  REQUIRE(result->output_losses.size() == 4);
  for (const auto& loss : result->output_losses) {
    CHECK(loss.error == ENOSPC);
    CHECK(loss.bytes == 8);  // "[R] out\n", "[R] err\n"
    CHECK(loss.destination == (loss.stream == Streams::err ? "/dev/stderr" : "/dev/stdout"));
  }
  CHECK(slurp(dir / "done.0") == "done\n");
  CHECK(slurp(dir / "done.1") == "done\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a worker's line of megabytes reaches the console whole, tagged once") {
  const auto dir = make_temp_dir();
  auto options = quick_options();
  options.output = Output::tagged;
  Result<GroupResult> result = Error{"not run"};
  {
    Redirect out(1, dir / "console");
    result = run_group(
        specs(2),
        [](const WorkerSpec& spec) {
          const std::string line(2 * 1024 * 1024, static_cast<char>('a' + spec.rank));
          for (std::size_t at = 0; at < line.size(); at += 4096) {
            std::fwrite(line.data() + at, 1, 4096, stdout);
            std::fflush(stdout);
          }
          std::fputs("\n", stdout);
          return 0;
        },
        options);
  }
  REQUIRE(result.ok());
  CHECK(result->output_losses.empty());
  std::istringstream console(slurp(dir / "console"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(console, line);) lines.push_back(line);
  REQUIRE(lines.size() == 2);
  for (const auto& line : lines) {
    REQUIRE(line.size() == 4 + 2 * 1024 * 1024);
    const char letter = line[1] == '0' ? 'a' : 'b';
    CHECK(line.find_first_not_of(letter, 4) == std::string::npos);
  }
  CHECK(lines[0].substr(0, 4) != lines[1].substr(0, 4));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a log directory another group holds is refused before any worker starts") {
  const auto dir = make_temp_dir();
  auto held = lock_log_dir(dir / "logs");
  REQUIRE(held.ok());
  auto options = quick_options();
  options.output = Output::log_dir;
  options.log_dir = dir / "logs";
  auto result = run_group(specs(1), Program{{"touch", (dir / "ran").string()}}, options);
  REQUIRE_FALSE(result.ok());
  CHECK(
      result.error().message.starts_with("--log-dir " + (dir / "logs").string() + " is in use by another mptrain run"));
  CHECK_FALSE(std::filesystem::exists(dir / "ran"));
  CHECK_FALSE(std::filesystem::exists(dir / "logs/rank-0.out"));
  held->reset();
  result = run_group(specs(1), Program{{"touch", (dir / "ran").string()}}, options);
  REQUIRE(result.ok());
  CHECK(std::filesystem::exists(dir / "ran"));
  std::filesystem::remove_all(dir);
}

namespace {

// Set by the workers' handler of the tests below.
volatile sig_atomic_t worker_got_signal = 0;
extern "C" void note_signal(int signal) { worker_got_signal = signal; }

// In a worker: handles `signal`, says so on `ready`, then waits for it; returns the signal seen (0: none in 30 s).
int wait_for_signal(int signal, int ready) {
  struct sigaction action {};
  action.sa_handler = note_signal;
  ::sigaction(signal, &action, nullptr);
  if (::write(ready, "r", 1) != 1) return 100;
  for (int i = 0; i < 3000 && worker_got_signal == 0; ++i) ::usleep(10 * 1000);
  return worker_got_signal == signal ? 0 : 101;
}

// In the parent's on_tick: true once every one of `count` workers wrote on `ready`.
bool all_ready(int ready, int count, int& seen) {
  pollfd readable{ready, POLLIN, 0};
  while (seen<count&& ::poll(&readable, 1, 0)> 0) {
    char byte;
    if (::read(ready, &byte, 1) == 1) ++seen;
  }
  return seen == count;
}

}  // namespace

TEST_CASE("a pass_on signal reaches every worker and the group goes on") {
  auto ready = mptrain::make_pipe(mptrain::PipeMode::blocking);
  REQUIRE(ready.ok());
  const int ready_read = ready->read.get();
  const int ready_write = ready->write.get();
  auto options = quick_options();
  options.tick = 10ms;
  int seen = 0;
  bool sent = false;
  options.on_tick = [&](const std::vector<pid_t>&) {
    if (!sent && all_ready(ready_read, 2, seen)) sent = ::raise(SIGUSR1) == 0;
  };
  auto result = run_group(
      specs(2), [ready_write](const WorkerSpec&) { return wait_for_signal(SIGUSR1, ready_write); }, options);
  REQUIRE(result.ok());
  CHECK(sent);
  CHECK(result->exit_code() == 0);
  CHECK(result->forwarded_signal == 0);
  CHECK(result->passed_on == std::vector<int>{SIGUSR1});
}

TEST_CASE("a notify signal calls on_signal and reaches no worker") {
  auto options = quick_options();
  options.tick = 10ms;
  options.pass_on.clear();
  options.notify = {SIGUSR1};
  int notified = 0;
  options.on_signal = [&](int signal) { notified += signal == SIGUSR1 ? 1 : 100; };
  bool sent = false;
  options.on_tick = [&](const std::vector<pid_t>&) {
    if (!sent) sent = ::raise(SIGUSR1) == 0;
  };
  // A worker that got SIGUSR1 would die of it (its default action).
  auto result = run_group(
      specs(1),
      [](const WorkerSpec&) {
        ::usleep(300 * 1000);
        return 0;
      },
      options);
  REQUIRE(result.ok());
  CHECK(notified == 1);
  CHECK(result->exit_code() == 0);
  CHECK(result->forwarded_signal == 0);
}

TEST_CASE("a stop signal is forwarded as stop_with and recorded as received") {
  auto ready = mptrain::make_pipe(mptrain::PipeMode::blocking);
  REQUIRE(ready.ok());
  const int ready_read = ready->read.get();
  const int ready_write = ready->write.get();
  auto options = quick_options();
  options.tick = 10ms;
  options.stop_with = SIGTERM;
  int seen = 0;
  bool sent = false;
  options.on_tick = [&](const std::vector<pid_t>&) {
    if (!sent && all_ready(ready_read, 1, seen)) sent = ::raise(SIGALRM) == 0;
  };
  auto result = run_group(
      specs(1), [ready_write](const WorkerSpec&) { return wait_for_signal(SIGTERM, ready_write); }, options);
  REQUIRE(result.ok());
  CHECK(result->exit_code() == 0);
  CHECK(result->forwarded_signal == SIGALRM);
}

namespace {

volatile sig_atomic_t worker_stop_seen = 0;
volatile sig_atomic_t blocked_while_installing = 0;
extern "C" void note_worker_stop(int) { worker_stop_seen = 1; }

// A worker's handlers that also send it SIGTERM at once, while every signal
// is still blocked: the signal the parent forwards to a worker still starting.
void install_and_receive_stop() {
  sigset_t blocked;
  ::sigprocmask(SIG_SETMASK, nullptr, &blocked);
  blocked_while_installing = ::sigismember(&blocked, SIGTERM) == 1 && ::sigismember(&blocked, SIGINT) == 1 &&
                             ::sigismember(&blocked, SIGHUP) == 1;
  struct sigaction action {};
  action.sa_handler = note_worker_stop;
  ::sigemptyset(&action.sa_mask);
  ::sigaction(SIGTERM, &action, nullptr);
  ::kill(::getpid(), SIGTERM);
}

}  // namespace

TEST_CASE("a function worker's own handlers are in place before any signal reaches it") {
  auto options = quick_options();
  options.worker_signals = install_and_receive_stop;
  auto result = run_group(
      specs(2),
      [](const WorkerSpec&) {
        // The signal waited, blocked, for the handler, which has run by now;
        // and nothing is left blocked for the worker.
        sigset_t blocked;
        ::sigprocmask(SIG_SETMASK, nullptr, &blocked);
        if (blocked_while_installing == 0) return 2;
        if (::sigismember(&blocked, SIGTERM) == 1 || ::sigismember(&blocked, SIGINT) == 1) return 3;
        return worker_stop_seen == 1 ? 0 : 4;
      },
      options);
  REQUIRE(result.ok());
  for (const auto& worker : result->workers) {
    INFO("rank " << worker.rank);
    INFO(worker.status.describe());
    CHECK(worker.status.success());
  }
  CHECK(result->exit_code() == 0);
}

TEST_CASE("workers that start no processes get no run cgroup") {
  ::setenv("MPTRAIN_RUN_CGROUP", "auto", 1);
  auto options = quick_options();
  options.workers_start_processes = false;
  auto result = run_group(
      specs(1),
      [](const WorkerSpec&) {
        std::ifstream file("/proc/self/cgroup");
        std::stringstream text;
        text << file.rdbuf();
        if (!file && text.str().empty()) return 2;
        return text.str().find("mptrain-run-") == std::string::npos ? 0 : 5;
      },
      options);
  ::unsetenv("MPTRAIN_RUN_CGROUP");
  REQUIRE(result.ok());
  INFO(result->workers.at(0).status.describe());
  CHECK(result->exit_code() == 0);
}

TEST_CASE("what a worker leaves behind, also after setsid, ends with the group") {
  auto pid_pipe = mptrain::make_pipe(mptrain::PipeMode::blocking);
  REQUIRE(pid_pipe.ok());
  const int pid_read = pid_pipe->read.get();
  const int pid_write = pid_pipe->write.get();
  auto options = quick_options();
  options.grace = 200ms;
  for (const char* mode : {"auto", "off"}) {
    ::setenv("MPTRAIN_RUN_CGROUP", mode, 1);
    auto result = run_group(
        specs(1),
        [pid_read, pid_write](const WorkerSpec&) {
          // A daemon: the middle process exits at once, the grandchild calls setsid and stays.
          const pid_t middle = ::fork();
          if (middle == 0) {
            const pid_t daemon = ::fork();
            if (daemon == 0) {
              ::setsid();
              ::signal(SIGTERM, SIG_IGN);
              const pid_t self = ::getpid();
              if (::write(pid_write, &self, sizeof self) != sizeof self) ::_exit(1);
              for (;;) ::pause();
            }
            ::_exit(0);
          }
          int status = 0;
          ::waitpid(middle, &status, 0);
          pollfd written{pid_read, POLLIN, 0};  // the daemon runs, after setsid
          ::poll(&written, 1, 10000);
          return 0;
        },
        options);
    ::unsetenv("MPTRAIN_RUN_CGROUP");
    REQUIRE(result.ok());
    CHECK(result->exit_code() == 0);
    pid_t daemon = 0;
    REQUIRE(::read(pid_read, &daemon, sizeof daemon) == sizeof daemon);
    INFO("mode " << mode << ", daemon " << daemon);
    CHECK(::kill(daemon, 0) != 0);  // killed (SIGKILL after the grace: it ignores SIGTERM) and reaped
  }
}
