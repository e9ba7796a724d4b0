#include "hogwild/model.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

#include "hogwild/random.hpp"
#include "util/names.hpp"

namespace mptrain::hogwild {

namespace {

// Appends `name` with `shape` and `fan_in` to `layout`; returns its offset.
std::size_t add_tensor(ModelLayout& layout, std::string name, std::vector<int> shape, int fan_in) {
  std::size_t size = 1;
  for (int extent : shape) size *= static_cast<std::size_t>(extent);
  const std::size_t offset = layout.parameter_count;
  layout.tensors.push_back(TensorInfo{std::move(name), std::move(shape), offset, size, fan_in});
  layout.parameter_count += size;
  return offset;
}

// Appends `layer`'s weight and bias in PyTorch's shapes (Conv2d's
// [out][in][k][k], Linear's [out][in]).
void add_layer(ModelLayout& layout, const LayerSpec& layer) {
  const std::string name(layer.name);
  const bool conv = layer.kind == LayerKind::conv;
  const int fan_in = conv ? layer.inputs * layer.kernel * layer.kernel : layer.inputs;
  std::vector<int> shape = conv ? std::vector<int>{layer.outputs, layer.inputs, layer.kernel, layer.kernel}
                                : std::vector<int>{layer.outputs, layer.inputs};
  LayerOffsets offsets;
  offsets.weight = add_tensor(layout, name + ".weight", std::move(shape), fan_in);
  offsets.bias = add_tensor(layout, name + ".bias", {layer.outputs}, fan_in);
  layout.layers.push_back(offsets);
}

constexpr std::array cnn_layers{
    LayerSpec{"conv1", LayerKind::conv, 1, cnn::conv1_channels, cnn::kernel, cnn::conv1_side, cnn::pool, true},
    LayerSpec{"conv2", LayerKind::conv, cnn::conv1_channels, cnn::conv2_channels, cnn::kernel, cnn::c2_side, cnn::pool,
              false},
    LayerSpec{"fc1", LayerKind::dense, cnn::features, cnn::hidden},
    LayerSpec{"fc2", LayerKind::dense, cnn::hidden, class_count},
};
constexpr std::array mlp_layers{
    LayerSpec{"fc1", LayerKind::dense, image_pixels, mlp::hidden, 0, 0, 1, true},
    LayerSpec{"fc2", LayerKind::dense, mlp::hidden, class_count},
};
constexpr std::array logreg_layers{
    LayerSpec{"fc1", LayerKind::dense, image_pixels, class_count, 0, 0, 1, true},
};

static_assert(cnn::conv1_side == image_side - cnn::kernel + 1 && cnn::c2_side == cnn::p1_side - cnn::kernel + 1,
              "the cnn's layer list and its shapes agree");

}  // namespace

std::string_view to_string(ModelKind kind) { return name_of(model_names, kind); }

Result<ModelKind> parse_model_kind(std::string_view text) {
  if (const auto kind = value_named(model_names, text)) return *kind;
  return Error{"unknown model '" + std::string(text) + "'; use " + names_list(model_names)};
}

const TensorInfo& ModelLayout::tensor(std::string_view name) const {
  for (const auto& info : tensors) {
    if (info.name == name) return info;
  }
  throw std::out_of_range("no tensor " + std::string(name));
}

std::span<const LayerSpec> model_layers(ModelKind kind) {
  switch (kind) {
    case ModelKind::cnn:
      return cnn_layers;
    case ModelKind::mlp:
      return mlp_layers;
    case ModelKind::logreg:
      return logreg_layers;
  }
  return {};
}

ModelLayout model_layout(ModelKind kind) {
  ModelLayout layout;
  layout.kind = kind;
  for (const auto& layer : model_layers(kind)) add_layer(layout, layer);
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
