// The dense layers' sparse paths against the plain sums they stand for:
// skipping the terms whose gradient is zero must leave every bit as it was.
// (Compiled here with the test's own flags, in a namespace of its own, as a
// kernel build is: lanes.hpp says why.)
#define MPTRAIN_KERNEL_NAMESPACE dense_test_kernels
#include "hogwild/dense.hpp"

#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

using namespace mptrain::hogwild::dense_test_kernels;
using namespace mptrain::hogwild::dense_test_kernels::dense;

namespace {

constexpr int inputs = 320;  // the cnn head's fc1
constexpr int outputs = 50;

// Lane vectors of values in [−1, 1); with `zeros` > 0, that share of them
// zero (a third of those −0, as dropout's mask makes them).
std::vector<Lanes<float>> random_lanes(int count, double zeros, std::mt19937& random) {
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::uniform_real_distribution<double> pick(0.0, 1.0);
  std::vector<Lanes<float>> out(static_cast<std::size_t>(count));
  for (auto& v : out) {
    for (int s = 0; s < lane_count; ++s) {
      const double p = pick(random);
      v[s] = p < zeros / 3 ? -0.0f : p < zeros ? 0.0f : value(random);
    }
  }
  return out;
}

bool same_bits(const float* a, const float* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

}  // namespace

TEST_CASE("the dense weight gradient skips zero gradients without changing a bit", "[hogwild]") {
  std::mt19937 random(7);
  for (const double zeros : {0.0, 0.75, 1.0}) {
    INFO("share of zero gradients " << zeros);
    const auto x = random_lanes(padded(inputs) / lane_count * lane_count, 0.0, random);
    const auto g = random_lanes(padded(outputs), zeros, random);
    std::vector<float> gw(inputs * outputs, 0.5f), gb(outputs, 0.25f);
    std::vector<float> expected_gw = gw, expected_gb = gb;
    auto rows = std::make_unique<Rows<float>>();
    weight_gradient<float, inputs, outputs>(x.data(), g.data(), gw.data(), gb.data(), *rows);
    // The plain sums, in the same order: over the samples in lane order, then onto the gradient.
    for (int o = 0; o < outputs; ++o) {
      float bias = 0;
      for (int s = 0; s < lane_count; ++s) bias += g[o][s];
      expected_gb[o] += bias;
      for (int i = 0; i < inputs; ++i) {
        float sum = 0;
        for (int s = 0; s < lane_count; ++s) sum += g[o][s] * x[i][s];
        expected_gw[o * inputs + i] += sum;
      }
    }
    CHECK(same_bits(gw.data(), expected_gw.data(), gw.size()));
    CHECK(same_bits(gb.data(), expected_gb.data(), gb.size()));
  }
}

TEST_CASE("the sparse input gradient gives the dense one's bits", "[hogwild]") {
  std::mt19937 random(11);
  std::vector<float> w(inputs * outputs);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (auto& v : w) v = value(random);
  for (const double zeros : {0.0, 0.75, 1.0}) {
    INFO("share of zero gradients " << zeros);
    const auto g = random_lanes(padded(outputs), zeros, random);
    std::vector<Lanes<float>> dense_dx(inputs), sparse_dx(inputs);
    input_gradient<float, inputs, outputs>(w.data(), g.data(), dense_dx.data());
    auto rows = std::make_unique<Rows<float>>();
    sparse_input_gradient<float, inputs, outputs>(w.data(), g.data(), sparse_dx.data(), *rows);
    CHECK(std::memcmp(dense_dx.data(), sparse_dx.data(), inputs * sizeof(Lanes<float>)) == 0);
  }
}
