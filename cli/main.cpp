// mptrain's entry point: parse the command line, run the chosen command, and
// turn any failure into "mptrain: error: …" and the spec's exit code; then
// make sure the report reached stdout (finish_stdout).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "procmgr/environment.hpp"
#include "procmgr/tree_placement.hpp"
#include "util/failure.hpp"
#include "util/fd.hpp"
#include "util/parse_errors.hpp"
#include "util/text.hpp"

namespace {

using namespace mptrain;

// "topo, plan, run and doctor": the commands `app` knows.
std::string command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({})) names.push_back(command->get_name());
  return joined_list(names, "and");
}

bool is_command(const CLI::App& app, std::string_view word) {
  for (const CLI::App* command : app.get_subcommands({})) {
    if (command->get_name() == word) return true;
  }
  return false;
}

// The names of the option `name` of the chosen command, as CLI11 lists them; `name` when it has none.
std::string option_names(const CLI::App& app, const std::string& name) {
  std::string names = name;
  for (const CLI::App* command : app.get_subcommands()) {
    if (const CLI::Option* option = command->get_option_no_throw(name); option != nullptr) {
      names = option->get_name(false, true);
    }
  }
  return names;
}

// The long names of the options of `command` ("--children", "--help"), for the near name of a mistyped one.
std::vector<std::string> long_option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

// Throws a usage Failure for a word of `args` (the words after the command
// `command`) that CLI11 would misread (check_option_words, util/parse_errors.hpp).
void check_option_words(const CLI::App& app, const CLI::App& command, std::span<char* const> args) {
  const auto find = [&](const std::string& name) -> std::optional<OptionShape> {
    const CLI::Option* option = command.get_option_no_throw(name);
    if (option == nullptr) option = app.get_option_no_throw(name);  // mptrain's own, such as --help
    if (option == nullptr) return std::nullopt;
    return OptionShape{option->get_name(), option->get_expected_min(), option->get_expected_max(),
                       option->get_type_name()};
  };
  const auto see = fmt::format(" (see 'mptrain {} --help')", command.get_name());
  value_or_fail(mptrain::check_option_words({args.begin(), args.end()}, find, see), exit_code::usage_error);
}

// What to say for a parse `error` of `args`: CLI11's words, except when no
// command was chosen, where CLI11 would say only "A subcommand is required".
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& error, std::span<char* const> args) {
  const std::string see = " (see 'mptrain --help')";
  if (app.get_subcommands().empty() && !args.empty()) {
    const std::string_view first = args.front();
    if (first.starts_with('-')) {
      return fmt::format("unknown option '{}' before any command; the commands are {}, each with its own options{}",
                         first, command_names(app), see);
    }
    if (!is_command(app, first)) {
      return fmt::format("unknown command '{}'; the commands are {}{}", first, command_names(app), see);
    }
  }
  if (std::string_view(error.what()).starts_with("A subcommand")) {
    return fmt::format("no command given; the commands are {}{}", command_names(app), see);
  }
  // From here on a command was chosen: its own --help lists its options.
  const auto chosen = app.get_subcommands();
  const std::string command = chosen.empty() ? std::string() : chosen.front()->get_name();
  const std::string see_command = command.empty() ? see : fmt::format(" (see 'mptrain {} --help')", command);
  const auto names_of = [&app](const std::string& name) { return option_names(app, name); };
  const auto known = chosen.empty() ? std::vector<std::string>() : long_option_names(*chosen.front());
  return parse_error_in_words(error.what(), command, names_of, known) + see_command;
}

// Parses `args` and runs the chosen command; returns the exit code. A failed
// write of the report that escaped as an exception is stored in `write_error`.
int parse_and_run(CLI::App& app, const cli::Runner& runner, std::span<char* const> args, int& write_error) {
  try {
    // torchrun's words are its own (cli/torchrun.cpp reads them): "--" may be one of its script's arguments.
    const bool torchrun = args.size() > 1 && std::string_view(args[1]) == "torchrun";
    if (!torchrun) cli::check_command_words(args.subspan(1));
    for (const CLI::App* command : app.get_subcommands({})) {
      if (!torchrun && args.size() > 1 && command->get_name() == args[1]) {
        check_option_words(app, *command, args.subspan(2));
      }
    }
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::Success& e) {  // --help, --help-all, --version: printed by app.exit
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    cli::print_error(parse_error_message(app, e, args.subspan(1)));
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
    if (const auto* system = dynamic_cast<const std::system_error*>(&e); system != nullptr && std::ferror(stdout)) {
      write_error = system->code().value();  // fmt::print to stdout failed: finish_stdout says so
      return exit_code::success;
    }
    cli::print_error(e.what());
    return exit_code::runtime_failure;
  }
}

// A launch (run, torchrun, tune) started inside a worker of another mptrain
// run plans, places and caps its own workers: it execs itself again without
// what the outer run set for its workers, its placement library above all
// (loaded here, it would take this mptrain's pinning of its workers for a
// program's own). Returns only when there is nothing to leave or the exec
// failed (the launch then goes on as it is).
void leave_outer_run(char** argv) {
  if (argv[0] == nullptr || argv[1] == nullptr) return;
  const std::string_view command = argv[1];
  if (command != "run" && command != "torchrun" && command != "tune") return;
  const auto outside = procmgr::outside_outer_run(current_environment(), procmgr::place_library_name);
  if (!outside) return;
  std::vector<char*> envp;
  for (const auto& entry : *outside) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  ::execve("/proc/self/exe", argv, envp.data());
}

}  // namespace

int main(int argc, char** argv) {
  reserve_standard_descriptors();
  leave_outer_run(argv);
  CLI::App app{"mptrain: a CPU training launcher and oversubscription profiler", "mptrain"};
  app.set_version_flag("--version", cli::version_text);
  app.require_subcommand(1);
  app.footer("Run 'mptrain COMMAND --help' for a command's options. See mptrain(1).");
  cli::use_help_style(app);
  cli::Runner runner;
  cli::add_topo_command(app, runner);
  cli::add_plan_command(app, runner);
  cli::add_run_command(app, runner);
  cli::add_doctor_command(app, runner);
  cli::add_torchrun_command(app, runner);
  cli::add_tune_command(app, runner);
  // `run --tuned`: tune's saved options in its place, before parsing.
  std::vector<std::string> words(argv, argv + argc);
  try {
    words = cli::apply_tuned(std::move(words));
  } catch (const Failure& e) {
    cli::print_error(e.what());
    return e.exit_code();
  }
  std::vector<char*> args;
  for (auto& word : words) args.push_back(word.data());
  args.push_back(nullptr);
  int write_error = 0;
  const int code = parse_and_run(app, runner, std::span<char* const>(args.data(), words.size()), write_error);
  return cli::finish_stdout(code, write_error);
}
