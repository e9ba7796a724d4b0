#include <unistd.h>

#include "launch/facts.hpp"
#include "procmgr/allocator.hpp"
#include "procmgr/tree_placement.hpp"
#include "util/fs.hpp"
#include "util/pinning.hpp"

namespace mptrain::launch {

Facts look_up(const Request& request, const std::vector<std::string>& command) {
  Facts facts;
  facts.place_library = procmgr::find_place_library();
  facts.allocator = procmgr::find_allocator(request.allocator, FsRoot());
  if (!request.membind.empty() || !request.interleave.empty()) facts.numa_nodes = read_online_nodes(FsRoot::from_env());
  if (!command.empty()) facts.program_reach = procmgr::program_reach_warning(command.front(), request.children);
  facts.launcher = static_cast<int>(::getpid());
  return facts;
}

}  // namespace mptrain::launch
