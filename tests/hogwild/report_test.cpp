// The built-in training's report, as text and as JSON.
#include "hogwild/report.hpp"

#include <catch2/catch.hpp>
#include <csignal>
#include <string>

#include "hogwild/training.hpp"

using namespace mptrain;
using namespace mptrain::hogwild;

namespace {

// Two workers of one thread on CPUs 0 and 1.
affinity::Plan two_workers() {
  affinity::Plan plan;
  plan.num_processes = 2;
  plan.threads_per_process = 1;
  plan.bind = affinity::Bind::core;
  plan.workers = {{0, CpuSet({0}), 0, 0, 1, {}, -1, {}, {}}, {1, CpuSet({1}), 0, 0, 1, {}, -1, {}, {}}};
  return plan;
}

TrainReport two_worker_report() {
  TrainReport report;
  report.samples = 300;
  report.train_seconds = 2.0;
  report.worker_samples = {200, 100};
  report.worker_seconds = {2.0, 0.0};
  report.flops = 600;
  report.test = {0.875, 0.25, 100};
  report.model_checksum = "0123abcd";
  report.node_source = "single node";
  return report;
}

}  // namespace

TEST_CASE("the report's rates: samples per second, and 0 without time") {
  const auto report = two_worker_report();
  CHECK(samples_per_second(report) == 150.0);
  CHECK(worker_rate(report, 0) == 100.0);
  CHECK(worker_rate(report, 1) == 0.0);
  CHECK(samples_per_second(TrainReport{}) == 0.0);
}

TEST_CASE("the text report gives the figures, each worker's row and the monitor's part") {
  TrainConfig config;
  auto report = two_worker_report();
  const auto text = text_report(two_workers(), config, report, "2 workers x 1 thread", "  monitor: healthy\n");
  CHECK(text.rfind("mptrain run: model cnn, 2 workers x 1 thread, bind core, 1 epoch, batch 64\n", 0) == 0);
  CHECK(text.find("  samples           300\n") != std::string::npos);
  CHECK(text.find("  samples/s         150\n") != std::string::npos);
  CHECK(text.find("  test accuracy     0.8750\n") != std::string::npos);
  CHECK(text.find("     1  1                    100      0.000           0\n") != std::string::npos);
  CHECK(text.find("  monitor: healthy\n") != std::string::npos);
  CHECK(text.find("nodes") == std::string::npos);
  report.node_rank = 1;
  report.node_count = 2;
  report.interrupted_by = SIGINT;
  report.sync_rounds = 3;
  report.node_samples_per_second = {150, 140};
  const auto node = text_report(two_workers(), config, report, "2 workers x 1 thread", "");
  CHECK(node.find("  interrupted by SIGINT: the workers stopped after their current batch\n") != std::string::npos);
  CHECK(node.find("  test accuracy     (node 0 evaluates)\n") != std::string::npos);
  CHECK(node.find("  nodes             2 (this is node 1), samples/s per node 150, 140\n") != std::string::npos);
  CHECK(node.find("each node stepping at lr 0.02\n") != std::string::npos);
}

TEST_CASE("the JSON report gives the settings as written and nulls for what did not happen") {
  TrainConfig config;
  config.settings.learning_rate = 0.01f;
  auto report = two_worker_report();
  const auto json = json_report(two_workers(), config, report, 60000, {{"verdict", "healthy"}});
  CHECK(json["lr"] == 0.01);
  CHECK(json["samples_per_second"] == 150.0);
  CHECK(json["test_accuracy"] == 0.875);
  CHECK(json["interrupted_by"].is_null());
  CHECK(json["saved_model"].is_null());
  CHECK(json["resumed"].is_null());
  CHECK(json["failed_rank"].is_null());
  CHECK(json["executed_flops_per_sample"] == 2.0);
  CHECK(json["workers"].size() == 2);
  CHECK(json["workers"][0]["samples_per_second"] == 100.0);
  CHECK(json["nodes"]["lr_scaling"] == "linear");
  CHECK(json["nodes"]["shard_samples"] == 60000);
  CHECK(json["monitor"]["verdict"] == "healthy");
  report.node_rank = 1;
  report.node_count = 4;
  report.interrupted_by = SIGTERM;
  config.resume = "old.ckpt";
  report.resumed = {3, 9000};
  const auto node = json_report(two_workers(), config, report, 60000, nullptr);
  CHECK(node["test_accuracy"].is_null());
  CHECK(node["interrupted_by"] == "SIGTERM");
  CHECK(node["nodes"]["learning_rate"] == 0.04);
  CHECK(node["resumed"]["epochs"] == 3);
  CHECK(node["resumed"]["model"] == "cnn");
}

TEST_CASE("the text report gives each worker's CPUs plain while short, else in the short form") {
  auto plan = two_workers();
  plan.workers[1].cpus = CpuSet({1, 3, 5, 7});
  CHECK(text_report(plan, TrainConfig{}, two_worker_report(), "2 workers x 1 thread", "").find("     1  1,3,5,7 ") !=
        std::string::npos);
  plan.workers[1].cpus = CpuSet::parse("1-63:2").value();
  CHECK(text_report(plan, TrainConfig{}, two_worker_report(), "2 workers x 1 thread", "").find("     1  1-63:2 ") !=
        std::string::npos);
}
