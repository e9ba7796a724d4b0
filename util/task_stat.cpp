// The /proc/PID/stat reader (see task_stat.hpp).
#include "util/task_stat.hpp"

#include <array>
#include <optional>
#include <string>

#include "util/text.hpp"

namespace mptrain {

namespace {

// PF_KTHREAD in include/linux/sched.h: the task is a kernel thread.
constexpr std::uint64_t pf_kthread = 0x00200000;

// The numeric fields parsed, by their proc(5) number; field 3 (the state) is the first word after ')'.
enum Field : std::size_t { ppid = 4, pgrp = 5, flags = 9, utime = 14, stime = 15, threads = 20, start = 22, cpu = 39 };
constexpr std::array numeric_fields{ppid, pgrp, flags, utime, stime, threads, start, cpu};

}  // namespace

Result<TaskStat> parse_task_stat(std::string_view text) {
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return Error{"malformed stat line (no comm in parentheses)"};
  }
  const auto words = split_words(text.substr(close + 1));
  const auto word = [&words](std::size_t field) { return words[field - 3]; };
  if (words.size() <= Field::cpu - 3 || word(3).size() != 1) return Error{"malformed stat line (too few fields)"};
  std::array<std::uint64_t, Field::cpu + 1> value{};
  for (const std::size_t field : numeric_fields) {
    const auto number = parse_u64(word(field));
    if (!number) return Error{"malformed stat line (bad number)"};
    value[field] = *number;
  }
  const auto pid = parse_u64(trim(text.substr(0, open)));
  if (!pid) return Error{"malformed stat line (bad number)"};
  TaskStat stat;
  stat.pid = static_cast<pid_t>(*pid);
  stat.comm = std::string(text.substr(open + 1, close - open - 1));
  stat.state = word(3)[0];
  stat.ppid = static_cast<pid_t>(value[ppid]);
  stat.pgrp = static_cast<pid_t>(value[pgrp]);
  stat.utime_ticks = value[utime];
  stat.stime_ticks = value[stime];
  stat.num_threads = static_cast<int>(value[threads]);
  stat.start_ticks = value[start];
  stat.last_cpu = static_cast<int>(value[cpu]);
  stat.kernel_thread = (value[flags] & pf_kthread) != 0;
  return stat;
}

Result<TaskStat> read_process_stat(const FsRoot& root, pid_t pid) {
  auto text = root.read("/proc/" + std::to_string(pid) + "/stat");
  if (!text.ok()) return text.error();
  return parse_task_stat(*text);
}

}  // namespace mptrain
