// Runs that share a machine (issue 51): a launch plans on the usable CPUs
// the other live runs (util/run_registry.hpp) do not hold, and records what
// it holds for the runs after it. Reading the records, planning and
// recording happen under one lock on the records' directory, so two runs
// started together never plan on the same CPUs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "affinity/plan.hpp"
#include "affinity/planner.hpp"
#include "cluster/identity.hpp"
#include "util/fd.hpp"
#include "util/run_registry.hpp"

namespace mptrain::launch {

// `machine` with the CPUs `others` hold taken out of its usable CPUs, and
// the notes that say so: the runs and what is left; when nothing would be
// left, `machine` as it is and a note that the run shares the others' CPUs.
affinity::Machine free_part(affinity::Machine machine, const std::vector<RunRecord>& others,
                            std::vector<std::string>& notes);

// The other live runs, read under the directory's lock, which is held until
// the run registers (or the claim ends).
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

  // The other live runs.
  const std::vector<RunRecord>& others() const { return others_; }

  // Records what this run holds (`record`) and lets the directory go; a
  // warning (the run goes on unrecorded) when it cannot.
  std::optional<RunRegistration> record(const RunRecord& record, std::string& warning);

 private:
  std::filesystem::path directory_;
  UniqueFd lock_;  // an flock on the directory itself
  std::vector<RunRecord> others_;
};

// The record of a run of `plan` started by this process for `command`.
RunRecord record_of(const affinity::Plan& plan, const std::vector<std::string>& command);

}  // namespace mptrain::launch
