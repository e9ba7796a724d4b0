// The machine-wide record of live mptrain runs (issue 51, its first part):
// what each run holds (its CPUs, NUMA nodes, workers and threads, owner,
// command, start), so that runs sharing a machine can plan on what is free
// and the doctor can name them. No daemon: each run writes one file in a
// directory every user shares and holds an flock(2) on it for its life;
// the kernel drops the lock when the last process holding the file dies,
// SIGKILL included, so a reader tells a live record from one a dead run
// left by trying the lock, never by its pid (which may be reused).
//
// Trust: the directory must be a real directory (not a link), owned by
// root or this user, and sticky when others may write it (as /tmp), so no
// one removes or replaces another's record; a record is read only from a
// regular file (opened O_NOFOLLOW) owned by the uid it names and writable
// by its owner alone. Anything else is skipped, never followed.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/cpu_set.hpp"
#include "util/fd.hpp"
#include "util/result.hpp"

namespace mptrain {

// Where a run stands: choosing its CPUs (in the window in which runs
// started together see each other), queued for free CPUs (--when-busy
// wait), or running on the CPUs its record names.
enum class RunState { planning, waiting, running };

// "planning", "waiting" or "running".
std::string_view to_string(RunState state);

// What one live run holds.
struct RunRecord {
  pid_t pid = 0;             // the mptrain process, in the writer's PID namespace
  std::uint64_t start = 0;   // its start time (/proc/PID/stat field 22)
  uid_t uid = 0;             // its owner
  CpuSet cpus;               // the CPUs its workers are pinned to (all it may use when unpinned)
  CpuSet nodes;              // the NUMA nodes those CPUs lie in
  int workers = 0;           // M
  int threads = 0;           // T per worker
  std::int64_t started = 0;  // when it started (seconds since the epoch)
  std::string command;       // what it runs, one line
  RunState state = RunState::running;
  std::int64_t arrived = 0;  // when it first recorded itself (ns since the epoch): the order of the queue
  int need = 1;              // the fewest CPUs it runs on: M, or M x T where T was given
  bool elastic = true;       // takes every CPU it is given (T was not given)

  bool operator==(const RunRecord&) const = default;
};

// `record` as its file holds it: "key value" lines.
std::string record_text(const RunRecord& record);

// The record `text` holds; an Error naming the first line that is not one
// of record_text's, a missing key, or a value out of range.
Result<RunRecord> parse_record(std::string_view text);

// The directory of the records: MPTRAIN_RUNS_DIR when set (tests give each
// run their own), else /dev/shm itself (memory, gone at reboot; owned by
// root and sticky, so every user's runs trust it, which a directory the
// first user to run mptrain made would not be: its owner could replace
// others' records). The records are its files named mptrain-run-UID-PID-TOKEN.
std::filesystem::path runs_directory();

// Makes `directory` (mode 1777, as /tmp) when missing; an Error when it
// cannot be made or trusted (a link, another user's, others may write it
// and it is not sticky).
Status prepare_runs_directory(const std::filesystem::path& directory);

// This run's record, held for its life: the file is written, locked and
// removed when the registration is destroyed (a run that dies unreaped
// leaves a file no reader takes for live, and the next registration of its
// owner removes it).
class RunRegistration {
 public:
  // Registers `record` in `directory`, creating the directory (mode 1777)
  // when missing; an Error when the directory cannot be trusted or written.
  static Result<RunRegistration> create(const std::filesystem::path& directory, const RunRecord& record);

  RunRegistration(RunRegistration&& other) noexcept;
  RunRegistration& operator=(RunRegistration&& other) noexcept;
  RunRegistration(const RunRegistration&) = delete;
  RunRegistration& operator=(const RunRegistration&) = delete;
  ~RunRegistration();

  // The record's file.
  const std::filesystem::path& path() const { return path_; }

  // Rewrites the record in place (the run planned, queued or grew); an
  // Error when it cannot be written, the old record then standing.
  Status update(const RunRecord& record);

 private:
  RunRegistration() = default;
  std::filesystem::path path_;
  UniqueFd fd_;  // holds the flock
};

// The live runs recorded in `directory` (none when it does not exist);
// records of dead runs and files that cannot be trusted are skipped. An
// Error when the directory itself cannot be trusted.
Result<std::vector<RunRecord>> live_runs(const std::filesystem::path& directory);

}  // namespace mptrain
