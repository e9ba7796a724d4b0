// The convolutional front of the cnn model on lane groups (internal to
// hogwild/): conv1 5×5 → maxpool 2 → relu → conv2 5×5 → dropout2d →
// maxpool 2 → relu, forward and backward, with the shapes of
// hogwild/shapes.hpp. Layouts are channel-major with one lane vector per
// element: images [28][28], p1 [10][12][12], p2 [20][4][4]. Weight
// gradients are added to `grad` (not overwritten).
#pragma once

#include <vector>

#include "hogwild/lanes.hpp"
#include "hogwild/shapes.hpp"

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE {

// Pointers to the front's tensors in a flat array of `T` (`const S` for
// parameters, `S` for gradients): conv1 weight [10][1][5][5], bias [10];
// conv2 weight [20][10][5][5], bias [20].
template <class T>
struct ConvTensors {
  T* conv1_weight;
  T* conv1_bias;
  T* conv2_weight;
  T* conv2_bias;
};

// The front's parameters.
template <class S>
using ConvParameters = ConvTensors<const S>;

// The front's gradients, same layout as ConvParameters.
template <class S>
using ConvGradients = ConvTensors<S>;

// Buffers of one group's pass through the front, reused from group to group.
template <class S>
struct ConvWorkspace {
  using V = Lanes<S>;
  std::vector<V> image = std::vector<V>(image_pixels);                                            // [28][28]
  std::vector<V> conv1_rows = std::vector<V>(cnn::pool * cnn::conv1_side * cnn::conv1_channels);  // [2][24][10]
  std::vector<V> p1 = std::vector<V>(cnn::p1_size);                                               // [10][12][12]
  std::vector<V> p1_index = std::vector<V>(cnn::p1_size);  // window position 0–3 of each p1 maximum
  std::vector<V> c2 = std::vector<V>(cnn::c2_size);        // [20][8][8]
  std::vector<V> p2 = std::vector<V>(cnn::features);       // [20][4][4]
  std::vector<V> p2_index = std::vector<V>(cnn::features);
  std::vector<V> channel_mask = std::vector<V>(cnn::conv2_channels);  // dropout2d: 0 or 2 (1 without dropout)
  std::vector<V> d_p2 = std::vector<V>(cnn::features);
  std::vector<V> g_p2 =
      std::vector<V>(cnn::features);  // d_p2 through relu and dropout2d: each pooling winner's gradient
  std::vector<V> d_p1 = std::vector<V>(cnn::p1_size);
};

// Runs the front on `work.image` with `work.channel_mask`, filling p1, p2 and their pooling indices.
template <class S>
void conv_forward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work);

// Back-propagates `work.d_p2` through the front, adding weight and bias gradients to `grad`.
template <class S>
void conv_backward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work, const ConvGradients<S>& grad);

}  // namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE
