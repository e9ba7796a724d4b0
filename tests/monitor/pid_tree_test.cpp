// `doctor --pid P` watches P's descendants as they come and go (a /proc
// tree written and changed between samples), and --no-children keeps to P.
#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "monitor/doctor.hpp"
#include "monitor/live.hpp"
#include "monitor/sizing.hpp"

using namespace mptrain;
using namespace mptrain::monitor;

namespace {

// A /proc tree in a temporary folder whose one-thread processes can be started, advanced and ended.
class TreeProc {
 public:
  TreeProc() : dir_(std::filesystem::temp_directory_path() / ("mptrain-pidtree-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir_);
    write("/proc/stat", "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 100 0 0 0 0 0 0 0 0 0\ncpu1 100 0 0 0 0 0 0 0 0 0\n");
  }
  ~TreeProc() { std::filesystem::remove_all(dir_); }
  FsRoot root() const { return FsRoot(dir_); }

  // Process `pid` (child of `ppid`, named `comm`) with `cpu_s` seconds on CPU so far.
  void set(pid_t pid, pid_t ppid, const std::string& comm, double cpu_s) {
    const std::string stat = fmt::format(
        "{} ({}) R {} {} {} 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 "
        "0 0 0 0\n",
        pid, comm, ppid, pid, pid);
    const std::string process = "/proc/" + std::to_string(pid);
    const std::string task = process + "/task/" + std::to_string(pid);
    write(process + "/stat", stat);
    write(process + "/status", fmt::format("Name:\t{}\nTgid:\t{}\nThreads:\t1\n", comm, pid));
    write(process + "/cmdline", comm + std::string(1, '\0') + "--work" + std::string(1, '\0'));
    write(task + "/stat", stat);
    write(task + "/status", fmt::format("Name:\t{}\nTgid:\t{}\nCpus_allowed_list:\t0-1\nvoluntary_ctxt_switches:\t1\n"
                                        "nonvoluntary_ctxt_switches:\t1\n",
                                        comm, pid));
    write(task + "/schedstat",
          fmt::format("{} 0 {}\n", static_cast<long long>(cpu_s * 1e9), 1 + static_cast<int>(100 * cpu_s)));
  }
  // Process `pid` exits: its files read as nothing (as an exited task's open files do), then go.
  void end(pid_t pid) {
    const std::string process = "/proc/" + std::to_string(pid);
    const std::string task = process + "/task/" + std::to_string(pid);
    for (const auto* file : {"/stat", "/status", "/schedstat"}) write(task + file, "");
    write(process + "/stat", "");
    std::filesystem::remove_all(dir_ / process.substr(1));
  }

 private:
  void write(const std::string& absolute, const std::string& text) {
    const auto path = dir_ / absolute.substr(1);
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::trunc) << text;  // the same file, rewritten: kept-open readers see it
  }
  std::filesystem::path dir_;
};

// The diagnosis of a watch of `pids` with `request`'s scope over three samples in which parent 100's
// child 300 works and exits while its second child 301 starts and works.
Diagnosis watch_family(bool descendants) {
  TreeProc proc;
  proc.set(100, 1, "parent", 0.1);
  proc.set(300, 100, "worker", 1.0);
  DoctorRequest request;
  request.pids = {100};
  request.pid_descendants = descendants;
  LiveMonitor monitor(monitor_options(request, Capacity{2, CpuSet::range(0, 1), {}}, proc.root()));
  monitor.sample_now();
  proc.set(300, 100, "worker", 1.5);
  proc.set(301, 100, "worker", 0.1);  // a new child, found at this sample
  monitor.sample_now();
  proc.end(300);
  proc.set(301, 100, "worker", 0.6);
  monitor.sample_now();
  return monitor.diagnosis();
}

const ProcessSummary* tree_process(const Diagnosis& d, pid_t pid) {
  for (const auto& p : d.processes) {
    if (p.pid == pid) return &p;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a --pid watches the process's tree, with --no-children the process alone, a command its tree",
          "[pid-tree]") {
  DoctorRequest request;
  const FsRoot root;
  request.pids = {42};
  CHECK(monitor_options(request, {}, root).scope == Scope::trees);
  request.pid_descendants = false;
  CHECK(monitor_options(request, {}, root).scope == Scope::processes);
  request.pids.clear();
  request.pid_descendants = true;
  CHECK(monitor_options(request, {}, root).scope == Scope::machine);
  request.command = {"sleep", "1"};
  CHECK(monitor_options(request, {}, root).scope == Scope::trees);
}

TEST_CASE("a --no-children without --pid is refused", "[pid-tree]") {
  const auto no_program = [](const std::string&) { return false; };
  DoctorRequest request;
  request.pid_descendants = false;
  const auto machine = check_request(request, no_program);
  REQUIRE_FALSE(machine.ok());
  CHECK(machine.error().message.find("--no-children applies to --pid") != std::string::npos);
  request.command = {"sleep", "1"};
  CHECK_FALSE(check_request(request, no_program).ok());
  request.command.clear();
  request.pids = {42};
  CHECK(check_request(request, no_program).ok());
}

TEST_CASE("a --pid watch finds children started between samples and keeps those that exited in the totals",
          "[pid-tree]") {
  const auto d = watch_family(true);
  const auto* exited = tree_process(d, 300);
  const auto* started = tree_process(d, 301);
  REQUIRE(exited != nullptr);
  REQUIRE(started != nullptr);
  CHECK(exited->cpu_seconds == Approx(0.5).margin(0.01));   // its one interval before it exited
  CHECK(started->cpu_seconds == Approx(0.5).margin(0.01));  // from the sample that found it on
  CHECK(exited->cmdline == "worker --work");
}

TEST_CASE("a --no-children watch keeps to the given process", "[pid-tree]") {
  const auto d = watch_family(false);
  CHECK(tree_process(d, 300) == nullptr);
  CHECK(tree_process(d, 301) == nullptr);
}

namespace {

// Worker `pid` of parent 10 (`parent`, not watched) running `cmdline` with a GNU OpenMP pool.
ProcessEvidence worker(pid_t pid, const std::string& cmdline, const std::string& parent) {
  ProcessEvidence p;
  p.pid = pid;
  p.ppid = 10;
  p.cmdline = cmdline;
  p.parent_cmdline = parent;
  p.runtimes.push_back(Runtime{RuntimeKind::gnu_openmp, "libgomp.so.1"});
  p.env.counts[0] = 2;  // OMP_NUM_THREADS
  return p;
}

// The sizing fix for workers 11 and 12 (watched alone) on 2 CPUs.
std::string fix_for(const std::string& cmdline_11, const std::string& cmdline_12, const std::string& parent) {
  std::map<pid_t, ProcessEvidence> all{{11, worker(11, cmdline_11, parent)}, {12, worker(12, cmdline_12, parent)}};
  return sizing_fix({&all.at(11), &all.at(12)}, 2, all, {{11, 2}, {12, 2}});
}

}  // namespace

TEST_CASE("workers watched without their parent: forked copies of it still get its --children command", "[pid-tree]") {
  const auto forked = fix_for("python3 train.py", "python3 train.py", "python3 train.py");
  CHECK(forked.find("`mptrain run -n 1 --children 2 -- python3 train.py`") != std::string::npos);
  CHECK(forked.find("mptrain run -n 2 ") == std::string::npos);
  // Copies of a command a shell started are two programs; different programs of one shell are no workers of it.
  CHECK(fix_for("python3 train.py", "python3 train.py", "bash run.sh").find("mptrain run -n 2 -- python3 train.py") !=
        std::string::npos);
  CHECK(fix_for("python3 a.py", "python3 b.py", "-bash").find("--children") == std::string::npos);
}
