// The built-in training's policy: snapshots, divergence, evaluation per epoch, the workers' signals, the exit code.
#include "hogwild/training.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <csignal>
#include <limits>
#include <string>

#include "procmgr/signals.hpp"
#include "util/failure.hpp"

using namespace mptrain;
using namespace mptrain::hogwild;

namespace {

// The exit code of the Failure `action` throws (0 when it throws none), its message in `message`.
template <class F>
int failure_code(F action, std::string* message = nullptr) {
  try {
    action();
  } catch (const Failure& failure) {
    if (message != nullptr) *message = failure.what();
    return failure.exit_code();
  }
  return 0;
}

// `count` blank 28x28 test images, all labelled 0.
Dataset blank_dataset(int count) {
  Dataset data;
  data.count = count;
  data.rows = 28;
  data.cols = 28;
  data.image_memory = std::move(SharedMemory::create(static_cast<std::size_t>(count) * 784, "images", "test")).value();
  data.label_memory = std::move(SharedMemory::create(static_cast<std::size_t>(count), "labels", "test")).value();
  return data;
}

}  // namespace

TEST_CASE("epochs keep a snapshot only with --eval-every-epoch, and only as many as fit") {
  TrainConfig config;
  const auto layout = model_layout(ModelKind::logreg);
  config.settings.epochs = 3;
  CHECK(snapshot_epochs(config, layout) == 0);
  config.eval_every_epoch = true;
  CHECK(snapshot_epochs(config, layout) == 2);  // the last epoch's model is the final one
  config.settings.epochs = 1;
  CHECK(snapshot_epochs(config, layout) == 0);
  config.settings.epochs = 1000000;
  std::string message;
  CHECK(failure_code([&] { snapshot_epochs(config, model_layout(ModelKind::mlp)); }, &message) ==
        exit_code::usage_error);
  CHECK(message.find("train fewer epochs per run") != std::string::npos);
}

TEST_CASE("data that cannot be loaded is a runtime failure before training") {
  TrainConfig config;
  config.data = "/nonexistent/mptrain-data";
  CHECK(failure_code([&] { load_split(config, Split::train, 0); }) == exit_code::runtime_failure);
}

TEST_CASE("the initial store is seeded, and a missing --resume checkpoint is a runtime failure") {
  TrainConfig config;
  config.settings.model = ModelKind::logreg;
  Resumed resumed;
  auto first = initial_store(config, model_layout(ModelKind::logreg), 1, resumed);
  auto second = initial_store(config, model_layout(ModelKind::logreg), 1, resumed);
  CHECK(std::equal(first.parameters().begin(), first.parameters().end(), second.parameters().begin()));
  CHECK(resumed.epochs == 0);
  config.resume = "/nonexistent/model.ckpt";
  std::string message;
  CHECK(failure_code([&] { initial_store(config, model_layout(ModelKind::logreg), 1, resumed); }, &message) ==
        exit_code::runtime_failure);
  CHECK(message.rfind("--resume: ", 0) == 0);
}

TEST_CASE("each epoch is evaluated once, in order, when every worker completed it") {
  auto store = ParameterStore::create(model_layout(ModelKind::logreg), 1, 2);
  REQUIRE(store.ok());
  const auto test = blank_dataset(4);
  EpochEvaluator evaluator(*store, test, ModelKind::logreg);
  CHECK_FALSE(evaluator.next(1));
  store->complete_epoch(0, 1);
  const auto first = evaluator.next(1);
  REQUIRE(first);
  CHECK(first->epoch == 1);
  CHECK(first->result.samples == 4);
  CHECK_FALSE(evaluator.next(1));
}

TEST_CASE("the final evaluation is also the last epoch's when every worker completed it") {
  auto store = ParameterStore::create(model_layout(ModelKind::logreg), 1);
  REQUIRE(store.ok());
  const auto test = blank_dataset(4);
  TrainConfig config;
  config.settings.model = ModelKind::logreg;
  config.eval_every_epoch = true;
  TrainReport report;
  evaluate_final_model(config, *store, test, 1, report);
  CHECK(report.test.samples == 4);
  CHECK(report.epochs.empty());
  store->complete_epoch(0, 1);
  evaluate_final_model(config, *store, test, 1, report);
  REQUIRE(report.epochs.size() == 1);
  CHECK(report.epochs[0].epoch == 1);
}

TEST_CASE("divergence names the worker whose loss became NaN, or parameters that are not finite") {
  auto store = ParameterStore::create(model_layout(ModelKind::logreg), 2);
  REQUIRE(store.ok());
  CHECK(divergence(*store).empty());
  CHECK(all_finite(store->parameters()));
  store->parameters()[3] = std::numeric_limits<float>::infinity();
  CHECK_FALSE(all_finite(store->parameters()));
  CHECK(divergence(*store) == "the model's parameters are NaN or infinite");
  store->counters(1).diverged = true;
  store->counters(1).recent_loss = std::numeric_limits<double>::quiet_NaN();
  store->counters(1).samples = 640;
  CHECK(divergence(*store) == "the training loss of rank 1 became NaN in epoch 1, after 640 of its samples");
}

TEST_CASE("a diverged run is refused, saying the model was not saved and what to lower") {
  auto store = ParameterStore::create(model_layout(ModelKind::logreg), 1);
  REQUIRE(store.ok());
  TrainConfig config;
  CHECK(failure_code([&] { refuse_diverged(*store, config); }) == 0);
  store->parameters()[0] = std::numeric_limits<float>::quiet_NaN();
  config.save_model = "/nonexistent/model.ckpt";
  std::string message;
  CHECK(failure_code([&] { refuse_diverged(*store, config); }, &message) == exit_code::runtime_failure);
  CHECK(message ==
        "training diverged: the model's parameters are NaN or infinite; the model was not saved, "
        "/nonexistent/model.ckpt was not created; lower --lr (0.01 now) or --momentum (0.5 now)");
}

TEST_CASE("the exit code: a worker's failure, a failed save, a signal's 128 + N, else 0") {
  TrainConfig config;
  TrainReport report;
  CHECK(exit_status(config, report) == 0);
  report.interrupted_by = SIGINT;
  CHECK(exit_status(config, report) == 128 + SIGINT);
  config.save_model = "/nonexistent/model.ckpt";
  report.save_error = "disk full";
  report.save_errno = ENOSPC;
  std::string message;
  CHECK(failure_code([&] { exit_status(config, report); }, &message) == exit_code::runtime_failure);
  CHECK(message ==
        "cannot save the model: disk full; /nonexistent/model.ckpt was not created: free some space there or "
        "choose another --save-model path");
  report.save_error.clear();
  report.failed_rank = 1;
  report.failure_code = 137;
  report.failure = "training worker rank 1 (pid 9) killed by SIGKILL";
  report.saved_model = "model.ckpt";
  CHECK(failure_code([&] { exit_status(config, report); }, &message) == 137);
  CHECK(message ==
        "training worker rank 1 (pid 9) killed by SIGKILL\nthe model as the workers left it is saved in "
        "model.ckpt; go on from it with --resume model.ckpt");
}

TEST_CASE("a worker's stop signals all stop it as SIGTERM does, and it ignores SIGUSR1") {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    install_worker_signals();
    struct sigaction term {};
    struct sigaction action {};
    ::sigaction(SIGTERM, nullptr, &term);
    int wrong = 0;
    for (int signal : procmgr::stop_signals()) {
      ::sigaction(signal, nullptr, &action);
      if (action.sa_handler != term.sa_handler || action.sa_handler == SIG_DFL) ++wrong;
    }
    ::sigaction(SIGUSR1, nullptr, &action);
    if (action.sa_handler != SIG_IGN) ++wrong;
    ::_exit(wrong);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("the group's end is recorded: its signal, its failed worker, each worker's samples and time") {
  TrainConfig config;
  Resumed resumed;
  auto store = initial_store(config, model_layout(ModelKind::logreg), 2, resumed);
  store.counters(1).samples.store(5);
  procmgr::GroupResult result;
  for (int rank = 0; rank < 2; ++rank) {
    procmgr::WorkerResult worker;
    worker.rank = rank;
    worker.pid = 10 + rank;
    worker.wall_seconds = 1.5;
    result.workers.push_back(worker);
  }
  result.workers[1].status = {procmgr::ExitStatus::Kind::signaled, SIGKILL};
  result.failed_rank = 1;
  result.forwarded_signal = SIGTERM;
  TrainReport report;
  record_group(result, store, report);
  CHECK(report.interrupted_by == SIGTERM);
  CHECK(report.failed_rank == 1);
  CHECK(report.failure_code == 128 + SIGKILL);
  CHECK(report.failed_worker == "rank 1 (pid 11) killed by SIGKILL");
  CHECK(report.worker_samples == std::vector<std::uint64_t>{0, 5});
  CHECK(report.samples == 5);
  CHECK(report.worker_seconds == std::vector<double>{1.5, 1.5});
}

TEST_CASE("the node options (--sync-every, --lr-scaling) on one node are named in one warning") {
  CHECK(node_options_warning({}).empty());
  CHECK(node_options_warning({"--sync-every"}) ==
        "--sync-every applies only across nodes (under mpirun or srun); this run is one node, so it has no effect");
  CHECK(node_options_warning({"--sync-every", "--lr-scaling"})
            .starts_with("--sync-every and --lr-scaling apply only across nodes"));
}
