#include "cli/commands.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

void add_doctor_command(CLI::App& app, Runner& runner) {
  auto* command = app.add_subcommand("doctor", "(not yet implemented)");
  command->callback([&runner] { runner = [] { runtime_failure("'doctor' is not implemented yet"); return 1; }; });
}

}  // namespace mptrain::cli
