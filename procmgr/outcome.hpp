// How a group's end reads to a person (pure): the failed worker, what became
// of the others, the output that was lost.
#pragma once

#include <string>
#include <string_view>

#include "procmgr/group.hpp"

namespace mptrain::procmgr {

// "rank 1 (pid 1234) exited with code 7".
std::string describe_worker(const WorkerResult& worker);

// What main prints for the failed worker of `result` (failed_rank set),
// named with the prefix `role` ("training worker "): its rank, pid and how
// it ended, why the others stopped, and the last lines of its stderr.
std::string failure_message(const GroupResult& result, std::string_view role = {});

// What `loss` says, and what to do about it.
std::string output_loss_message(const OutputLoss& loss);

// The warning before restart `restart` of `max_restarts` after the failed attempt `failed`.
std::string restart_message(const GroupResult& failed, int restart, int max_restarts);

}  // namespace mptrain::procmgr
