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
// the optimiser's step. Sizes come from hogwild/shapes.hpp. Header-only:
// the counts are a few constant products.
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

// What a dense layer reads: the image (no input gradient) or another layer's output.
enum class DenseInput { image, activations };

// A dense layer `inputs` → `outputs`: the forward product, the weight
// gradient and, unless its input is the image, the input gradient.
inline LayerFlops dense(std::string_view name, int inputs, int outputs, DenseInput input) {
  const std::int64_t product = fma_flops(std::int64_t{inputs} * outputs);
  return {name, product, product, input == DenseInput::image ? 0 : product};
}

// The cnn's layers; see hogwild/shapes.hpp for the shapes.
inline std::vector<LayerFlops> cnn_layers() {
  using namespace cnn;
  // conv1: every output [10][24][24] is 25 taps of the one input channel.
  // Backward: the weight gradient correlates each pooled position's routed
  // gradient [10][12][12] with its 5×5 window; the image needs no gradient.
  const LayerFlops conv1{"conv1", fma_flops(std::int64_t{conv1_channels} * conv1_side * conv1_side * kernel_taps),
                         fma_flops(std::int64_t{p1_size} * kernel_taps), 0};
  // conv2: every output [20][8][8] is 10 × 25 taps. Backward: the gradient
  // reaches one position of each 2×2 window, [20][4][4] of the [20][8][8],
  // and each of those takes 10 × 25 multiply-adds for the weight gradient and
  // as many for the gradient of p1.
  const std::int64_t taps2 = std::int64_t{conv1_channels} * kernel_taps;
  const std::int64_t routed2 = fma_flops(std::int64_t{features} * taps2);
  const LayerFlops conv2{"conv2", fma_flops(std::int64_t{c2_size} * taps2), routed2, routed2};
  return {conv1, conv2, dense("fc1", features, hidden, DenseInput::activations),
          dense("fc2", hidden, class_count, DenseInput::activations)};
}

}  // namespace flops_detail

inline std::vector<LayerFlops> layer_flops(ModelKind kind) {
  using namespace flops_detail;
  switch (kind) {
    case ModelKind::cnn:
      return cnn_layers();
    case ModelKind::mlp:
      return {dense("fc1", image_pixels, mlp::hidden, DenseInput::image),
              dense("fc2", mlp::hidden, class_count, DenseInput::activations)};
    case ModelKind::logreg:
      return {dense("fc1", image_pixels, class_count, DenseInput::image)};
  }
  return {};
}

inline std::int64_t flops_per_sample(ModelKind kind) {
  std::int64_t total = 0;
  for (const auto& layer : layer_flops(kind)) total += layer.forward + layer.weight_grad + layer.input_grad;
  return total;
}

inline std::int64_t cnn_flops_done(std::int64_t samples, std::int64_t kept_channels, std::int64_t gradient_winners) {
  const LayerFlops conv2 = flops_detail::cnn_layers()[1];
  const std::int64_t rest = flops_per_sample(ModelKind::cnn) - conv2.forward - conv2.weight_grad - conv2.input_grad;
  return samples * rest + kept_channels * (conv2.forward / cnn::conv2_channels) +
         gradient_winners * ((conv2.weight_grad + conv2.input_grad) / cnn::features);
}

}  // namespace mptrain::hogwild
