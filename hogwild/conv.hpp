// The convolutional front of the cnn model on lane groups (internal to
// hogwild/): conv1 5×5 → maxpool 2 → relu → conv2 5×5 → dropout2d →
// maxpool 2 → relu, forward and backward. Layouts are channel-major with
// one lane vector per element: images [28][28], p1 [10][12][12],
// p2 [20][4][4]. Weight gradients are added to `grad` (not overwritten).
#pragma once

#include <vector>

#include "hogwild/lanes.hpp"

namespace mptrain::hogwild {

// Shapes of the cnn's convolutional front.
namespace cnn {
inline constexpr int conv1_channels = 10;
inline constexpr int conv2_channels = 20;
inline constexpr int kernel_taps = 25;
inline constexpr int p1_side = 12;
inline constexpr int p1_size = conv1_channels * p1_side * p1_side;  // 1440
inline constexpr int c2_side = 8;
inline constexpr int features = 320;  // conv2_channels × 4 × 4
}  // namespace cnn

// Parameter pointers of the front: conv1 [10][25] + [10], conv2 [20][10][25] + [20].
template <class S>
struct ConvParameters {
  const S* conv1_weight;
  const S* conv1_bias;
  const S* conv2_weight;
  const S* conv2_bias;
};

// Gradient pointers matching ConvParameters.
template <class S>
struct ConvGradients {
  S* conv1_weight;
  S* conv1_bias;
  S* conv2_weight;
  S* conv2_bias;
};

// Buffers of one group's pass through the front, reused from group to group.
template <class S>
struct ConvWorkspace {
  using V = Lanes<S>;
  std::vector<V> image = std::vector<V>(784);
  std::vector<V> conv1_rows = std::vector<V>(2 * 24 * cnn::conv1_channels);
  std::vector<V> p1 = std::vector<V>(cnn::p1_size);
  std::vector<V> p1_index = std::vector<V>(cnn::p1_size);
  std::vector<V> c2 = std::vector<V>(cnn::conv2_channels * 64);
  std::vector<V> p2 = std::vector<V>(cnn::features);
  std::vector<V> p2_index = std::vector<V>(cnn::features);
  std::vector<V> channel_mask = std::vector<V>(cnn::conv2_channels);  // dropout2d: 0 or 2 (1 without dropout)
  std::vector<V> d_p2 = std::vector<V>(cnn::features);
  std::vector<V> d_c2 = std::vector<V>(cnn::conv2_channels * 64);
  std::vector<V> d_p1 = std::vector<V>(cnn::p1_size);
};

// Runs the front on `work.image` with `work.channel_mask`, filling p1, p2 and their pooling indices.
template <class S>
void conv_forward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work);

// Back-propagates `work.d_p2` through the front, adding weight and bias gradients to `grad`.
template <class S>
void conv_backward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work, const ConvGradients<S>& grad);

}  // namespace mptrain::hogwild
