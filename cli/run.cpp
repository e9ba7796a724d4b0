#include "cli/run.hpp"

#include "cli/commands.hpp"
#include "util/failure.hpp"
#include "util/fs.hpp"
#include "util/pinning.hpp"

namespace mptrain::cli {

namespace {

// Refuses (usage error) any option of the option group starting with `group`
// that was given: training options with a command, launcher options without one.
void refuse_other_modes_options(const CLI::App& command, std::string_view group) {
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0 || !option->get_group().starts_with(group)) continue;
    if (group == "Training") {
      usage_failure("{} is a training option, but a command to launch was given after --; drop one of them",
                    option->get_name());
    }
    usage_failure("{} applies only when launching a command (run [options] -- CMD ARGS...)", option->get_name());
  }
}

}  // namespace

monitor::RunMonitor::Detail monitor_detail(const RunOptions& options) {
  using Detail = monitor::RunMonitor::Detail;
  if (options.quiet) return Detail::quiet;
  return options.verbose ? Detail::full : Detail::short_when_healthy;
}

void add_run_command(CLI::App& app, Runner& runner) {
  auto options = std::make_shared<RunOptions>();
  auto* command = app.add_subcommand("run", "Train with the built-in Hogwild core, or launch `-- CMD ARGS...` M times");
  add_placement_options(*command, options->placement);
  add_sharing_options(*command, options->placement.sharing);
  command->add_flag("--json", options->json, "Print the final report as one JSON document on stdout");
  add_fail_on_options(*command, options->gate);
  auto* quiet = command->add_flag("--quiet", options->quiet,
                                  "The monitor's part of the report: its verdict line and each fix only");
  command
      ->add_flag("--verbose", options->verbose,
                 "The monitor's whole report even for a healthy run (which gets two lines without it)")
      ->excludes(quiet);
  // Read and replaced before parsing (cli/tuned.cpp): registered for --help and the option checks.
  command
      ->add_option("--tuned", options->tuned,
                   "Apply the launch mptrain tune found for this command: its saved result, or with =FILE that file's")
      ->expected(0, 1)
      ->type_name("FILE");
  options->train = add_train_options(*command);
  options->launch = add_launch_options(*command);
  add_command_words(*command, options->command, "Program and arguments to launch, after --");
  command->callback([&runner, options, command] {
    refuse_other_modes_options(*command, options->command.empty() ? "Launcher" : "Training");
    // The launcher's --master-addr also says whether every node runs on this host (cluster/identity.hpp).
    if (const auto* master = command->get_option_no_throw("--master-addr"); master != nullptr && master->count() > 0) {
      options->placement.nodes.master_addr = master->as<std::string>();
    }
    runner = [options] { return options->command.empty() ? run_training(*options) : run_launcher(*options); };
  });
}

}  // namespace mptrain::cli
