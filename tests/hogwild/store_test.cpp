#include "hogwild/store.hpp"

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <vector>

using namespace mptrain::hogwild;

namespace {

std::size_t dev_shm_entries() {
  std::error_code error;
  std::size_t count = 0;
  for (auto it = std::filesystem::directory_iterator("/dev/shm", error); !error && it != std::filesystem::end(it);
       ++it) {
    ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("the store holds the parameters and applies Hogwild steps", "[hogwild]") {
  const auto layout = model_layout(ModelKind::logreg);
  auto store = ParameterStore::create(layout, 2);
  REQUIRE(store.ok());
  auto parameters = store->parameters();
  REQUIRE(parameters.size() == layout.parameter_count);
  for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i] = static_cast<float>(i);
  std::vector<float> step(parameters.size(), 0.5f);
  store->apply_update(step);
  std::vector<float> copy(parameters.size());
  store->snapshot(copy);
  CHECK(copy[0] == -0.5f);
  CHECK(copy[10] == 9.5f);
}

TEST_CASE("a Hogwild step can hand back the values it stored, over its own steps too", "[hogwild]") {
  const auto layout = model_layout(ModelKind::logreg);
  auto store = ParameterStore::create(layout, 1);
  REQUIRE(store.ok());
  auto parameters = store->parameters();
  for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i] = static_cast<float>(i);
  std::vector<float> step(8, 0.5f);
  std::vector<float> refreshed(8, -1.0f);
  store->apply_update(step, 100, refreshed);
  CHECK(refreshed[0] == 99.5f);
  CHECK(refreshed[7] == 106.5f);
  CHECK(parameters[107] == 106.5f);
  CHECK(parameters[108] == 108.0f);  // past the step: untouched
  // The values written over the steps themselves.
  store->apply_update(step, 100, step);
  CHECK(step[0] == 99.0f);
  CHECK(step[7] == 106.0f);
  std::vector<float> copy(8);
  store->snapshot(copy, 100);
  CHECK(copy == step);
}

TEST_CASE("a Hogwild step gives each element's own subtraction, whatever its length and start", "[hogwild]") {
  // The step goes several elements at a time where it can (store.cpp): every
  // length and start, around those groups, must give exactly the
  // element-by-element result and touch nothing outside its range.
  const std::vector<float> values = {1.5f, -0.0f, 3.0e-39f, 1.0e30f, -7.25f, 0.1f, 2.0f, -1.0e-8f, 65504.0f};
  constexpr std::size_t size = 48;
  for (std::size_t start = 0; start < 5; ++start) {
    for (std::size_t count = 0; count + start <= size - 3; ++count) {
      std::vector<float> shared(size), step(size), refreshed(size, 42.0f), expected(size);
      for (std::size_t i = 0; i < size; ++i) {
        shared[i] = values[i % values.size()] * static_cast<float>(i + 1);
        step[i] = values[(i * 5 + 3) % values.size()];
      }
      for (std::size_t i = 0; i < size; ++i)
        expected[i] = i >= start && i < start + count ? shared[i] - step[i] : shared[i];
      hogwild_apply_update(shared.data() + start, step.data() + start, count, refreshed.data() + start);
      for (std::size_t i = 0; i < size; ++i) {
        INFO("start " << start << ", count " << count << ", element " << i);
        const bool inside = i >= start && i < start + count;
        CHECK(std::bit_cast<std::uint32_t>(shared[i]) == std::bit_cast<std::uint32_t>(expected[i]));
        CHECK(std::bit_cast<std::uint32_t>(refreshed[i]) == std::bit_cast<std::uint32_t>(inside ? expected[i] : 42.0f));
      }
      // Written over the steps themselves, and with no values handed back.
      std::vector<float> again = shared;
      std::vector<float> steps = step;
      hogwild_apply_update(again.data() + start, steps.data() + start, count, steps.data() + start);
      std::vector<float> plain = shared;
      hogwild_apply_update(plain.data() + start, step.data() + start, count);
      for (std::size_t i = start; i < start + count; ++i) {
        INFO("start " << start << ", count " << count << ", element " << i);
        CHECK(std::bit_cast<std::uint32_t>(steps[i]) == std::bit_cast<std::uint32_t>(shared[i] - step[i]));
        CHECK(std::bit_cast<std::uint32_t>(again[i]) == std::bit_cast<std::uint32_t>(shared[i] - step[i]));
        CHECK(std::bit_cast<std::uint32_t>(plain[i]) == std::bit_cast<std::uint32_t>(shared[i] - step[i]));
      }
    }
  }
}

TEST_CASE("the store's counters start cleared", "[hogwild]") {
  auto store = ParameterStore::create(model_layout(ModelKind::mlp), 3);
  REQUIRE(store.ok());
  CHECK(store->worker_count() == 3);
  CHECK(store->counters(2).samples.load() == 0);
  CHECK(store->counters(2).epoch.load() == 0);
}

TEST_CASE("creating and dropping a store leaves nothing in /dev/shm", "[hogwild]") {
  const auto before = dev_shm_entries();
  {
    auto store = ParameterStore::create(model_layout(ModelKind::cnn), 4);
    REQUIRE(store.ok());
    CHECK(dev_shm_entries() == before);
  }
  CHECK(dev_shm_entries() == before);
}

TEST_CASE("an epoch's snapshot is taken when the last worker completes it", "[hogwild]") {
  const auto layout = model_layout(ModelKind::logreg);
  auto store = ParameterStore::create(layout, 2, 2);
  REQUIRE(store.ok());
  CHECK(store->snapshot_epochs() == 2);
  auto parameters = store->parameters();
  std::fill(parameters.begin(), parameters.end(), 1.0f);
  store->complete_epoch(0, 1);
  CHECK(store->counters(0).epoch.load() == 1);
  CHECK_FALSE(store->epoch_snapshot(1).has_value());  // rank 1 has not completed epoch 1
  std::fill(parameters.begin(), parameters.end(), 2.0f);
  store->complete_epoch(1, 1);
  const auto first = store->epoch_snapshot(1);
  REQUIRE(first.has_value());
  REQUIRE(first->size() == layout.parameter_count);
  std::fill(parameters.begin(), parameters.end(), 3.0f);  // later updates leave the snapshot as it was
  CHECK((*first)[0] == 2.0f);
  CHECK((*first)[layout.parameter_count - 1] == 2.0f);
  CHECK_FALSE(store->epoch_snapshot(2).has_value());
}

TEST_CASE("epochs beyond those kept have no snapshot", "[hogwild]") {
  auto store = ParameterStore::create(model_layout(ModelKind::logreg), 1, 1);
  REQUIRE(store.ok());
  store->complete_epoch(0, 1);
  store->complete_epoch(0, 2);
  CHECK(store->epoch_snapshot(1).has_value());
  CHECK_FALSE(store->epoch_snapshot(2).has_value());
  CHECK_FALSE(store->epoch_snapshot(0).has_value());
  CHECK(store->counters(0).epoch.load() == 2);
}

TEST_CASE("the store sums its workers' counters and says how training diverged") {
  const auto layout = model_layout(ModelKind::logreg);
  auto store = ParameterStore::create(layout, 2).value();
  store.counters(0).samples = 10;
  store.counters(1).samples = 32;
  store.counters(0).flops = 100;
  store.counters(1).flops = 5;
  store.counters(0).recent_loss = 1.0;
  store.counters(1).recent_loss = 3.0;
  store.counters(0).epoch = 2;
  store.counters(1).epoch = 1;
  const auto totals = store.totals();
  CHECK(totals.samples == 42);
  CHECK(totals.flops == 105);
  CHECK(totals.mean_loss == 2.0);
  CHECK(totals.completed_epochs == 1);
  CHECK_FALSE(store.divergence());
  store.parameters()[3] = std::numeric_limits<float>::infinity();
  REQUIRE(store.divergence());
  CHECK(store.divergence()->rank == -1);
  store.counters(1).diverged = true;
  store.counters(1).recent_loss = std::numeric_limits<double>::quiet_NaN();
  const auto diverged = store.divergence();
  REQUIRE(diverged);
  CHECK(diverged->rank == 1);
  CHECK(std::isnan(diverged->loss));
  CHECK(diverged->epoch == 2);
  CHECK(diverged->samples == 32);
}
