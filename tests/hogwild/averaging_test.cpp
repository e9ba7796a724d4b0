#include "hogwild/averaging.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace mptrain::hogwild;

TEST_CASE("a round moves every node's model to the mean of their progress", "[hogwild][averaging]") {
  const std::vector<float> start = {1.0f, 2.0f};
  NodeAverage a(start), b(start);
  // Node a moved by (+2, 0), node b by (0, -4).
  std::vector<float> store_a = {3.0f, 2.0f}, store_b = {1.0f, -2.0f};
  std::vector<float> own_a(2), own_b(2), step_a(2), step_b(2);
  a.progress(store_a, own_a);
  b.progress(store_b, own_b);
  const std::vector<float> summed = {own_a[0] + own_b[0], own_a[1] + own_b[1]};
  a.finish_round(own_a, summed, 2, step_a);
  b.finish_round(own_b, summed, 2, step_b);
  for (std::size_t i = 0; i < 2; ++i) {
    store_a[i] -= step_a[i];
    store_b[i] -= step_b[i];
  }
  CHECK(store_a == std::vector<float>{2.0f, 0.0f});
  CHECK(store_b == std::vector<float>{2.0f, 0.0f});
  CHECK(std::vector<float>(a.average().begin(), a.average().end()) == std::vector<float>{2.0f, 0.0f});
  CHECK(std::vector<float>(b.average().begin(), b.average().end()) == std::vector<float>{2.0f, 0.0f});
}

TEST_CASE("updates the workers make during the exchange are kept", "[hogwild][averaging]") {
  NodeAverage average(std::vector<float>{0.0f});
  std::vector<float> store = {4.0f};  // progress +4 when the round starts
  std::vector<float> own(1), step(1);
  average.progress(store, own);
  store[0] += 1.0f;                                   // a worker's update lands while the sums travel
  const std::vector<float> summed = {own[0] + 8.0f};  // the other node moved by +8
  average.finish_round(own, summed, 2, step);
  store[0] -= step[0];
  CHECK(store[0] == 7.0f);  // the mean (6) plus the update made during the exchange (1)
  CHECK(average.average()[0] == 6.0f);
  // The next round counts that update as this node's progress.
  average.progress(store, own);
  CHECK(own[0] == 1.0f);
}

TEST_CASE("a node that made no progress moves to the others' mean", "[hogwild][averaging]") {
  NodeAverage average(std::vector<float>{1.0f, 1.0f});
  std::vector<float> store = {1.0f, 1.0f}, own(2), step(2);
  average.progress(store, own);
  CHECK(own == std::vector<float>{0.0f, 0.0f});
  average.finish_round(own, std::vector<float>{3.0f, -3.0f}, 3, step);
  CHECK(step == std::vector<float>{-1.0f, 1.0f});
}
