// `mptrain run --tuned`: the launch `mptrain tune` found for this command,
// applied before the command line is parsed, as if its options had been typed.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ctime>
#include <filesystem>

#include "cli/commands.hpp"
#include "tune/machine.hpp"
#include "tune/saved.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {
namespace {

// The option name of `word` ("--bind=core" → "--bind"); "" for a word that is no option.
std::string option_name(const std::string& word) {
  if (!word.starts_with("-") || word == "-" || word == "--") return "";
  return word.substr(0, word.find('='));
}

}  // namespace

std::vector<std::string> apply_tuned(std::vector<std::string> args) {
  if (args.size() < 2 || args[1] != "run") return args;
  const auto end = std::find(args.begin() + 2, args.end(), "--");
  const auto tuned = std::find_if(
      args.begin() + 2, end, [](const std::string& word) { return word == "--tuned" || word.starts_with("--tuned="); });
  const bool help = std::any_of(args.begin() + 2, end, [](const std::string& w) { return w == "--help" || w == "-h"; });
  if (tuned == end || help) return args;
  const std::vector<std::string> command(end == args.end() ? end : end + 1, args.end());
  std::string path = tuned->size() > 8 ? tuned->substr(8) : "";
  if (path.empty()) {
    path = tune::saved_path(command, current_environment());
    if (path.empty()) {
      usage_failure(
          "--tuned looks for tune's result under $XDG_CACHE_HOME or $HOME, and neither is set: name the "
          "result, --tuned=FILE (what mptrain tune --save FILE wrote)");
    }
  }
  const std::string what = command.empty() ? "the built-in training" : "'" + shell_command(command) + "'";
  const std::string measure = command.empty() ? "mptrain tune" : tune::tune_command(command);
  std::error_code ignored;
  if (!std::filesystem::exists(path, ignored)) {
    usage_failure("--tuned: no result of mptrain tune for {} in {}: measure one with {}", what, path, measure);
  }
  auto loaded = tune::load_result(path);
  if (!loaded.ok()) usage_failure("--tuned: {}; measure again with {}", loaded.error().message, measure);
  const tune::SavedResult& result = *loaded;
  if (result.command != command) {
    usage_failure("--tuned: {} holds tune's result for {}, not for {}", path,
                  result.command.empty() ? "the built-in training" : "'" + shell_command(result.command) + "'", what);
  }
  const FsRoot root = FsRoot::from_env();
  const auto machine = value_or_fail(affinity::read_this_machine(root));
  const auto options = value_or_fail(tune::tuned_options(result, tune::measured_on(machine, tune::cpu_model(root))),
                                     exit_code::usage_error);
  for (const auto& word : options) {
    const std::string name = option_name(word);
    if (!name.empty() &&
        std::any_of(args.begin() + 2, end, [&](const std::string& w) { return option_name(w) == name; })) {
      usage_failure("--tuned applies {} (tune's result for {}): give no {} beside it, or leave --tuned out",
                    shell_command(options), what, name);
    }
  }
  const long long now = static_cast<long long>(std::time(nullptr));
  const std::string age = tune::age_text(result.saved_at, now);
  if (result.winner) {
    print_note(
        fmt::format("mptrain: run: --tuned: {} (tune's winner for this command, {}x the program bare; measured "
                    "{} ago, {})\n",
                    options.empty() ? "the default plan" : shell_command(options),
                    result.speedup ? fmt::format("{:.2f}", *result.speedup) : "?", age, path));
  } else {
    print_note(
        fmt::format("mptrain: run: --tuned: the default plan (tune found no launch faster than the program "
                    "bare; measured {} ago, {})\n",
                    age, path));
  }
  std::vector<std::string> applied(args.begin(), args.begin() + 2);
  applied.insert(applied.end(), options.begin(), options.end());
  for (auto word = args.begin() + 2; word != args.end(); ++word) {
    if (word != tuned) applied.push_back(*word);
  }
  return applied;
}

}  // namespace mptrain::cli
