// The floating-point work of one training sample, counted as the kernels
// perform it, for the benchmark's share of the machine's FMA peak (SPEC
// "Performance bar"). One multiply-add counts 2 FLOPs. Counted: the
// convolutions and dense products, forward and backward. The pooled
// backward of the cnn touches one position of each 2×2 window (the maximum
// the forward kept), so conv1's weight gradient and conv2's weight and
// input gradients count a quarter of the conv outputs; the image needs no
// gradient, and neither does the first dense layer's input when it is the
// image. Not counted (under 1% of the cnn's count, and no FMA work): bias
// additions, relu, the max of the pooling, dropout masks, log-softmax and
// the optimiser's step. The layers and their sizes come from the models'
// one layer list (model_layers, hogwild/model.hpp). Header-only: the counts
// are a few constant products.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "hogwild/model.hpp"
#include "hogwild/shapes.hpp"

namespace mptrain::hogwild {

// One layer's FLOPs per sample.
struct LayerFlops {
  std::string_view layer;  // "conv1", "conv2", "fc1", "fc2"
  std::int64_t forward = 0;
  std::int64_t weight_grad = 0;  // the weight gradient (backward)
  std::int64_t input_grad = 0;   // the gradient of the layer's input (backward); 0 for the first layer
};

// The layers of `kind` in forward order with their FLOPs per sample.
inline std::vector<LayerFlops> layer_flops(ModelKind kind);

// FLOPs of one training sample (forward and backward) of `kind`: the sum of layer_flops.
inline std::int64_t flops_per_sample(ModelKind kind);

// What the kernels skip of that count for the cnn, and so do not perform:
// conv2's forward for the channels dropout2d removes (20 per sample are
// counted, a sample keeps about half) and both of conv2's gradients at the
// pooling winners whose gradient is zero (320 per sample are counted; relu
// and dropout2d zero about two thirds). The FLOPs the cnn's training
// passes perform for `samples` samples that kept `kept_channels` channels
// in all and had `gradient_winners` winners with a gradient:
inline std::int64_t cnn_flops_done(std::int64_t samples, std::int64_t kept_channels, std::int64_t gradient_winners);

// ---------------------------------------------------------------------------
// The counts.

namespace flops_detail {

// FLOPs of `multiply_adds` multiply-adds.
constexpr std::int64_t fma_flops(std::int64_t multiply_adds) { return 2 * multiply_adds; }

// One layer's count. A dense layer: the forward product, the weight
// gradient and, unless it reads the image, the input gradient, each
// inputs × outputs. A conv layer: every output position is inputs × k²
// taps; backward, the gradient reaches one position of each pooling window
// (the maximum the forward kept), so the weight gradient and the input
// gradient (none for the image) each take inputs × k² per pooled position.
inline LayerFlops count(const LayerSpec& layer) {
  if (layer.kind == LayerKind::dense) {
    const std::int64_t product = fma_flops(std::int64_t{layer.inputs} * layer.outputs);
    return {layer.name, product, product, layer.reads_image ? 0 : product};
  }
  const std::int64_t taps = std::int64_t{layer.inputs} * layer.kernel * layer.kernel;
  const std::int64_t pooled_side = layer.output_side / layer.pool;
  const std::int64_t forward = fma_flops(std::int64_t{layer.outputs} * layer.output_side * layer.output_side * taps);
  const std::int64_t routed = fma_flops(std::int64_t{layer.outputs} * pooled_side * pooled_side * taps);
  return {layer.name, forward, routed, layer.reads_image ? 0 : routed};
}

// The cnn's conv2, whose forward skips dropped channels and whose backward skips winners without a gradient.
inline LayerFlops cnn_conv2() {
  for (const auto& layer : model_layers(ModelKind::cnn)) {
    if (layer.name == "conv2") return count(layer);
  }
  return {};
}

}  // namespace flops_detail

inline std::vector<LayerFlops> layer_flops(ModelKind kind) {
  std::vector<LayerFlops> layers;
  for (const auto& layer : model_layers(kind)) layers.push_back(flops_detail::count(layer));
  return layers;
}

inline std::int64_t flops_per_sample(ModelKind kind) {
  std::int64_t total = 0;
  for (const auto& spec : model_layers(kind)) {
    const LayerFlops layer = flops_detail::count(spec);
    total += layer.forward + layer.weight_grad + layer.input_grad;
  }
  return total;
}

inline std::int64_t cnn_flops_done(std::int64_t samples, std::int64_t kept_channels, std::int64_t gradient_winners) {
  const LayerFlops conv2 = flops_detail::cnn_conv2();
  const std::int64_t rest = flops_per_sample(ModelKind::cnn) - conv2.forward - conv2.weight_grad - conv2.input_grad;
  return samples * rest + kept_channels * (conv2.forward / cnn::conv2_channels) +
         gradient_winners * ((conv2.weight_grad + conv2.input_grad) / cnn::features);
}

}  // namespace mptrain::hogwild
