#include "hogwild/store.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
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
