#include "cli/run.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

struct LaunchOptions {};

std::shared_ptr<LaunchOptions> add_launch_options(CLI::App&) { return std::make_shared<LaunchOptions>(); }

int run_launcher(const RunOptions&) { runtime_failure("not implemented yet"); }

}  // namespace mptrain::cli
