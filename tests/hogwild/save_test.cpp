// --save-model: the checks before training, the save after it, and a save on SIGUSR1.
#include "hogwild/save.hpp"

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "hogwild/checkpoint.hpp"
#include "hogwild/training.hpp"
#include "tests/support/temp_dir.hpp"
#include "util/failure.hpp"

using namespace mptrain;
using namespace mptrain::hogwild;
namespace fs = std::filesystem;
using mptrain::test::TempDir;

namespace {

// The exit code of the Failure `action` throws (0 when it throws none).
template <class F>
int failure_code(F action) {
  try {
    action();
  } catch (const Failure& failure) {
    return failure.exit_code();
  }
  return 0;
}

ParameterStore logreg_store() {
  auto store = ParameterStore::create(model_layout(ModelKind::logreg), 1);
  REQUIRE(store.ok());
  return std::move(store).value();
}

}  // namespace

TEST_CASE("a --save-model path is checked before training") {
  const TempDir dir("save-check");
  TrainConfig config;
  config.data = dir.path.string();
  CHECK(failure_code([&] { check_save_path(config); }) == 0);  // no --save-model: nothing to check
  config.save_model = (dir.path / "model.ckpt").string();
  CHECK(failure_code([&] { check_save_path(config); }) == 0);
  config.save_model = dir.path.string();  // a directory
  CHECK(failure_code([&] { check_save_path(config); }) == exit_code::usage_error);
  config.save_model = (dir.path / "notes.txt").string();
  std::ofstream(config.save_model) << "not a checkpoint";
  CHECK(failure_code([&] { check_save_path(config); }) == exit_code::usage_error);
  config.save_model = (dir.path / "missing" / "model.ckpt").string();
  CHECK(failure_code([&] { check_save_path(config); }) == exit_code::runtime_failure);
}

TEST_CASE("the model is never saved over the run's data") {
  const TempDir dir("save-input");
  TrainConfig config;
  config.data = dir.path.string();
  config.save_model = (dir.path / "train-labels-idx1-ubyte").string();
  std::ofstream(config.save_model) << "";
  REQUIRE(run_inputs(config).size() == 1);
  CHECK(run_inputs(config)[0].path == config.save_model);
  CHECK(failure_code([&] { check_save_path(config); }) == exit_code::usage_error);
}

TEST_CASE("the saved model holds the run's totals, the resumed ones included") {
  const TempDir dir("save-save");
  TrainConfig config;
  config.settings.model = ModelKind::logreg;
  config.save_model = (dir.path / "model.ckpt").string();
  auto store = logreg_store();
  store.parameters()[0] = 0.25f;
  TrainReport report;
  report.samples = 100;
  report.resumed = {2, 1000};
  save_model(config, store, report);
  CHECK(report.saved_model == config.save_model);
  const auto loaded = load_checkpoint(config.save_model, ModelKind::logreg);
  REQUIRE(loaded.ok());
  CHECK(loaded->parameters[0] == 0.25f);
  CHECK(loaded->epochs == 2);
  CHECK(loaded->samples == 1100);
  config.save_model = (dir.path / "missing" / "model.ckpt").string();
  TrainReport failed;
  save_model(config, store, failed);
  CHECK(failed.saved_model.empty());
  CHECK_FALSE(failed.save_error.empty());
  CHECK(failed.save_errno == ENOENT);
}

TEST_CASE("SIGUSR1 saves a copy of a finite model while training goes on") {
  const TempDir dir("save-signal");
  TrainConfig config;
  config.settings.model = ModelKind::logreg;
  auto store = logreg_store();
  const auto none = save_on_signal(config, store, {});
  CHECK_FALSE(none.saved);
  CHECK_FALSE(none.warning);
  CHECK(none.message == "SIGUSR1: no --save-model PATH was given, so nothing was saved; training goes on");
  config.save_model = (dir.path / "model.ckpt").string();
  store.counters(0).samples = 64;
  const auto saved = save_on_signal(config, store, {1, 10});
  CHECK(saved.saved);
  CHECK(saved.message == "SIGUSR1: saved the model after 64 samples to " + config.save_model + "; training goes on");
  const auto loaded = load_checkpoint(config.save_model, ModelKind::logreg);
  REQUIRE(loaded.ok());
  CHECK(loaded->samples == 74);
  CHECK(loaded->epochs == 1);
  store.parameters()[0] = std::numeric_limits<float>::quiet_NaN();
  const auto refused = save_on_signal(config, store, {});
  CHECK_FALSE(refused.saved);
  CHECK(refused.warning);
  CHECK(refused.message.find("NaN or infinite") != std::string::npos);
}

TEST_CASE("a failed save's advice follows its errno") {
  CHECK(save_advice(ENOSPC) == "free some space there or choose another --save-model path");
  CHECK(save_advice(EROFS) == "make its directory writable or choose another --save-model path");
  CHECK(save_advice(EIO) == "choose another --save-model path");
  CHECK_FALSE(exists_now("/nonexistent/model.ckpt"));
  CHECK(exists_now("/"));
}
