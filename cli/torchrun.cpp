// `mptrain torchrun [torchrun options] (SCRIPT | -m MODULE | --no-python CMD) [ARGS…]`:
// torchrun's command line (read by cluster/torchrun.hpp, translated by
// cluster/torchrun_launch.hpp) wired into run_launcher with torchrun's
// variables, log layout and error files.
#include "cluster/torchrun.hpp"

#include <fmt/format.h>

#include <exception>
#include <filesystem>
#include <memory>
#include <system_error>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "cluster/torchrun_files.hpp"
#include "cluster/torchrun_launch.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

namespace {

// The rows of mptrain's own options that torchrun takes, with the help
// (and default) and arity `run` (`run_command`) gives them; `helps` keeps the texts.
std::vector<cluster::TorchrunOption> mptrain_rows(const CLI::App& run_command, std::vector<std::string>& helps) {
  const auto names = cluster::torchrun_mptrain_option_names();
  helps.reserve(names.size());  // the rows point into it
  std::vector<cluster::TorchrunOption> rows;
  for (const auto name : names) {
    const CLI::Option* option = run_command.get_option(std::string(name));  // throws if run lacks it
    const auto& fallback = option->get_default_str();
    helps.push_back(option->get_description() + (fallback.empty() ? "" : " [" + fallback + "]"));
    rows.push_back(cluster::mptrain_option(name, option->get_expected_min() > 0, helps.back()));
  }
  return rows;
}

// The `mptrain run` options a torchrun command line may carry (--children,
// --bind, …), parsed as `mptrain run` parses them, once: the user's words.
class MptrainOptions {
 public:
  MptrainOptions() {
    add_placement_options(app_, options.placement);
    add_sharing_options(app_, options.placement.sharing);
    app_.add_flag("--json", options.json);
    add_fail_on_options(app_, options.gate);
    app_.add_flag("--quiet", options.quiet);
    app_.add_flag("--verbose", options.verbose);
    options.launch = add_launch_options(app_);
  }

  // Parses `words` into `options`; a usage failure for a bad one.
  void parse(const std::vector<std::string>& words) {
    std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 takes the words last first
    try {
      app_.parse(reversed);
    } catch (const CLI::ParseError& error) {
      usage_failure("{} (see 'mptrain torchrun --help')", error.what());
    }
  }

  RunOptions options;

 private:
  CLI::App app_{"mptrain torchrun", "mptrain torchrun"};
};

// Fills `options` with what torchrun's own options ask for (`placement`), in torchrun's spelling.
void take_placement(const cluster::TorchrunPlacement& placement, RunOptions& options) {
  if (placement.workers > affinity::max_count)
    usage_failure("--nproc-per-node {}: more workers than mptrain plans (at most {})", *placement.workers,
                  affinity::max_count);
  auto& request = options.placement.request;
  request.num_processes = placement.workers;
  request.one_per_cpu = placement.one_per_cpu;
  request.spellings = torchrun_spellings;
  auto& nodes = options.placement.nodes;
  if (placement.nodes) nodes.nnodes = placement.nodes;
  if (placement.node_rank) nodes.node_rank = placement.node_rank;
  auto& launch = *options.launch;
  launch.spellings = torchrun_spellings;
  if (!placement.master_addr.empty()) launch.master_addr = nodes.master_addr = placement.master_addr;
  launch.master_port = placement.master_port;
  if (placement.max_restarts) launch.max_restarts = *placement.max_restarts;
}

// Removes the temporary run folder when the run ends well; a run that
// fails keeps it (its summary names the error files in it) and says so.
class RunDirCleanup {
 public:
  explicit RunDirCleanup(std::filesystem::path dir) : dir_(std::move(dir)) {}
  RunDirCleanup(const RunDirCleanup&) = delete;
  RunDirCleanup& operator=(const RunDirCleanup&) = delete;
  ~RunDirCleanup() {
    if (dir_.empty()) return;
    if (std::uncaught_exceptions() > 0 && cluster::holds_files(dir_)) {
      print_note(fmt::format("mptrain: kept {}: the failed run's error files are there\n", dir_.string()));
      return;
    }
    cluster::remove_run_folder(dir_);
  }

 private:
  std::filesystem::path dir_;
};

// What the launch adds for torchrun: its variables, run folder and summary.
std::shared_ptr<const cluster::TorchrunSettings> settings_of(const cluster::TorchrunArgs& args,
                                                             const std::vector<std::string>& env, bool dry_run) {
  value_or_fail(cluster::check_log_dir(args), exit_code::usage_error);
  std::error_code ignored;
  auto settings = value_or_fail(cluster::torchrun_settings(args, env, std::filesystem::current_path(ignored), dry_run));
  if (settings.announce_run_dir) {
    print_note(fmt::format("mptrain: no --log-dir: the workers' log files are in {}\n", settings.run_dir.string()));
  }
  return std::make_shared<const cluster::TorchrunSettings>(std::move(settings));
}

int run_torchrun(const std::vector<std::string>& words, const CLI::App& run_command) {
  const auto environment = current_environment();
  std::vector<std::string> helps;
  const auto mptrain_options = mptrain_rows(run_command, helps);
  const auto args =
      value_or_fail(cluster::parse_torchrun_args(words, environment, mptrain_options), exit_code::usage_error);
  if (args.help) {
    print_report(cluster::torchrun_help(mptrain_options));
    return exit_code::success;
  }
  value_or_fail(cluster::check_accepted_options(args), exit_code::usage_error);
  const auto placement = value_or_fail(cluster::torchrun_placement(args, environment), exit_code::usage_error);
  for (const auto& warning : placement.warnings) print_warning(warning);
  MptrainOptions mptrain;
  mptrain.parse(args.mptrain_args);
  auto& options = mptrain.options;
  take_placement(placement, options);
  options.command = value_or_fail(cluster::program_words(args, environment), exit_code::usage_error);
  options.launch->torchrun = settings_of(args, environment, options.launch->dry_run);
  const auto& torchrun = *options.launch->torchrun;
  RunDirCleanup cleanup(torchrun.remove_run_dir ? torchrun.run_dir : std::filesystem::path());
  return run_launcher(options);
}

}  // namespace

void add_torchrun_command(CLI::App& app, Runner& runner) {
  auto words = std::make_shared<std::vector<std::string>>();
  const CLI::App* run_command = app.get_subcommand("run");  // mptrain's own options are run's
  auto* command = app.add_subcommand(
      "torchrun", "torchrun's command line, unchanged, with mptrain's plan, pinning, monitor and error summary");
  command->prefix_command();
  command->set_help_flag();  // -h/--help are torchrun's options, answered by run_torchrun
  command->callback([&runner, words, command, run_command] {
    *words = command->remaining();
    runner = [words, run_command] { return run_torchrun(*words, *run_command); };
  });
}

}  // namespace mptrain::cli
