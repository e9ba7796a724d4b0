// Finding a TCP port for MASTER_PORT.
#pragma once

#include "util/result.hpp"

namespace mptrain::procmgr {

// A TCP port that was free on all IPv4 interfaces a moment ago (the kernel
// picks it by binding port 0); an Error naming the failed call otherwise.
Result<int> find_free_port();

}  // namespace mptrain::procmgr
