#include "hogwild/trainer.hpp"

#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "hogwild/idx.hpp"
#include "hogwild/kernels.hpp"
#include "hogwild/random.hpp"

using namespace mptrain::hogwild;
namespace fs = std::filesystem;

namespace {

// A small synthetic set: class k lights up a 4-row band, with noise.
struct SyntheticSet {
  fs::path dir;
  SyntheticSet(int count, const std::string& prefix) {
    dir = fs::temp_directory_path() / ("mptrain-train-" + std::to_string(::getpid()) + "-" + prefix);
    fs::create_directories(dir);
    Random random(42);
    std::string header_images{'\0', '\0', '\x08', '\x03'};
    std::string header_labels{'\0', '\0', '\x08', '\x01'};
    auto be = [](std::string& out, std::uint32_t v) {
      for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xff);
    };
    be(header_images, static_cast<std::uint32_t>(count));
    be(header_images, 28);
    be(header_images, 28);
    be(header_labels, static_cast<std::uint32_t>(count));
    std::string pixels;
    std::string labels;
    for (int i = 0; i < count; ++i) {
      const int label = static_cast<int>(random.below(10));
      labels += static_cast<char>(label);
      for (int p = 0; p < 784; ++p) {
        const bool lit = p / 28 >= 2 + 2 * label && p / 28 < 6 + 2 * label;
        pixels += static_cast<char>((lit ? 160 : 0) + static_cast<int>(random.below(90)));
      }
    }
    std::ofstream(dir / (prefix + "-images-idx3-ubyte"), std::ios::binary) << header_images << pixels;
    std::ofstream(dir / (prefix + "-labels-idx1-ubyte"), std::ios::binary) << header_labels << labels;
  }
  ~SyntheticSet() { fs::remove_all(dir); }
};

// Trains `kind` on `data` as one worker of `threads` threads; returns the final parameters.
std::vector<float> train_once(ModelKind kind, const Dataset& data, int threads, std::uint64_t seed = 1,
                              float learning_rate = 0.01f) {
  TrainSettings settings;
  settings.model = kind;
  settings.seed = seed;
  settings.learning_rate = learning_rate;
  const auto layout = model_layout(kind);
  auto store = ParameterStore::create(layout, 1);
  REQUIRE(store.ok());
  initialize_parameters(layout, seed, store->parameters());
  auto outcome = train_worker(settings, data, *store, WorkerSetup{0, threads, {}});
  REQUIRE(outcome.ok());
  CHECK(outcome->samples == static_cast<std::uint64_t>(data.count));
  CHECK(store->counters(0).samples.load() == static_cast<std::uint64_t>(data.count));
  CHECK(store->counters(0).epoch.load() == 1);
  const auto values = store->parameters();
  return {values.begin(), values.end()};
}

// One epoch of `kind` (a model without dropout) on `data` as the worker
// trains it with `threads` threads, recomputed step by step: its shuffle
// (seed + rank 0), its groups shared out over the slots (slot s takes
// groups s, s + threads, …, each adding to its own gradient), the slots'
// gradients summed in slot order with nothing carried over from the batch
// before, then SGD with momentum (none on the first step).
std::vector<float> train_by_hand(ModelKind kind, const Dataset& data, int threads, std::uint64_t seed) {
  const TrainSettings settings;
  const auto layout = model_layout(kind);
  std::vector<float> parameters(layout.parameter_count);
  initialize_parameters(layout, seed, parameters);
  std::vector<float> velocity(parameters.size(), 0.0f);
  std::vector<float> step(parameters.size());
  std::vector<int> order(static_cast<std::size_t>(data.count));
  std::iota(order.begin(), order.end(), 0);
  Random shuffle(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuffle.below(i)]);
  Network<float> network(kind);
  std::vector<std::vector<float>> gradients(static_cast<std::size_t>(threads));
  std::vector<float> images(group_size * image_pixels);
  std::vector<int> labels(group_size);
  const auto batch = static_cast<std::size_t>(settings.batch_size);
  for (std::size_t start = 0; start < order.size(); start += batch) {
    const std::size_t count = std::min(batch, order.size() - start);
    for (auto& gradient : gradients) gradient.assign(parameters.size(), 0.0f);
    for (std::size_t first = 0, g = 0; first < count; first += group_size, ++g) {
      const std::size_t members = std::min<std::size_t>(group_size, count - first);
      std::fill(images.begin(), images.end(), 0.0f);
      for (std::size_t s = 0; s < members; ++s) {
        const int index = order[start + first + s];
        for (int p = 0; p < image_pixels; ++p) images[s * image_pixels + p] = normalize_pixel(data.image(index)[p]);
        labels[s] = data.label(index);
      }
      const Group<float> group{images.data(), labels.data(), static_cast<int>(members), nullptr,
                               1.0f / static_cast<float>(count)};
      network.train_group(parameters.data(), group, gradients[g % gradients.size()].data());
    }
    const float keep = start == 0 ? 0.0f : settings.momentum;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      float sum = gradients[0][i];
      for (std::size_t s = 1; s < gradients.size(); ++s) sum += gradients[s][i];
      velocity[i] = keep * velocity[i] + sum;
      step[i] = settings.learning_rate * velocity[i];
    }
    // A loop of its own, as the store subtracts the step: where FMAs are
    // allowed, lr × velocity is not fused into the subtraction.
    for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i] -= step[i];
  }
  return parameters;
}

}  // namespace

TEST_CASE("every model learns a separable synthetic set in one epoch", "[hogwild]") {
  SyntheticSet set(1280, "train");
  auto data = load_dataset(set.dir, Split::train);
  REQUIRE(data.ok());
  for (ModelKind kind : {ModelKind::logreg, ModelKind::mlp, ModelKind::cnn}) {
    const auto parameters = train_once(kind, *data, 1, 1, 0.1f);
    const auto result = evaluate(kind, parameters, *data, 1);
    INFO(to_string(kind) << " accuracy " << result.accuracy);
    CHECK(result.accuracy > 0.9);
  }
}

TEST_CASE("one worker of one thread with a fixed seed trains bit-identically", "[hogwild]") {
  SyntheticSet set(200, "train");
  auto data = load_dataset(set.dir, Split::train);
  REQUIRE(data.ok());
  // Twin trainings in one process: the second one's buffers lie elsewhere on the heap.
  for (ModelKind kind : {ModelKind::cnn, ModelKind::mlp, ModelKind::logreg}) {
    INFO(to_string(kind));
    const auto first = train_once(kind, *data, 1);
    const std::vector<char> heap_shift(1000 + 40 * static_cast<int>(kind), 1);
    CHECK(train_once(kind, *data, 1) == first);
    CHECK(train_once(kind, *data, 1, 2) != first);
  }
}

TEST_CASE("a batch split over threads gives the same model up to rounding", "[hogwild]") {
  SyntheticSet set(256, "train");
  auto data = load_dataset(set.dir, Split::train);
  REQUIRE(data.ok());
  const auto one = train_once(ModelKind::cnn, *data, 1);
  const auto two = train_once(ModelKind::cnn, *data, 2);
  for (std::size_t i = 0; i < one.size(); i += 31) CHECK(two[i] == Approx(one[i]).margin(1e-4));
}

TEST_CASE("each batch steps on its own gradients, summed over the threads in slot order", "[hogwild]") {
  // 200 samples: three batches of 64 and a last one of 8 that leaves a slot
  // idle. (Not 3 threads: ThreadSanitizer cannot see oneTBB hand a second
  // helper task to a thread of its own, uninstrumented, and reports a race.)
  SyntheticSet set(200, "train");
  auto data = load_dataset(set.dir, Split::train);
  REQUIRE(data.ok());
  for (const int threads : {1, 2}) {
    INFO(threads << " threads");
    const auto trained = train_once(ModelKind::mlp, *data, threads);
    const auto by_hand = train_by_hand(ModelKind::mlp, *data, threads, 1);
    REQUIRE(trained.size() == by_hand.size());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < trained.size(); ++i) differing += trained[i] != by_hand[i] ? 1 : 0;
    CHECK(differing == 0);
  }
}

TEST_CASE("SIGTERM ends the worker before its next batch", "[hogwild]") {
  SyntheticSet set(256, "train");
  auto data = load_dataset(set.dir, Split::train);
  REQUIRE(data.ok());
  const auto layout = model_layout(ModelKind::logreg);
  auto store = ParameterStore::create(layout, 1);
  REQUIRE(store.ok());
  // In a child, as in a real worker: the handlers and the stop stay there.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    install_stop_handlers();
    std::raise(SIGTERM);
    TrainSettings settings;
    settings.model = ModelKind::logreg;
    auto outcome = train_worker(settings, *data, *store, WorkerSetup{});
    ::_exit(outcome.ok() && outcome->stopped && outcome->samples == 0 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("evaluation does not depend on the thread count", "[hogwild]") {
  SyntheticSet set(100, "t10k");
  auto data = load_dataset(set.dir, Split::test);
  REQUIRE(data.ok());
  const auto layout = model_layout(ModelKind::cnn);
  std::vector<float> parameters(layout.parameter_count);
  initialize_parameters(layout, 9, parameters);
  const auto one = evaluate(ModelKind::cnn, parameters, *data, 1);
  const auto three = evaluate(ModelKind::cnn, parameters, *data, 3);
  CHECK(one.accuracy == three.accuracy);
  CHECK(one.loss == three.loss);
  CHECK(one.samples == 100);
}

TEST_CASE("a worker whose loss becomes NaN stops and says it diverged", "[hogwild]") {
  SyntheticSet set(640, "train");
  auto data = load_dataset(set.dir, Split::train);
  REQUIRE(data.ok());
  TrainSettings settings;
  settings.model = ModelKind::mlp;
  settings.learning_rate = 1e30f;
  const auto layout = model_layout(settings.model);
  auto store = ParameterStore::create(layout, 1);
  REQUIRE(store.ok());
  initialize_parameters(layout, 1, store->parameters());
  auto outcome = train_worker(settings, *data, *store, WorkerSetup{});
  REQUIRE(outcome.ok());
  CHECK(outcome->diverged);
  CHECK(outcome->samples < static_cast<std::uint64_t>(data->count));
  CHECK(store->counters(0).diverged.load());
  CHECK_FALSE(std::isfinite(store->counters(0).recent_loss.load()));
  CHECK(store->counters(0).epoch.load() == 0);
}

TEST_CASE("each kept epoch's snapshot is the model at the end of that epoch", "[hogwild]") {
  SyntheticSet set(128, "train");
  auto data = load_dataset(set.dir, Split::train);
  REQUIRE(data.ok());
  // One worker of one thread trains bit-identically: epoch 1 of a 2-epoch run is a 1-epoch run's model.
  const auto one_epoch = train_once(ModelKind::mlp, *data, 1);
  TrainSettings settings;
  settings.model = ModelKind::mlp;
  settings.epochs = 2;
  const auto layout = model_layout(settings.model);
  auto store = ParameterStore::create(layout, 1, 1);
  REQUIRE(store.ok());
  initialize_parameters(layout, 1, store->parameters());
  auto outcome = train_worker(settings, *data, *store, WorkerSetup{});
  REQUIRE(outcome.ok());
  CHECK_FALSE(outcome->diverged);
  const auto snapshot = store->epoch_snapshot(1);
  REQUIRE(snapshot.has_value());
  CHECK(std::vector<float>(snapshot->begin(), snapshot->end()) == one_epoch);
  const auto final_parameters = store->parameters();
  CHECK(std::vector<float>(final_parameters.begin(), final_parameters.end()) != one_epoch);
}
