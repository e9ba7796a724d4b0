// How a finished launch ends: its exit code and error line, which lost
// output to name first, and what an MPI job does about it. A pure function
// of the group's result, the monitor's diagnosis and the --fail-on gate.
#pragma once

#include <cstddef>
#include <string>

#include "monitor/advice.hpp"
#include "procmgr/group.hpp"

namespace mptrain::launch {

// What a node of an MPI job does at the end.
enum class MpiEnd {
  finalize,       // as usual (MPI_Finalize)
  abort_job,      // this node's worker failed on its own: it ends the job on every node (MPI_Abort)
  skip_finalize,  // the job is being torn down (mptrain got a signal): no MPI_Finalize, which would wait
};

// How a launch ends.
struct Outcome {
  int exit_code = 0;
  std::string message;           // the error line; "" when exit_code is 0
  std::size_t losses_shown = 0;  // the first output losses to print as errors before it
  MpiEnd mpi = MpiEnd::finalize;
  std::string mpi_message;  // for abort_job: the error line said before the job ends
};

// Where the launch runs: on a node of an MPI job (`under_mpi`, node
// `node_rank`), and the hint its failure message ends with ("" for none:
// torchrun's interpreter hint).
struct Ending {
  bool under_mpi = false;
  int node_rank = 0;
  std::string hint;
};

// The outcome of `result` with `diagnosis` under `gate`: a failed worker's
// code (a worker that failed on its own aborts an MPI job; a job torn down
// by a signal skips MPI_Finalize and says why), then exit 1 for output lost
// by workers that succeeded (the last loss its message, the others shown
// first), then 3 for a diagnosis that fails the gate, else 0.
Outcome outcome(const procmgr::GroupResult& result, const monitor::Diagnosis& diagnosis, const monitor::Gate& gate,
                const Ending& ending);

}  // namespace mptrain::launch
