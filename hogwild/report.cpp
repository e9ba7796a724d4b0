#include "hogwild/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "affinity/json.hpp"
#include "hogwild/flops.hpp"
#include "hogwild/training.hpp"
#include "procmgr/group.hpp"
#include "util/text.hpp"

namespace mptrain::hogwild {

namespace {

// `value` as the double of its shortest decimal form: --lr 0.01 is reported
// as 0.01, not as the float's exact 0.009999999776.
double as_written(float value) { return std::stod(fmt::format("{}", value)); }

// `text` as a JSON string, or null when it is empty.
nlohmann::json json_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

// The lines about the nodes and the resumed checkpoint (none on one node without --resume).
std::string text_nodes_and_resume(const TrainConfig& config, const TrainReport& report) {
  std::string text;
  if (report.node_count > 1) {
    text += fmt::format("  nodes             {} (this is node {}), samples/s per node {:.0f}\n", report.node_count,
                        report.node_rank, fmt::join(report.node_samples_per_second, ", "));
    text += fmt::format("  averaging         {}, {:.3f} s (every {} s), each node stepping at lr {}\n",
                        counted(report.sync_rounds, "round"), report.sync_seconds, config.sync_every,
                        node_learning_rate(config, report));
  }
  if (!config.resume.empty()) {
    text +=
        fmt::format("  resumed from      {}: {} model, {} and {} before this run\n", printable(config.resume),
                    to_string(config.settings.model), counted(static_cast<long long>(report.resumed.epochs), "epoch"),
                    counted(static_cast<long long>(report.resumed.samples), "sample"));
  }
  return text;
}

// The table of workers: rank, CPUs, samples, seconds and rate.
std::string text_workers(const affinity::Plan& plan, const TrainReport& report) {
  std::string text =
      fmt::format("  {:>4}  {:<12}  {:>10}  {:>9}  {:>10}\n", "rank", "cpus", "samples", "seconds", "samples/s");
  for (const auto& placement : plan.workers) {
    const auto rank = static_cast<std::size_t>(placement.rank);
    text +=
        fmt::format("  {:>4}  {:<12}  {:>10}  {:>9.3f}  {:>10.0f}\n", placement.rank, placement.cpus.to_short_string(),
                    report.worker_samples.at(rank), report.worker_seconds.at(rank), worker_rate(report, rank));
  }
  return text;
}

nlohmann::json json_workers(const affinity::Plan& plan, const TrainReport& report) {
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& placement : plan.workers) {
    const auto rank = static_cast<std::size_t>(placement.rank);
    nlohmann::json row = {{"threads", plan.threads_per_process},
                          {"samples", report.worker_samples.at(rank)},
                          {"seconds", report.worker_seconds.at(rank)},
                          {"samples_per_second", worker_rate(report, rank)}};
    affinity::add_worker_keys(row, placement);
    workers.push_back(std::move(row));
  }
  return workers;
}

nlohmann::json json_epochs(const TrainReport& report) {
  nlohmann::json epochs = nlohmann::json::array();
  for (const auto& epoch : report.epochs) {
    epochs.push_back(
        {{"epoch", epoch.epoch}, {"test_accuracy", epoch.result.accuracy}, {"test_loss", epoch.result.loss}});
  }
  return epochs;
}

nlohmann::json json_nodes(const TrainConfig& config, const TrainReport& report, int train_samples) {
  const auto& settings = config.settings;
  return {{"count", report.node_count},
          {"rank", report.node_rank},
          {"source", report.node_source},
          {"sync_every", config.sync_every},
          {"lr_scaling", name_of(lr_scaling_names, config.lr_scaling)},
          {"learning_rate", as_written(node_learning_rate(config, report))},
          {"sync_rounds", report.sync_rounds},
          {"averaging_seconds", report.sync_seconds},
          {"samples_per_second", report.node_samples_per_second},
          {"first_sample", settings.first_sample},
          {"shard_samples", settings.sample_count > 0 ? settings.sample_count : train_samples}};
}

nlohmann::json json_resumed(const TrainConfig& config, const TrainReport& report) {
  if (config.resume.empty()) return nullptr;
  return {{"path", config.resume},
          {"model", to_string(config.settings.model)},
          {"epochs", report.resumed.epochs},
          {"samples", report.resumed.samples}};
}

// The figures of speed of a run training `model`: samples and FLOPs per second, and the kernels.
nlohmann::json json_speed(ModelKind model, const TrainReport& report) {
  const double rate = samples_per_second(report);
  const std::int64_t flops = flops_per_sample(model);
  const double executed_per_sample =
      report.samples > 0 ? static_cast<double>(report.flops) / static_cast<double>(report.samples) : 0.0;
  return {{"samples", report.samples},
          {"train_seconds", report.train_seconds},
          {"samples_per_second", rate},
          {"flops_per_sample", flops},
          {"gflops", rate * static_cast<double>(flops) * 1e-9},
          {"executed_flops_per_sample", executed_per_sample},
          {"executed_gflops", rate * executed_per_sample * 1e-9},
          {"kernels", to_string(report.kernels)}};
}

// How the run ended: the test set's verdict (node 0 evaluates), a signal, checkpoints, a failure.
nlohmann::json json_outcome(const TrainReport& report) {
  const bool evaluated = report.node_rank == 0;
  nlohmann::json interrupted = nullptr;
  if (report.interrupted_by != 0) interrupted = procmgr::signal_name(report.interrupted_by);
  return {{"test_accuracy", evaluated ? nlohmann::json(report.test.accuracy) : nlohmann::json(nullptr)},
          {"test_loss", evaluated ? nlohmann::json(report.test.loss) : nlohmann::json(nullptr)},
          {"test_samples", report.test.samples},
          {"epoch_evaluations", json_epochs(report)},
          {"interrupted_by", interrupted},
          {"signal_checkpoints", report.signal_checkpoints},
          {"saved_model", json_or_null(report.saved_model)},
          {"save_error", json_or_null(report.save_error)},
          {"failed_rank", report.failed_rank ? nlohmann::json(*report.failed_rank) : nlohmann::json(nullptr)}};
}

}  // namespace

double samples_per_second(const TrainReport& report) {
  return report.train_seconds > 0 ? static_cast<double>(report.samples) / report.train_seconds : 0.0;
}

double worker_rate(const TrainReport& report, std::size_t rank) {
  const double seconds = report.worker_seconds.at(rank);
  return seconds > 0 ? static_cast<double>(report.worker_samples.at(rank)) / seconds : 0.0;
}

float node_learning_rate(const TrainConfig& config, const TrainReport& report) {
  return node_learning_rate(config.settings.learning_rate, config.lr_scaling, report.node_count);
}

std::string text_report(const affinity::Plan& plan, const TrainConfig& config, const TrainReport& report,
                        std::string_view workers, std::string_view monitor) {
  const auto& settings = config.settings;
  std::string text =
      fmt::format("mptrain run: model {}, {}, bind {}, {}, batch {}\n", to_string(settings.model), workers,
                  affinity::to_string(plan.bind), counted(settings.epochs, "epoch"), settings.batch_size);
  if (report.interrupted_by != 0) {
    text += fmt::format("  interrupted by {}: the workers stopped after their current batch\n",
                        procmgr::signal_name(report.interrupted_by));
  }
  if (report.failed_rank) text += fmt::format("  stopped early: training worker {}\n", report.failed_worker);
  text += fmt::format("  samples           {}\n", report.samples);
  text += fmt::format("  train seconds     {:.3f}\n", report.train_seconds);
  text += fmt::format("  samples/s         {:.0f}\n", samples_per_second(report));
  text += fmt::format("  kernels           {}\n", to_string(report.kernels));
  if (report.node_rank == 0) {
    text += fmt::format("  test accuracy     {:.4f}\n", report.test.accuracy);
    text += fmt::format("  test loss         {:.4f}\n", report.test.loss);
  } else {
    text += "  test accuracy     (node 0 evaluates)\n";
  }
  text += text_nodes_and_resume(config, report);
  text += fmt::format("  model checksum    {}\n", report.model_checksum);
  text += text_workers(plan, report);
  text += monitor;
  if (!report.saved_model.empty()) text += fmt::format("  model saved to    {}\n", printable(report.saved_model));
  if (!report.save_error.empty())
    text += fmt::format("  model NOT saved   to {} (see the error below)\n", printable(config.save_model));
  return text;
}

nlohmann::json json_report(const affinity::Plan& plan, const TrainConfig& config, const TrainReport& report,
                           int train_samples, nlohmann::json monitor) {
  const auto& settings = config.settings;
  nlohmann::json document = {{"model", to_string(settings.model)},
                             {"nodes", json_nodes(config, report, train_samples)},
                             {"model_checksum", report.model_checksum},
                             {"resumed", json_resumed(config, report)},
                             {"train_samples", train_samples},
                             {"epochs", settings.epochs},
                             {"batch_size", settings.batch_size},
                             {"lr", as_written(settings.learning_rate)},
                             {"momentum", as_written(settings.momentum)},
                             {"seed", settings.seed},
                             {"workers", json_workers(plan, report)},
                             {"monitor", std::move(monitor)}};
  affinity::add_plan_keys(document, plan);
  document.update(json_speed(settings.model, report));
  document.update(json_outcome(report));
  return document;
}

}  // namespace mptrain::hogwild
