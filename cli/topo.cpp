#include "cli/commands.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

void add_topo_command(CLI::App& app, Runner& runner) {
  auto* command = app.add_subcommand("topo", "(not yet implemented)");
  command->callback([&runner] { runner = [] { runtime_failure("'topo' is not implemented yet"); return 1; }; });
}

}  // namespace mptrain::cli
