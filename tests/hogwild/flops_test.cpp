// The FLOPs per training sample the benchmark divides by: the counts of
// hogwild/flops.hpp against sums worked out by hand from the models' shapes.
#include "hogwild/flops.hpp"

#include <catch2/catch.hpp>

using namespace mptrain::hogwild;

TEST_CASE("the cnn counts 1,419,000 FLOPs per training sample", "[hogwild]") {
  // Multiply-adds, forward: conv1 24·24·10·25 = 144,000; conv2 8·8·20·10·25 = 320,000;
  // fc1 320·50 = 16,000; fc2 50·10 = 500.
  // Backward, one position of each 2×2 pooling window: conv1 weights 12·12·10·25 = 36,000;
  // conv2 weights and p1 4·4·20·10·25 = 80,000 each; fc1 and fc2 weights and inputs 16,000 + 16,000 and 500 + 500.
  const std::int64_t forward = 144'000 + 320'000 + 16'000 + 500;
  const std::int64_t backward = 36'000 + 2 * 80'000 + 2 * 16'000 + 2 * 500;
  CHECK(2 * forward == 961'000);
  CHECK(flops_per_sample(ModelKind::cnn) == 2 * (forward + backward));
  CHECK(flops_per_sample(ModelKind::cnn) == 1'419'000);
}

TEST_CASE("the cnn's pooled backward counts a quarter of its conv outputs", "[hogwild]") {
  const auto layers = layer_flops(ModelKind::cnn);
  REQUIRE(layers.size() == 4);
  CHECK(layers[0].layer == "conv1");
  CHECK(layers[0].weight_grad * 4 == layers[0].forward);
  CHECK(layers[0].input_grad == 0);  // the image needs no gradient
  CHECK(layers[1].layer == "conv2");
  CHECK(layers[1].weight_grad * 4 == layers[1].forward);
  CHECK(layers[1].input_grad == layers[1].weight_grad);
}

TEST_CASE("the dense models count no gradient for the image", "[hogwild]") {
  // mlp: fc1 784·128 = 100,352 forward and weights; fc2 128·10 = 1,280 forward, weights and inputs.
  CHECK(flops_per_sample(ModelKind::mlp) == 2 * (2 * 100'352 + 3 * 1'280));
  // logreg: 784·10 = 7,840, forward and weights.
  CHECK(flops_per_sample(ModelKind::logreg) == 2 * (2 * 7'840));
}
