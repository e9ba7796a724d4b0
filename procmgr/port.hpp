// Finding a TCP port for MASTER_PORT.
#pragma once

#include "util/result.hpp"

namespace mptrain::procmgr {

// A TCP port that was free on all IPv4 interfaces a moment ago (the kernel
// picks it by binding port 0); an Error naming the failed call otherwise.
Result<int> find_free_port();

// True when a socket on this machine holds TCP `port`, so rank 0 of a
// torch.distributed job could not listen there. SO_REUSEADDR, as a TCP store
// sets it, so connections in TIME_WAIT do not count.
bool port_in_use(int port);

}  // namespace mptrain::procmgr
