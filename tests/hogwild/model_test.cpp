// The models' layouts: PyTorch's shapes, in PyTorch's order.
#include "hogwild/model.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "hogwild/flops.hpp"

using namespace mptrain::hogwild;

namespace {

// The names and shapes of `kind`'s tensors, in order.
std::vector<std::pair<std::string, std::vector<int>>> shapes_of(ModelKind kind) {
  std::vector<std::pair<std::string, std::vector<int>>> shapes;
  for (const auto& info : model_layout(kind).tensors) shapes.emplace_back(info.name, info.shape);
  return shapes;
}

}  // namespace

TEST_CASE("the cnn has the shapes of PyTorch's MNIST example", "[hogwild]") {
  const std::vector<std::pair<std::string, std::vector<int>>> expected{
      {"conv1.weight", {10, 1, 5, 5}}, {"conv1.bias", {10}}, {"conv2.weight", {20, 10, 5, 5}}, {"conv2.bias", {20}},
      {"fc1.weight", {50, 320}},       {"fc1.bias", {50}},   {"fc2.weight", {10, 50}},         {"fc2.bias", {10}}};
  CHECK(shapes_of(ModelKind::cnn) == expected);
}

TEST_CASE("the mlp and logreg read 784 pixels and predict 10 classes", "[hogwild]") {
  const std::vector<std::pair<std::string, std::vector<int>>> mlp{
      {"fc1.weight", {128, 784}}, {"fc1.bias", {128}}, {"fc2.weight", {10, 128}}, {"fc2.bias", {10}}};
  const std::vector<std::pair<std::string, std::vector<int>>> logreg{{"fc1.weight", {10, 784}}, {"fc1.bias", {10}}};
  CHECK(shapes_of(ModelKind::mlp) == mlp);
  CHECK(shapes_of(ModelKind::logreg) == logreg);
}

TEST_CASE("tensors follow each other in the flat array", "[hogwild]") {
  for (ModelKind kind : {ModelKind::cnn, ModelKind::mlp, ModelKind::logreg}) {
    const auto layout = model_layout(kind);
    std::size_t next = 0;
    for (const auto& info : layout.tensors) {
      CHECK(info.offset == next);
      next += info.size;
    }
    CHECK(layout.parameter_count == next);
  }
}

TEST_CASE("each model's one layer list gives its tensors, their offsets and its FLOP rows") {
  for (const ModelKind kind : {ModelKind::cnn, ModelKind::mlp, ModelKind::logreg}) {
    const auto layers = model_layers(kind);
    const auto layout = model_layout(kind);
    REQUIRE(layout.layers.size() == layers.size());
    REQUIRE(layout.tensors.size() == 2 * layers.size());
    const auto flops = layer_flops(kind);
    REQUIRE(flops.size() == layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const std::string name(layers[i].name);
      CHECK(layout.tensor(name + ".weight").offset == layout.layers[i].weight);
      CHECK(layout.tensor(name + ".bias").offset == layout.layers[i].bias);
      CHECK(layout.tensor(name + ".bias").size == static_cast<std::size_t>(layers[i].outputs));
      CHECK(flops[i].layer == layers[i].name);
      CHECK((flops[i].input_grad == 0) == layers[i].reads_image);
    }
    CHECK(layers.front().reads_image);
  }
}
