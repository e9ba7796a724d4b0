// The layer shapes of the built-in models, in one place: the layouts
// (model.cpp), the kernels' buffers and loops (conv.hpp, conv.cpp) and the
// network (network.cpp) all derive their sizes from these constants.
#pragma once

namespace mptrain::hogwild {

// Side of the square images every model expects.
inline constexpr int image_side = 28;
// Pixels of the images every model expects (28 × 28).
inline constexpr int image_pixels = image_side * image_side;
// Classes every model predicts.
inline constexpr int class_count = 10;

// The cnn (PyTorch's MNIST example):
//   image        [1][28][28]
//   conv1 5×5    [10][24][24]   weight [10][1][5][5] + bias [10]
//   maxpool 2    [10][12][12]   then relu                          (p1)
//   conv2 5×5    [20][8][8]     weight [20][10][5][5] + bias [20]  (c2), then dropout2d
//   maxpool 2    [20][4][4]     then relu, flattened to 320        (p2)
//   fc1          320 → 50       relu, dropout
//   fc2          50 → 10        log-softmax
namespace cnn {
inline constexpr int kernel = 5;                     // both convolutions: 5×5, stride 1, no padding
inline constexpr int kernel_taps = kernel * kernel;  // 25
inline constexpr int pool = 2;                       // both poolings: 2×2, stride 2
inline constexpr int pool_window = pool * pool;      // 4 positions, numbered in scan order

inline constexpr int conv1_channels = 10;
inline constexpr int conv1_side = image_side - kernel + 1;  // 24
inline constexpr int p1_side = conv1_side / pool;           // 12
inline constexpr int p1_plane = p1_side * p1_side;          // 144
inline constexpr int p1_size = conv1_channels * p1_plane;   // 1440

inline constexpr int conv2_channels = 20;
inline constexpr int c2_side = p1_side - kernel + 1;        // 8
inline constexpr int c2_plane = c2_side * c2_side;          // 64
inline constexpr int c2_size = conv2_channels * c2_plane;   // 1280
inline constexpr int p2_side = c2_side / pool;              // 4
inline constexpr int p2_plane = p2_side * p2_side;          // 16
inline constexpr int features = conv2_channels * p2_plane;  // 320: fc1's inputs

inline constexpr int hidden = 50;  // fc1's outputs

static_assert(conv1_side % pool == 0 && c2_side % pool == 0, "pooling must tile the conv outputs");
}  // namespace cnn

// The mlp: fc1 784 → 128, relu, fc2 128 → 10, log-softmax.
namespace mlp {
inline constexpr int hidden = 128;  // fc1's outputs
}  // namespace mlp

// The logreg: fc1 784 → 10, log-softmax.

}  // namespace mptrain::hogwild
