// The one reader of /proc/PID/stat (and /proc/PID/task/TID/stat) for code
// that may allocate: the monitor's samples, procmgr's walks of descendants
// and its report of processes that outlived SIGKILL. (Code that runs
// between fork and exec or inside other programs keeps its own
// allocation-free field reader: procmgr/descendants_linux.cpp,
// procmgr/place_preload.c.)
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "util/fs.hpp"
#include "util/result.hpp"

namespace mptrain {

// The fields of a stat line mptrain uses (proc(5) numbers them from 1).
struct TaskStat {
  pid_t pid = 0;                  // field 1
  std::string comm;               // field 2, without its parentheses; may hold spaces and ')'
  char state = '?';               // field 3: R running/runnable, S sleeping, D disk wait, Z zombie, ...
  pid_t ppid = 0;                 // field 4
  pid_t pgrp = 0;                 // field 5: the process group
  std::uint64_t utime_ticks = 0;  // field 14
  std::uint64_t stime_ticks = 0;  // field 15
  int num_threads = 0;            // field 20
  std::uint64_t start_ticks = 0;  // field 22: clock ticks after boot it started
  int last_cpu = -1;              // field 39: the CPU the task last ran on
  bool kernel_thread = false;     // field 9 (flags) has PF_KTHREAD: a kernel thread, no user process
};

// Parses a stat line, taking the comm up to the LAST ')'; an Error when
// malformed (no comm in parentheses, fewer than 39 fields, a bad number).
Result<TaskStat> parse_task_stat(std::string_view text);

// Reads and parses /proc/`pid`/stat under `root`; an Error naming the path
// when it cannot be read (ENOENT: the process is gone), or when malformed.
Result<TaskStat> read_process_stat(const FsRoot& root, pid_t pid);

}  // namespace mptrain
