// What the machine holds for a launch decision (launch/decide.hpp's Facts),
// looked up on this machine.
#pragma once

#include <string>
#include <vector>

#include "launch/decide.hpp"
#include "launch/request.hpp"

namespace mptrain::launch {

// The facts `request` needs for running `command`: the placement library
// beside this mptrain, the allocator's library, the online NUMA nodes (read
// under MPTRAIN_FSROOT, only when --membind or --interleave asks), whether
// the library reaches the program, and this process's pid.
Facts look_up(const Request& request, const std::vector<std::string>& command);

}  // namespace mptrain::launch
