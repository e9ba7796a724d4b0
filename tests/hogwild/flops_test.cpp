// The FLOPs per training sample the benchmark divides by: the counts of
// hogwild/flops.hpp against sums worked out by hand from the models' shapes,
// and the FLOPs the kernels report they performed.
#include "hogwild/flops.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "hogwild/isa.hpp"
#include "hogwild/kernels.hpp"
#include "hogwild/random.hpp"
#include "test_group.hpp"

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

TEST_CASE("the cnn's performed FLOPs drop what the kernels skip, and only that", "[hogwild]") {
  const std::int64_t model = flops_per_sample(ModelKind::cnn);
  // Nothing skipped: every channel kept, every winner with a gradient.
  CHECK(cnn_flops_done(3, 3 * 20, 3 * 320) == 3 * model);
  // Everything skippable skipped: conv2's forward (640,000) and its two gradients (2 × 160,000) go.
  CHECK(cnn_flops_done(1, 0, 0) == model - 640'000 - 320'000);
  // A kept channel is 8·8·10·25 multiply-adds; a winner 2 × 10·25.
  CHECK(cnn_flops_done(1, 1, 0) - cnn_flops_done(1, 0, 0) == 32'000);
  CHECK(cnn_flops_done(1, 0, 1) - cnn_flops_done(1, 0, 0) == 1'000);
}

namespace {

// The FLOPs `network` reports for one train_group of `group`.
std::int64_t flops_of(Network<float>& network, const std::vector<float>& parameters, const Group<float>& group) {
  std::vector<float> gradient(parameters.size(), 0.0f);
  const std::int64_t before = network.flops_done();
  network.train_group(parameters.data(), group, gradient.data());
  return network.flops_done() - before;
}

}  // namespace

TEST_CASE("a network counts the FLOPs its training passes perform, on every kernel build", "[hogwild]") {
  for (Isa isa : runnable_isas()) {
    INFO(to_string(isa));
    const ModelLayout layout = model_layout(ModelKind::cnn);
    std::vector<float> parameters(layout.parameter_count);
    initialize_parameters(layout, 3, parameters);
    Network<float> network(ModelKind::cnn, isa);
    CHECK(network.flops_done() == 0);

    // Without dropout, 5 samples keep all their 20 channels and the 11 empty
    // lanes none; each winner with a gradient adds 1,000 FLOPs to that floor.
    const TestGroup<float> plain(5, 5, false);
    const std::int64_t floor = cnn_flops_done(5, 5 * 20, 0);
    const std::int64_t counted = flops_of(network, parameters, plain.group);
    CHECK(counted > floor);
    CHECK(counted <= cnn_flops_done(5, 5 * 20, 5 * 320));
    CHECK((counted - floor) % 1'000 == 0);

    // With dropout2d about half the channels go, and the count says so.
    const TestGroup<float> dropped(16, 5, true);
    const std::int64_t with_dropout = flops_of(network, parameters, dropped.group);
    CHECK(with_dropout < cnn_flops_done(16, 16 * 14, 16 * 320));
    CHECK(with_dropout > cnn_flops_done(16, 16 * 6, 0));

    // Evaluation and the loss alone are not training: the count stands still.
    const std::int64_t total = network.flops_done();
    network.loss(parameters.data(), dropped.group);
    network.evaluate_group(parameters.data(), plain.group, nullptr);
    CHECK(network.flops_done() == total);
  }
}

TEST_CASE("the dense models' networks count every sample's whole FLOPs", "[hogwild]") {
  for (ModelKind kind : {ModelKind::mlp, ModelKind::logreg}) {
    const ModelLayout layout = model_layout(kind);
    std::vector<float> parameters(layout.parameter_count);
    initialize_parameters(layout, 3, parameters);
    Network<float> network(kind);
    const TestGroup<float> group(7, 5, false);
    CHECK(flops_of(network, parameters, group.group) == 7 * flops_per_sample(kind));
  }
}
