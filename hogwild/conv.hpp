// The convolutional front of the cnn model on lane groups (internal to
// hogwild/): conv1 5×5 → maxpool 2 → relu → conv2 5×5 → dropout2d →
// maxpool 2 → relu, forward and backward, with the shapes of
// hogwild/shapes.hpp. Layouts are channel-major with one lane vector per
// element: images [28][28], p1 [10][12][12], p2 [20][4][4]. Weight
// gradients are added to `grad` (not overwritten).
#pragma once

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

// conv2's backward runs sample by sample on rows: p1 and d_p1 of each sample
// laid out [12][12][10] (the 10 channels of a position together), so the
// 5×5×10 window a pooling winner meets is 5 rows of 50 contiguous values,
// and the winner is a scalar offset rather than a per-lane choice.
namespace cnn_rows {
inline constexpr int cell = cnn::conv1_channels;                 // 10 values: one p1 position's channels
inline constexpr int row = cnn::p1_side * cell;                  // 120: one p1 row
inline constexpr int segment = cnn::kernel * cell;               // 50: one kernel row over (kx, i)
inline constexpr int region_side = cnn::kernel + cnn::pool - 1;  // 6: the p1 rows and columns a pooled position reaches
inline constexpr int region = region_side * cell;                // 60: one row of that region
inline constexpr int segment_vectors = (segment + lane_count - 1) / lane_count;  // lane vectors covering a segment
inline constexpr int region_vectors = (region + lane_count - 1) / lane_count;    // lane vectors covering a region row
// Values per sample: p1 and room for the last window's whole vectors.
inline constexpr int sample_stride = cnn::p1_size + region_vectors * lane_count;
// conv2's weights as the input gradient reads them: per output channel and
// window column dx (0 or 1), the 5 kernel rows, each a region row's whole
// vectors with the row's 50 weights (kx, i) starting at value dx × 10 and
// zeros around them, so a winner at column dx adds them to its region rows
// unshifted, from aligned vectors.
inline constexpr int weight_row = region_vectors * lane_count;
inline constexpr int weight_shift = cnn::kernel * weight_row;  // one column shift
inline constexpr int weight_block = cnn::pool * weight_shift;  // one output channel
// The value offset of pooled position k's window corner (its top-left p1
// position) in a sample's p1 rows.
constexpr int pooled_corner(int k) {
  return (cnn::pool * (k / cnn::p2_side) * cnn::p1_side + cnn::pool * (k % cnn::p2_side)) * cell;
}
// The winner lists hold offsets as values of S (float): every offset must
// be an integer a float holds exactly (below 2^24).
inline constexpr int largest_offset = lane_count * sample_stride > cnn::conv2_channels* weight_block
                                          ? lane_count* sample_stride
                                          : cnn::conv2_channels* weight_block;
static_assert(largest_offset < (1 << 24), "offsets stored as floats stay exact integers");
// conv2's forward computes each sample's outputs [o][8][8] as whole lane vectors.
inline constexpr int output_vectors = cnn::c2_plane / lane_count;  // one channel's outputs
static_assert(cnn::c2_plane % lane_count == 0);
}  // namespace cnn_rows

// The pooling winners of conv2 that carry a gradient, listed per sample:
// by output channel for the weight gradient (each winner's offset in the
// sample's rows) and by pooled position for the input gradient (each
// winner's offset in the shifted weights). Winners whose gradient is zero
// (relu below zero, or a channel dropout2d removed) are left out.
template <class S>
struct ConvSampleRows {
  static constexpr int per_sample = cnn::features;  // 20 channels × 16 pooled positions
  // conv2's forward: each sample's p1 ([i][y][x]) and its conv outputs [o][8][8].
  Buffer<S, lane_count * cnn::p1_size> p1_planes;
  Buffer<S, lane_count * cnn::c2_size> c2;
  int kept_channels = 0;     // conv2 channels the last forward computed, over the lanes
  int gradient_winners = 0;  // conv2 pooling winners with a gradient in the last backward, over the lanes
  Buffer<S, lane_count * cnn_rows::sample_stride> p1;
  Buffer<S, lane_count * cnn_rows::sample_stride> d_p1;
  Buffer<S, cnn::conv2_channels * cnn_rows::weight_block> weights;
  Buffer<S, cnn::conv2_channels * cnn::kernel * cnn_rows::segment_vectors * lane_count> weight_grad;
  // Each winner's gradient and offsets in lanes: by channel ([o][k]) and by pooled position ([k][o]).
  Buffer<Lanes<S>, per_sample> lane_g;
  Buffer<Lanes<S>, per_sample> lane_p1;
  Buffer<Lanes<S>, per_sample> lane_position_g;
  Buffer<Lanes<S>, per_sample> lane_weight;
  Buffer<Lanes<S>, per_sample> lane_bottom;  // 1 for a winner in the window's bottom row
  // The same, each sample's own: by channel, gradient and offset in `p1`; by
  // pooled position, gradient, offset in `weights` and window row.
  Buffer<S, lane_count * per_sample> winner_g;
  Buffer<S, lane_count * per_sample> winner_p1;
  Buffer<S, lane_count * per_sample> position_g;
  Buffer<S, lane_count * per_sample> position_weight;
  Buffer<S, lane_count * per_sample> position_bottom;
  // The winners with a gradient (offsets as values of S); each list has
  // room for append_room values past its longest, as AVX-512 appends a
  // whole vector of 16 candidates at a time.
  static constexpr int append_room = 16;
  // By channel, one list over all the samples (offsets from the start of `p1`).
  static constexpr int by_channel_room = lane_count * cnn::p2_plane + append_room;
  Buffer<int, cnn::conv2_channels> by_channel_count;
  Buffer<S, cnn::conv2_channels * by_channel_room> by_channel_at;
  Buffer<S, cnn::conv2_channels * by_channel_room> by_channel_g;
  // By sample and pooled position, two lists: the winners in the window's
  // top row (dy 0), then (position_room further) those in its bottom row.
  static constexpr int position_room = cnn::conv2_channels + append_room;
  Buffer<int, lane_count * cnn::p2_plane> by_position_top;
  Buffer<int, lane_count * cnn::p2_plane> by_position_bottom;
  Buffer<S, lane_count * cnn::p2_plane * 2 * position_room> by_position_at;
  Buffer<S, lane_count * cnn::p2_plane * 2 * position_room> by_position_g;
};

// Buffers of one group's pass through the front, reused from group to group.
template <class S>
struct ConvWorkspace {
  using V = Lanes<S>;
  Buffer<V, image_pixels> image;                                            // [28][28]
  Buffer<V, cnn::pool * cnn::conv1_side * cnn::conv1_channels> conv1_rows;  // [2][24][10]
  Buffer<V, cnn::p1_size> p1;                                               // [10][12][12]
  Buffer<V, cnn::p1_size> p1_index;                                         // window position 0–3 of each p1 maximum
  Buffer<V, cnn::c2_size> c2;                                               // [20][8][8]
  Buffer<V, cnn::features> p2;                                              // [20][4][4]
  Buffer<V, cnn::features> p2_index;
  Buffer<V, cnn::conv2_channels> channel_mask;  // dropout2d: 0 or 2 (1 without dropout)
  Buffer<V, cnn::features> d_p2;
  Buffer<V, cnn::p1_size> d_p1;
  ConvSampleRows<S> rows;  // conv2's backward, sample by sample
};

// Runs the front on `work.image` with `work.channel_mask`, filling p1, p2 and their pooling indices.
template <class S>
void conv_forward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work);

// Back-propagates `work.d_p2` through the front, adding weight and bias gradients to `grad`.
template <class S>
void conv_backward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work, const ConvGradients<S>& grad);

}  // namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE
