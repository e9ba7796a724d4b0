// mptrain's entry point: parse the command line, run the chosen command, and
// turn any failure into "mptrain: error: …" and the spec's exit code; then
// make sure the report reached stdout (finish_stdout).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "util/failure.hpp"
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

// The option of `command` (or of mptrain itself, such as --help) named
// `name` ("-n", "--json"), or nullptr.
const CLI::Option* find_option(const CLI::App& app, const CLI::App& command, const std::string& name) {
  if (const CLI::Option* option = command.get_option_no_throw(name); option != nullptr) return option;
  return app.get_option_no_throw(name);
}

// Throws a usage Failure for a word of `args` (the words after the command
// `command`, up to "--") that CLI11 would misread: a flag given a value
// ("--json=abc", which CLI11 reads as true or false), an option whose value
// is missing because the next word is an option ("-n --json"), a short
// option glued to its value with '=' ("-n=2") and a long option written with
// one dash ("-num-processes", which CLI11 reads as -n um-processes).
void check_option_words(const CLI::App& app, const CLI::App& command, std::span<char* const> args) {
  const std::string see = fmt::format(" (see 'mptrain {} --help')", command.get_name());
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string word = args[i];
    if (word == "--") return;
    if (!word.starts_with('-') || word.size() < 2) continue;
    const auto equals = word.find('=');
    const std::string name = word.substr(0, equals);
    if (!word.starts_with("--")) {
      const CLI::Option* spelled_long = find_option(app, command, "-" + name);
      if (name.size() > 2 && spelled_long != nullptr) {
        usage_failure("{}: did you mean -{}? A long option starts with two dashes{}", word, word, see);
      }
      const CLI::Option* short_option = find_option(app, command, word.substr(0, 2));
      if (word.size() > 2 && word[2] == '=' && short_option != nullptr && short_option->get_expected_min() > 0) {
        usage_failure("{}: a short option takes its value after a space: {} {} (or {}={}){}", word, word.substr(0, 2),
                      word.substr(3), short_option->get_name(), word.substr(3), see);
      }
    }
    const CLI::Option* option = find_option(app, command, name);
    if (option == nullptr) continue;
    if (option->get_expected_max() == 0) {
      if (equals != std::string::npos) usage_failure("{} takes no value: write {}{}", name, name, see);
      continue;
    }
    if (equals != std::string::npos || i + 1 == args.size()) continue;
    const std::string next = args[i + 1];
    const bool next_is_option =
        next.starts_with('-') && find_option(app, command, next.substr(0, next.find('='))) != nullptr;
    if (next == "--" || next_is_option) {
      usage_failure("{} needs a value ({}) right after it, but the next word is {}{}", word, option->get_type_name(),
                    next == "--" ? "'--'" : "the option " + next, see);
    }
    ++i;  // the option's value, which may start with '-' ("-5")
  }
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
  return parse_error_in_words(error.what(), command, names_of) + see_command;
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

}  // namespace

int main(int argc, char** argv) {
  cli::reserve_standard_streams();
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
  int write_error = 0;
  const int code =
      parse_and_run(app, runner, std::span<char* const>(argv, static_cast<std::size_t>(argc)), write_error);
  return cli::finish_stdout(code, write_error);
}
