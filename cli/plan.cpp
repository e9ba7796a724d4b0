#include "cli/commands.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

void add_plan_command(CLI::App& app, Runner& runner) {
  auto* command = app.add_subcommand("plan", "(not yet implemented)");
  command->callback([&runner] { runner = [] { runtime_failure("'plan' is not implemented yet"); return 1; }; });
}

}  // namespace mptrain::cli
