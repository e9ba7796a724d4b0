// Runs that share a machine (issue 51): a launch plans on the usable CPUs
// the other live runs (util/run_registry.hpp) do not hold, and records what
// it holds for the runs after it. Reading the records, planning and
// recording happen under one lock on the records' directory, so two runs
// never plan on the same CPUs.
//
// Runs started together (a sweep from a shell loop) see each other: a run
// records itself as planning, then waits a short start window (0.25 s,
// MPTRAIN_START_WINDOW) after the latest run that arrived with it before
// it plans, so that each takes its fair part of the free CPUs rather than
// the first taking them all. When the free CPUs are not enough, --when-busy
// chooses: share (the fair part of the machine, on the CPUs the fewest
// runs hold, its OpenMP threads waiting passively), wait (a FIFO queue), or
// fail (exit 75, as does a wait that times out).
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "affinity/plan.hpp"
#include "affinity/planner.hpp"
#include "cluster/identity.hpp"
#include "monitor/finding.hpp"
#include "util/fd.hpp"
#include "util/names.hpp"
#include "util/result.hpp"
#include "util/run_registry.hpp"

namespace mptrain::launch {

// The exit code of a run that found the machine busy and was told to fail,
// or waited longer than --wait-timeout: sysexits' EX_TEMPFAIL, "try again later".
inline constexpr int busy_exit_code = 75;

// What a run does when the free CPUs are not enough for it.
enum class WhenBusy { share, wait, fail };
inline constexpr std::array when_busy_names{Named<WhenBusy>{WhenBusy::share, "share"},
                                            Named<WhenBusy>{WhenBusy::wait, "wait"},
                                            Named<WhenBusy>{WhenBusy::fail, "fail"}};

// The options of a run about the others.
struct Sharing {
  WhenBusy when_busy = WhenBusy::share;
  double wait_timeout_s = 0;   // --wait-timeout: 0 waits as long as it takes
  bool ignore_others = false;  // --ignore-others: plan on every usable CPU, as if alone
};

// Where a run plans, given the other live runs.
struct Portion {
  affinity::Machine machine;       // what to plan on: the free part, or the fair part when busy
  bool busy = false;               // the free CPUs were fewer than the run needs
  bool shares_cpus = false;        // other runs' threads are on these CPUs: its pools should wait passively
  std::vector<std::string> notes;  // what the plan says about the others
  std::string holders;             // the runs that hold the usable CPUs, for a message
};

// Where the run `self` (its arrival, need and elasticity) plans on
// `machine` beside `others` (every other live run): alone, it gets the
// machine; else the usable CPUs the running others do not hold, less what
// runs queued before it need, divided among the runs that arrived with it
// (arrivals no more than `window` apart: an elastic run takes its equal
// part, at least its need; a run with a fixed size its need). Busy when
// that is not enough: the machine is then its fair part (N over the live
// runs, at least its need) on the CPUs the fewest running others hold.
Portion portion(affinity::Machine machine, const std::vector<RunRecord>& others, const RunRecord& self,
                std::chrono::nanoseconds window);

// The other live runs on `cpus`, one per line ("pid 12 (uid 1000, CPUs 0-1, 2x1): python3 train.py"), for a report.
std::vector<std::string> describe_runs(const std::vector<RunRecord>& runs, const CpuSet& cpus);

// "HEADING: N" (or "none") and a line per run of `runs` (describe_runs), indented, for a text report.
std::string runs_listing(std::string_view heading, const std::vector<RunRecord>& runs);

// `runs` as a JSON array of objects: pid, uid, state, cpus, numa_nodes,
// workers, threads, need, started (seconds since the epoch) and command.
nlohmann::json runs_json(const std::vector<RunRecord>& runs);

// A reader of the other live mptrain runs in `directory` (not this process
// nor its ancestors), for a monitor to name them (monitor::LiveMonitor::watch_other_runs).
std::function<std::vector<monitor::OtherRun>()> other_runs_reader(std::filesystem::path directory);

// The start window: MPTRAIN_START_WINDOW seconds (0 plans at once), else
// 0.25 s; an Error naming the variable when it is not a number of seconds from 0 to 10.
Result<std::chrono::nanoseconds> start_window();

// The other live runs, read under the directory's lock, which is held until
// the run records what it holds (or the claim ends).
class MachineClaim {
 public:
  // Locks `directory` and reads its live runs, leaving out this process's
  // ancestors (a run started inside another's worker shares its CPUs by
  // design); a claim of no runs, and a warning, when the directory cannot be
  // used (the run then plans as if alone).
  static MachineClaim open(const std::filesystem::path& directory, std::string& warning);

  // A claim that reads no runs and takes no lock, for a run whose host the
  // mptrain processes of its job split themselves (several nodes on one
  // host agree over MPI while planning: a lock held then would stop them).
  static MachineClaim without_others(const std::filesystem::path& directory);

  // open() for a run alone on its host (`node`: one node, one mptrain on the host), else without_others().
  static MachineClaim for_node(const cluster::NodeIdentity& node, const std::filesystem::path& directory,
                               std::string& warning);

  // Whether the claim sees other runs at all (open() on a usable directory).
  bool active() const { return directory_fd_.valid(); }

  // The other live runs.
  const std::vector<RunRecord>& others() const { return others_; }

  // Where this run plans (`self`: arriving_record()). A run that will hold CPUs (`records`) records itself as
  // planning and waits out the start window (`window`: start_window()); one that is busy then does
  // as `sharing` says: shares, waits (its record queued; `progress` gets a
  // line when it starts waiting and every 30 s), or fails. An Error with
  // busy_exit_code for fail and for a wait past its timeout. The lock is
  // held when it returns, until record(). `stopped` is asked between polls
  // while it waits (the start window, a queue): true (a stop signal held,
  // procmgr::PendingSignals) ends the wait with an Error and its record
  // removed.
  Result<Portion> place(const affinity::Machine& machine, RunRecord self, const Sharing& sharing,
                        std::chrono::nanoseconds window, bool records,
                        const std::function<void(const std::string&)>& progress,
                        const std::function<bool()>& stopped = {});

  // Records what this run holds (its `plan`, as place() placed it) and
  // lets the directory go; a warning (the run goes on unrecorded) when it cannot.
  std::optional<RunRegistration> record(const affinity::Plan& plan, std::string& warning);

 private:
  void lock();
  void unlock();
  void read_others();

  std::filesystem::path directory_;
  UniqueFd directory_fd_;  // the directory, flock'ed while locked_
  bool locked_ = false;
  std::vector<RunRecord> others_;
  std::optional<RunRegistration> registration_;  // the planning or waiting record
  RunRecord self_;                               // this run as it arrived
};

// The record of this process arriving to run `command` (empty: the built-in
// training) as `workers` workers that need `need` CPUs, `elastic` when they
// take every CPU they are given: planning, on no CPUs yet.
RunRecord arriving_record(const std::vector<std::string>& command, int workers, int need, bool elastic);

// `arrived` running `plan`: the CPUs and NUMA nodes its workers hold, M and T.
RunRecord record_of(const affinity::Plan& plan, RunRecord arrived);

}  // namespace mptrain::launch
