// mptrain's entry point: parse the command line, run the chosen command, and
// turn any failure into "mptrain: error: …" and the spec's exit code.
#include <CLI/CLI.hpp>
#include <exception>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "util/failure.hpp"

int main(int argc, char** argv) {
  using namespace mptrain;
  CLI::App app{"mptrain: a CPU training launcher and oversubscription profiler", "mptrain"};
  app.set_version_flag("--version", "mptrain " MPTRAIN_VERSION);
  app.require_subcommand(1);
  app.footer("Run 'mptrain COMMAND --help' for a command's options. See mptrain(1).");
  cli::use_help_style(app);
  cli::Runner runner;
  cli::add_topo_command(app, runner);
  cli::add_plan_command(app, runner);
  cli::add_run_command(app, runner);
  cli::add_doctor_command(app, runner);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    cli::print_error(std::string(e.what()) + " (see 'mptrain --help')");
    return exit_code::usage_error;
  } catch (const Failure& e) {
    cli::print_error(e.what());
    return e.exit_code();
  }
  try {
    return runner ? runner() : exit_code::usage_error;
  } catch (const Failure& e) {
    cli::print_error(e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    cli::print_error(e.what());
    return exit_code::runtime_failure;
  }
}
