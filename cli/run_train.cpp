// `mptrain run [placement] [training options]`: the built-in Hogwild
// training. Plan the workers, load the data and the model into shared
// memory, fork M pinned workers that update the model lock-free, show
// progress and each epoch's evaluation, then stop a diverged run, save,
// evaluate and report. The policy is hogwild/training.hpp's.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "cluster/rendezvous.hpp"
#include "hogwild/checkpoint.hpp"
#include "hogwild/node_sync.hpp"
#include "hogwild/progress.hpp"
#include "hogwild/save.hpp"
#include "hogwild/training.hpp"
#include "launch/report.hpp"
#include "launch/sharing.hpp"
#include "launch/train.hpp"
#include "monitor/run_monitor.hpp"
#include "procmgr/signals.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

// The training options: the run's configuration (its defaults are hogwild's),
// and --sync-every and --lr-scaling, which matter across nodes only.
struct TrainOptions {
  hogwild::TrainConfig config;
  std::vector<const CLI::Option*> node_options;
};

namespace {

// --lr's check: at least 0, and no larger than the float the kernels keep it in can hold.
CLI::Validator learning_rate_range() {
  constexpr double largest = std::numeric_limits<float>::max();
  return bounded(fmt::format("from 0 to {:.6g} (the largest float)", largest),
                 [](double rate) { return rate >= 0 && rate <= largest; });
}

// --data, then the hyper-parameters: --model, --epochs, --batch-size, --lr, --momentum and --seed.
void add_data_and_model(CLI::App& command, hogwild::TrainConfig& config) {
  auto& settings = config.settings;
  command.add_option("--data", config.data, "Directory of MNIST-format IDX files, plain or .gz")
      ->type_name("DIR")
      ->check(non_empty());
  add_word_option(command, "--model", settings.model, hogwild::model_names,
                  "Network: " + names_list(hogwild::model_names), &config.model_given)
      ->type_name("MODEL");
  command.add_option("--epochs", settings.epochs, "Passes over the training set per worker")
      ->transform(whole_number(0));
  command.add_option("--batch-size", settings.batch_size, "Samples per optimiser step")
      ->transform(whole_number(1, 1 << 20));
  command.add_option("--lr", settings.learning_rate, "SGD learning rate")->transform(learning_rate_range());
  command.add_option("--momentum", settings.momentum, "SGD momentum, each worker its own")->transform(from_to(0, 1));
  command.add_option("--seed", settings.seed, "Seed of initialisation, shuffles (seed + rank) and dropout")
      ->transform(whole_number(0, std::numeric_limits<long long>::max()));
}

// --save-model, --resume, --eval-every-epoch and --train-limit.
void add_run_files(CLI::App& command, hogwild::TrainConfig& config) {
  command
      .add_option("--save-model", config.save_model,
                  "Write the trained model to PATH (also when interrupted or a worker dies)")
      ->type_name("PATH")
      ->check(non_empty());
  command.add_option("--resume", config.resume, "Start from the model saved in PATH")
      ->type_name("PATH")
      ->check(non_empty());
  command.add_flag("--eval-every-epoch", config.eval_every_epoch, "Report test accuracy after every epoch");
  command.add_option("--train-limit", config.train_limit, "Use only the first N training samples (0: all)")
      ->type_name("N")
      ->transform(whole_number(0));
}

// --sync-every and --lr-scaling; returns them.
std::vector<const CLI::Option*> add_node_options(CLI::App& command, hogwild::TrainConfig& config) {
  auto* sync_every =
      command
          .add_option(
              "--sync-every", config.sync_every,
              "Across nodes (under mpirun): average the model with the other nodes every SECONDS while training")
          ->type_name("SECONDS")
          ->transform(from_to(0.01, 3600))
          ->default_str(fmt::format("{:g}", config.sync_every));
  auto* lr_scaling = add_word_option(command, "--lr-scaling", config.lr_scaling, hogwild::lr_scaling_names,
                                     "Across K nodes: linear (each node steps at K x --lr, so the averaged model "
                                     "moves as one machine's would) or none");
  return {sync_every, lr_scaling};
}

}  // namespace

std::shared_ptr<TrainOptions> add_train_options(CLI::App& command) {
  auto options = std::make_shared<TrainOptions>();
  const HelpGroup group(command, "Training (run without -- CMD)");
  add_data_and_model(command, options->config);
  add_run_files(command, options->config);
  options->node_options = add_node_options(command, options->config);
  return options;
}

namespace {

using Clock = std::chrono::steady_clock;

// Says that --sync-every and --lr-scaling, when given, do nothing on one node.
void warn_node_options(const TrainOptions& options) {
  std::vector<std::string> given;
  for (const CLI::Option* option : options.node_options) {
    if (option->count() > 0) given.push_back(option->get_name());
  }
  if (const auto warning = hogwild::node_options_warning(given); !warning.empty()) print_warning(warning);
}

// Phase 1, then phases 2 and 3 (launch::load), each followed by a look at the signals held during start-up.
// 1. Plan: M workers, T threads each, their CPUs on this node's share of its host.
void prepare(const RunOptions& options, launch::TrainRun& run, procmgr::PendingSignals& startup) {
  std::string warning;
  auto claim = launch::MachineClaim::for_node(read_node_identity(options.placement.nodes), runs_directory(), warning);
  if (!warning.empty()) print_warning(warning);
  auto node_plan = plan_this_node(options.placement, claim, true, {}, &startup);
  run.node = node_plan.node;
  run.plan = std::move(node_plan.plan);
  print_plan_notes(run.plan);
  std::string unrecorded;
  run.registration = claim.record(run.plan, unrecorded);
  if (!unrecorded.empty()) print_warning(unrecorded);
  if (auto lock = run.leader() ? hogwild::lock_save_path(run.config) : std::nullopt) {
    run.save_lock.emplace(std::move(*lock));
  }
  hogwild::check_startup_signals(startup, "planning", print_note);
  run.mpi = launch::start_nodes(run.node);
  if (!run.mpi) warn_node_options(*options.train);
  launch::load(run, startup);
}

}  // namespace

int run_training(const RunOptions& options) {
  // SIGUSR1 saves a checkpoint while the workers train (node 0) and is
  // ignored after, when the model is about to be saved anyway. During
  // start-up every stop signal and SIGUSR1 is held until the phase ends.
  ::signal(SIGUSR1, SIG_IGN);
  launch::TrainRun run;
  run.config = options.train->config;
  {
    procmgr::PendingSignals startup;
    // --resume without --model trains the checkpoint's model (a --model that contradicts it is refused below).
    hogwild::take_checkpoint_model(run.config);
    // What would fail only after training (the kernels, the checkpoint's path,
    // room for the epoch snapshots) is found now, not after hours of training.
    run.kernels = chosen_kernels().isa;
    hogwild::check_before_training(run.config, hogwild::model_layout(run.config.settings.model));
    prepare(options, run, startup);
  }  // from here the group's relay takes the signals
  monitor::RunMonitor monitor({run.plan.usable_cpus, run.plan.usable_cpu_list, {}});
  monitor.set_detail(monitor_detail(options));
  hogwild::Progress progress(print_note);
  hogwild::EpochEvaluator evaluator(run.store, run.test_data, run.config.settings.model);
  auto report = launch::train(run, monitor, evaluator, progress);
  launch::finish_training(run, evaluator, progress, report);
  const auto& plan = run.plan;
  if (options.json) {
    auto document = hogwild::json_report(plan, run.config, report, run.train_data.count, monitor.report());
    launch::add_node_keys(document, run.node, plan.num_processes);
    print_json(document);
  } else {
    print_report(hogwild::text_report(plan, run.config, report, workers_by_threads(plan), monitor.text()));
  }
  // 8. Exit with the worker's failure, the save's, or the signal's; else 3 when the verdict reaches --fail-on.
  const int code = hogwild::exit_status(run.config, report);
  if (code == exit_code::success && fails(monitor.diagnosis(), options.gate)) {
    throw Failure(exit_code::doctor_found, failed_gate_message(monitor.diagnosis(), options.gate));
  }
  return code;
}

}  // namespace mptrain::cli
