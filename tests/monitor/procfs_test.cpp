#include "monitor/procfs.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>

#include "recorded_trees.hpp"

using namespace mptrain;
using namespace mptrain::monitor;

using namespace mptrain::monitor::testing;

namespace {

// `absolute` under `root` read the way the sampler reads it: kept open in a ProcFile.
std::string kept(const FsRoot& root, std::string_view absolute) {
  ProcFile file;
  const auto opened = file.open(root, absolute);
  INFO((opened.ok() ? std::string() : opened.error().message));
  REQUIRE(opened.ok());
  auto text = file.read();
  REQUIRE(text.ok());
  return std::string(*text);
}

}  // namespace

TEST_CASE("a stat line is split at the last ')' so comm may hold spaces and parentheses", "[monitor]") {
  auto stat = parse_task_stat(kept(v1_tree, "/proc/100/task/102/stat"));
  REQUIRE(stat.ok());
  CHECK(stat->pid == 102);
  CHECK(stat->comm == "py (worker) 1");
  CHECK(stat->state == 'R');
  CHECK(stat->ppid == 1);
  CHECK(stat->utime_ticks == 490);
  CHECK(stat->stime_ticks == 15);
  CHECK(stat->num_threads == 3);
  CHECK(stat->last_cpu == 1);
}

TEST_CASE("a truncated or comm-less stat line is an error", "[monitor]") {
  CHECK_FALSE(parse_task_stat("12 (x) R 1 2 3").ok());
  CHECK_FALSE(parse_task_stat("12 x R 1 2 3").ok());
  CHECK_FALSE(parse_task_stat("").ok());
}

TEST_CASE("schedstat gives time on CPU and run-queue wait in nanoseconds", "[monitor]") {
  auto sched = parse_schedstat(kept(v1_tree, "/proc/100/task/102/schedstat"));
  REQUIRE(sched.ok());
  CHECK(sched->on_cpu_ns == 4900000000ULL);
  CHECK(sched->wait_ns == 2450000000ULL);
  CHECK(sched->timeslices == 900);
  CHECK_FALSE(parse_schedstat("12 x 3").ok());
}

TEST_CASE("status gives switches, threads and the allowed CPUs", "[monitor]") {
  const auto status = parse_status(kept(v1_tree, "/proc/100/task/102/status"));
  CHECK(status.name == "py (worker) 1");
  CHECK(status.threads == 3);
  CHECK(status.cpus_allowed_list == "1");
  CHECK(status.voluntary_switches == 3);
  CHECK(status.nonvoluntary_switches == 400);
  CHECK(parse_status("garbage without colons\n").threads == 0);
}

TEST_CASE("environ yields the thread-count variables and ignores bad values", "[monitor]") {
  auto env = read_thread_env(v1_tree, 100);
  REQUIRE(env.ok());
  CHECK(count_of(*env, "OMP_NUM_THREADS") == 4);
  CHECK_FALSE(count_of(*env, "MKL_NUM_THREADS").has_value());
  CHECK_FALSE(count_of(*env, "OPENBLAS_NUM_THREADS").has_value());
  CHECK(count_of(parse_thread_env(std::string_view("OPENBLAS_NUM_THREADS=2\0", 23)), "OPENBLAS_NUM_THREADS") == 2);
}

TEST_CASE("cmdline is joined with spaces", "[monitor]") {
  CHECK(read_cmdline(v1_tree, 100).value_or("") == "python3 train.py --epochs 1");
  CHECK(parse_cmdline("") == "");
}

TEST_CASE("cmdline words a shell would split or expand are quoted, so the fix command can be pasted", "[monitor]") {
  using namespace std::string_view_literals;
  CHECK(parse_cmdline("python3\0-c\0import numpy; print(1)\0"sv) == "python3 -c 'import numpy; print(1)'");
  CHECK(parse_cmdline("/opt/my app/run\0it's\0\0"sv) == "'/opt/my app/run' 'it'\\''s'");
  CHECK(parse_cmdline("a\0\0b\0"sv) == "a '' b");
}

TEST_CASE("a thread listed but whose files are gone is an error, not a crash", "[monitor]") {
  auto tids = list_tasks(v1_tree, 100);
  REQUIRE(tids.ok());
  CHECK(tids->size() == 3);
  ProcFile file;
  CHECK_FALSE(file.open(v1_tree, "/proc/100/task/101/stat").ok());
  CHECK_FALSE(file.open(v1_tree, "/proc/100/task/101/schedstat").ok());
  CHECK_FALSE(read_process_stat(v1_tree, 99999).ok());
}

TEST_CASE("/proc is listed as process ids only", "[monitor]") {
  auto pids = list_processes(v1_tree);
  REQUIRE(pids.ok());
  std::sort(pids->begin(), pids->end());
  CHECK(*pids == std::vector<pid_t>{7, 100, 300});
}

TEST_CASE("/proc/stat gives busy and total seconds per CPU", "[monitor]") {
  auto cpus =
      parse_proc_stat("cpu  1 2 3 4 5 6 7 8 0 0\ncpu0 100 0 50 800 50 0 0 0 0 0\ncpu1 1 1 1 1 1 1 1 1 0 0\n", 100);
  REQUIRE(cpus.ok());
  REQUIRE(cpus->size() == 2);
  CHECK((*cpus)[0].cpu == 0);
  CHECK((*cpus)[0].busy_s == Approx(1.5));
  CHECK((*cpus)[0].total_s == Approx(10.0));
  CHECK((*cpus)[1].busy_s == Approx(0.06));
  CHECK_FALSE(parse_proc_stat("intr 1 2\n", 100).ok());
  auto recorded = parse_proc_stat(kept(v1_tree, "/proc/stat"), 100);
  REQUIRE(recorded.ok());
  CHECK(recorded->size() == 2);
}

TEST_CASE("loadavg and CPU pressure are parsed", "[monitor]") {
  auto load = parse_loadavg(kept(v1_tree, "/proc/loadavg"));
  REQUIRE(load.ok());
  CHECK(load->load1 == Approx(2.5));
  CHECK(load->runnable == 3);
  CHECK(load->tasks == 87);
  auto pressure = parse_cpu_pressure(kept(v1_tree, "/proc/pressure/cpu"));
  REQUIRE(pressure.ok());
  CHECK(pressure->some_avg10 == Approx(12.5));
  CHECK(pressure->some_total_us == 7520741);
}

TEST_CASE("a kernel without PSI has no CPU pressure, which is not an error", "[monitor]") {
  CHECK_FALSE(ProcFile().open(v2_tree, "/proc/pressure/cpu").ok());
  CHECK_FALSE(parse_cpu_pressure("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n").ok());
}

TEST_CASE("a kept ProcFile re-reads the current content with pread", "[monitor]") {
  ProcFile file;
  REQUIRE(file.open(FsRoot(), "/proc/self/schedstat").ok());
  auto first = file.read();
  REQUIRE(first.ok());
  const auto before = parse_schedstat(*first);
  REQUIRE(before.ok());
  volatile double sink = 0;
  for (int i = 0; i < 3000000; ++i) sink = sink + i * 0.5;
  auto second = file.read();
  REQUIRE(second.ok());
  CHECK(parse_schedstat(*second)->on_cpu_ns > before->on_cpu_ns);
  CHECK_FALSE(ProcFile().read().ok());
  CHECK_FALSE(file.open(v1_tree, "/proc/does-not-exist").ok());
}
