#include "hogwild/model.hpp"

#include <cmath>
#include <stdexcept>

#include "hogwild/random.hpp"

namespace mptrain::hogwild {

namespace {

// Appends `name` with `shape` and `fan_in` to `layout`.
void add_tensor(ModelLayout& layout, std::string name, std::vector<int> shape, int fan_in) {
  std::size_t size = 1;
  for (int extent : shape) size *= static_cast<std::size_t>(extent);
  layout.tensors.push_back(TensorInfo{std::move(name), std::move(shape), layout.parameter_count, size, fan_in});
  layout.parameter_count += size;
}

// Appends a Linear layer `name` of `inputs` → `outputs`.
void add_linear(ModelLayout& layout, const std::string& name, int inputs, int outputs) {
  add_tensor(layout, name + ".weight", {outputs, inputs}, inputs);
  add_tensor(layout, name + ".bias", {outputs}, inputs);
}

// Appends a Conv2d layer `name` with square kernels of `kernel`.
void add_conv(ModelLayout& layout, const std::string& name, int inputs, int outputs, int kernel) {
  const int fan_in = inputs * kernel * kernel;
  add_tensor(layout, name + ".weight", {outputs, inputs, kernel, kernel}, fan_in);
  add_tensor(layout, name + ".bias", {outputs}, fan_in);
}

}  // namespace

std::string_view to_string(ModelKind kind) {
  switch (kind) {
    case ModelKind::cnn:
      return "cnn";
    case ModelKind::mlp:
      return "mlp";
    case ModelKind::logreg:
      return "logreg";
  }
  return "unknown";
}

Result<ModelKind> parse_model_kind(std::string_view text) {
  for (ModelKind kind : {ModelKind::cnn, ModelKind::mlp, ModelKind::logreg}) {
    if (text == to_string(kind)) return kind;
  }
  return Error{"unknown model '" + std::string(text) + "'; use cnn, mlp or logreg"};
}

const TensorInfo& ModelLayout::tensor(std::string_view name) const {
  for (const auto& info : tensors) {
    if (info.name == name) return info;
  }
  throw std::out_of_range("no tensor " + std::string(name));
}

ModelLayout model_layout(ModelKind kind) {
  ModelLayout layout;
  layout.kind = kind;
  switch (kind) {
    case ModelKind::cnn:
      add_conv(layout, "conv1", 1, cnn::conv1_channels, cnn::kernel);
      add_conv(layout, "conv2", cnn::conv1_channels, cnn::conv2_channels, cnn::kernel);
      add_linear(layout, "fc1", cnn::features, cnn::hidden);
      add_linear(layout, "fc2", cnn::hidden, class_count);
      break;
    case ModelKind::mlp:
      add_linear(layout, "fc1", image_pixels, mlp::hidden);
      add_linear(layout, "fc2", mlp::hidden, class_count);
      break;
    case ModelKind::logreg:
      add_linear(layout, "fc1", image_pixels, class_count);
      break;
  }
  return layout;
}

void initialize_parameters(const ModelLayout& layout, std::uint64_t seed, std::span<float> parameters) {
  Random random(seed);
  for (const auto& info : layout.tensors) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(info.fan_in));
    for (std::size_t i = 0; i < info.size; ++i) {
      parameters[info.offset + i] = static_cast<float>((2.0 * random.uniform() - 1.0) * bound);
    }
  }
}

}  // namespace mptrain::hogwild
