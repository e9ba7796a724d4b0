#include "launch/outcome.hpp"

#include <fmt/format.h>

#include "procmgr/outcome.hpp"
#include "util/failure.hpp"

namespace mptrain::launch {

Outcome outcome(const procmgr::GroupResult& result, const monitor::Diagnosis& diagnosis, const monitor::Gate& gate,
                const Ending& ending) {
  Outcome out;
  std::string why;
  if (ending.under_mpi && result.forwarded_signal == 0 && result.failed_rank) {
    out.mpi = MpiEnd::abort_job;
    out.mpi_message =
        fmt::format("node {} ends the MPI job on every node: {}", ending.node_rank, procmgr::failure_message(result));
  } else if (ending.under_mpi && result.forwarded_signal != 0) {
    out.mpi = MpiEnd::skip_finalize;
    why = " (the MPI launcher stops every node when one fails or the job is cancelled)";
  }
  if (result.failed_rank) {
    out.exit_code = result.exit_code();
    out.message = procmgr::failure_message(result) + why + ending.hint;
    out.losses_shown = result.output_losses.size();
  } else if (!result.output_losses.empty()) {
    // The workers succeeded but some of their output is lost: exit 1, naming the last loss.
    out.exit_code = exit_code::runtime_failure;
    out.message = procmgr::output_loss_message(result.output_losses.back());
    out.losses_shown = result.output_losses.size() - 1;
  } else if (monitor::fails(diagnosis, gate)) {
    out.exit_code = exit_code::doctor_found;
    out.message = monitor::failed_gate_message(diagnosis, gate);
  }
  return out;
}

}  // namespace mptrain::launch
