#include "cli/run.hpp"

#include "cli/commands.hpp"

namespace mptrain::cli {

void add_run_command(CLI::App& app, Runner& runner) {
  auto options = std::make_shared<RunOptions>();
  auto* command = app.add_subcommand("run", "Train with the built-in Hogwild core, or launch `-- CMD ARGS...` M times");
  add_placement_options(*command, options->placement);
  command->add_flag("--json", options->json, "Print the final report as one JSON document on stdout");
  options->train = add_train_options(*command);
  options->launch = add_launch_options(*command);
  // Every word after "--" is taken verbatim: by default CLI11 would split a
  // word such as "[a,b]" into a list, which breaks commands like `sh -c '[ … ]'`.
  constexpr int all_words = CLI::detail::expected_max_vector_size;
  command->add_option("command", options->command, "Program and arguments to launch, after --")
      ->allow_extra_args(false)
      ->expected(all_words, all_words)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command->callback([&runner, options] {
    runner = [options] { return options->command.empty() ? run_training(*options) : run_launcher(*options); };
  });
}

}  // namespace mptrain::cli
