// /proc/PID/stat lines as the kernel writes them: the comm may hold spaces
// and parentheses, so fields are counted after its LAST ')'.
#include "util/task_stat.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

using namespace mptrain;

namespace {

// A line recorded from a python worker that renamed itself "py (worker) 1" (52 fields).
constexpr std::string_view worker_line =
    "102 (py (worker) 1) R 1 102 102 0 -1 4194560 100 0 0 0 490 15 0 0 20 0 3 0 12345 1000000 100 "
    "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

// A kernel thread's line (flags 0x208040 has PF_KTHREAD), its comm with a space and a ')'.
constexpr std::string_view kernel_line =
    "57 (kworker/0:1) x)) I 2 0 0 0 -1 2129984 0 0 0 0 0 3 0 0 20 0 1 0 88 0 0 18446744073709551615 0 0 0 0 0 0 0 "
    "2147483647 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

}  // namespace

TEST_CASE("a stat line's comm runs to the last ')' and the fields count from there", "[util]") {
  const auto stat = parse_task_stat(worker_line);
  REQUIRE(stat.ok());
  CHECK(stat->pid == 102);
  CHECK(stat->comm == "py (worker) 1");
  CHECK(stat->state == 'R');
  CHECK(stat->ppid == 1);
  CHECK(stat->pgrp == 102);
  CHECK(stat->utime_ticks == 490);
  CHECK(stat->stime_ticks == 15);
  CHECK(stat->num_threads == 3);
  CHECK(stat->start_ticks == 12345);
  CHECK(stat->last_cpu == 1);
  CHECK_FALSE(stat->kernel_thread);
}

TEST_CASE("a kernel thread is told by its flags, whatever its comm holds", "[util]") {
  const auto stat = parse_task_stat(kernel_line);
  REQUIRE(stat.ok());
  CHECK(stat->comm == "kworker/0:1) x)");
  CHECK(stat->state == 'I');
  CHECK(stat->ppid == 2);
  CHECK(stat->kernel_thread);
}

TEST_CASE("a truncated, comm-less or non-numeric stat line is an error", "[util]") {
  CHECK_FALSE(parse_task_stat("12 (x) R 1 2 3").ok());
  CHECK_FALSE(parse_task_stat("12 x R 1 2 3").ok());
  CHECK_FALSE(parse_task_stat("12 ) R 1 (").ok());
  CHECK_FALSE(parse_task_stat("").ok());
  std::string bad(worker_line);
  bad.replace(bad.find(" 490 "), 5, " 4x0 ");
  CHECK_FALSE(parse_task_stat(bad).ok());
  std::string long_state(worker_line);
  long_state.replace(long_state.find(") R "), 4, ") RR ");
  CHECK_FALSE(parse_task_stat(long_state).ok());
}

TEST_CASE("this process's own stat reads back its pid, parent and group", "[util]") {
  const auto stat = read_process_stat(FsRoot(), ::getpid());
  REQUIRE(stat.ok());
  CHECK(stat->pid == ::getpid());
  CHECK(stat->ppid == ::getppid());
  CHECK(stat->pgrp == ::getpgrp());
  CHECK(stat->start_ticks > 0);
}

TEST_CASE("the stat of a process that is gone is an error naming the path", "[util]") {
  const auto stat = read_process_stat(FsRoot("/nonexistent-root"), 12345);
  REQUIRE_FALSE(stat.ok());
  CHECK_THAT(stat.error().message, Catch::Contains("/proc/12345/stat"));
}
