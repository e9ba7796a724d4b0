// Direct convolutions, in two layouts. Where every sample does the same
// work (conv1, the poolings), a loop is a plain scalar loop whose "scalar"
// is a lane vector of samples (one register), so each multiply-add is one
// full-width vector FMA with a broadcast weight; the innermost loops have
// constant trip counts so the accumulators stay in registers. Where the
// work depends on the sample (conv2: the channels dropout2d keeps, the
// pooling winners that carry a gradient), the loops run sample by sample
// over each sample's own values, transposed out of the lanes, and skip
// what is zero.
//
// The backward passes touch only the pooling winners: one position of each
// 2×2 window gets a gradient. conv1's picks each lane's winner with blends
// (vector `?:`), so one FMA does the work four would do over the whole
// window; conv2's takes each winner as a scalar offset.
//
// Each layer has a forward and a backward function; the sizes are the named
// shapes of hogwild/shapes.hpp. The `#pragma GCC unroll` counts spell out
// conv1_channels (10), conv2_channels (20), kernel_taps (25) and kernel (5)
// because a pragma takes only a literal; the static_asserts below keep them
// in step.
#include "hogwild/conv.hpp"

#include <type_traits>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE {

namespace {

using namespace cnn;

static_assert(conv1_channels == 10 && conv2_channels == 20 && kernel == 5 && kernel_taps == 25,
              "update the #pragma GCC unroll counts to the new shapes");
static_assert(pool == 2, "pool_relu, add_band_at_max and conv2's winner offsets take a 2×2 window");

constexpr int conv2_weights_per_output = conv1_channels * kernel_taps;  // conv2 weight [o][i][ky][kx]: 250 per o

// Keeps the first maximum of the 2×2 window (a, b; c, d) in scan order and
// its position 0–3, as PyTorch's max_pool2d does; writes relu(max).
template <class V>
inline void pool_relu(V a, V b, V c, V d, V& out, V& index) {
  const V zero{};
  V best = a;
  V where = zero;
  where = b > best ? zero + 1.0f : where;
  best = b > best ? b : best;
  where = c > best ? zero + 2.0f : where;
  best = c > best ? c : best;
  where = d > best ? zero + 3.0f : where;
  best = d > best ? d : best;
  out = best > 0 ? best : V{};
  index = where;
}

// `v`, kept in a register. Where a loaded value is used twice (an input
// row of conv1's window serves two kernel rows), GCC otherwise folds the
// load back into each use's memory operand when registers are short, and a
// Zen 4 core loads one 512-bit vector a cycle: the loads, not the FMAs or
// the blends, then bound conv1's weight gradient. A no-op for a vector
// wider than one register (doubles with 16 lanes).
template <class V>
inline V held(V v) {
#if defined(__x86_64__)
  if constexpr (sizeof(V) == lane_count * sizeof(float)) __asm__("" : "+v"(v));
#endif
  return v;
}

// A weight gradient's share of one pooled output, for the kernel rows
// first … first + rows − 1: adds g × those rows of the 5×5 input window
// under the conv position that won the pooling, lane by lane, to acc[rows ×
// 5]. `corner` is the input under the top-left position of the 2×2 pooling
// window, in rows of `row_stride`. Only the winner gets a gradient, so this
// touches a quarter of the conv positions: each lane's window is picked
// with blends (rows, then columns) rather than correlating all four
// positions with a gradient that is zero at three of them. The input rows
// are walked down once, each loaded once, into registers: an input row
// serves as the bottom of one kernel row's choice and the top of the next.
template <int first, int rows, int row_stride, class V, class Mask>
inline void add_band_at_max(V g, Mask down, Mask right, const V* corner, V* acc) {
  V above[kernel + 1];
#pragma GCC unroll 6
  for (int c = 0; c <= kernel; ++c) above[c] = held(corner[first * row_stride + c]);
#pragma GCC unroll 3
  for (int r = 0; r < rows; ++r) {
    const V* below = corner + (first + r + 1) * row_stride;
    V left{};
#pragma GCC unroll 6
    for (int c = 0; c <= kernel; ++c) {
      const V in = held(below[c]);
      const V picked = down ? in : above[c];  // this column of the kernel row's window row
      above[c] = in;
      if (c > 0) acc[r * kernel + c - 1] += g * (right ? picked : left);
      left = picked;
    }
  }
}

// ---------------------------------------------------------------------------
// conv1: image [28][28] → conv 5×5 (+bias) [10][24][24] → maxpool 2 → relu → p1 [10][12][12]

// conv1 (+bias) for image rows `y` and `y + 1`, all columns and channels, into `rows` [2][24][10].
// Out of line (12 calls a group) so that bench/kernel_profile.sh can name its time.
template <class S>
__attribute__((noinline)) void conv1_row_pair(const ConvParameters<S>& p, const Lanes<S>* image, int y,
                                              Lanes<S>* rows) {
  using V = Lanes<S>;
  for (int dy = 0; dy < pool; ++dy) {
    for (int x = 0; x < conv1_side; ++x) {
      V acc[conv1_channels];
#pragma GCC unroll 10
      for (int c = 0; c < conv1_channels; ++c) acc[c] = V{} + p.conv1_bias[c];
      for (int ky = 0; ky < kernel; ++ky) {
        for (int kx = 0; kx < kernel; ++kx) {
          const V in = image[(y + dy + ky) * image_side + x + kx];
          const int tap = ky * kernel + kx;
#pragma GCC unroll 10
          for (int c = 0; c < conv1_channels; ++c) acc[c] += p.conv1_weight[c * kernel_taps + tap] * in;
        }
      }
      V* out = rows + (dy * conv1_side + x) * conv1_channels;
#pragma GCC unroll 10
      for (int c = 0; c < conv1_channels; ++c) out[c] = acc[c];
    }
  }
}

// image → p1 and p1_index. The conv output is made two rows at a time (the
// rows of one pooled row), so only [2][24][10] of it is ever held.
template <class S>
void conv1_forward(const ConvParameters<S>& p, ConvWorkspace<S>& w) {
  using V = Lanes<S>;
  for (int py = 0; py < p1_side; ++py) {
    conv1_row_pair(p, w.image.data(), pool * py, w.conv1_rows.data());
    const V* top = w.conv1_rows.data();
    const V* bottom = top + conv1_side * conv1_channels;
    for (int px = 0; px < p1_side; ++px) {
      for (int c = 0; c < conv1_channels; ++c) {
        const int left = pool * px * conv1_channels + c;
        const int right = left + conv1_channels;
        const int at = c * p1_plane + py * p1_side + px;
        pool_relu(top[left], top[right], bottom[left], bottom[right], w.p1[at], w.p1_index[at]);
      }
    }
  }
}

// d_p1 [10][12][12] through relu and the pooling → conv1's weight [10][25] and
// bias [10] gradients, correlating each pooling winner's gradient with the 5×5 image window under it.
// A channel's 25 taps take two passes over its windows, kernel rows 0–2 and
// then 3–4: with all 25 accumulators the inputs held in registers did not
// fit the 32 registers, and were loaded again for every use. The
// first pass also sums the bias gradient. Each accumulator still adds the
// windows in the same order, so the bits do not depend on the split.
inline constexpr int top_band_rows = 3;

template <int first, int rows, class S>
void conv1_weight_grad_band(ConvWorkspace<S>& w, int c, const ConvGradients<S>& grad) {
  using V = Lanes<S>;
  V acc[rows * kernel];
#pragma GCC unroll 15
  for (int t = 0; t < rows * kernel; ++t) acc[t] = V{};
  V bias_acc{};
  for (int py = 0; py < p1_side; ++py) {
    for (int px = 0; px < p1_side; ++px) {
      const int at = c * p1_plane + py * p1_side + px;
      const V g = w.p1[at] > 0 ? w.d_p1[at] : V{};
      if constexpr (first == 0) bias_acc += g;
      const V index = w.p1_index[at];
      const auto down = index >= 2.0f;                       // positions 2 and 3: the window's bottom row
      const auto right = (index == 1.0f) | (index == 3.0f);  // positions 1 and 3: its right column
      add_band_at_max<first, rows, image_side>(g, down, right, w.image.data() + pool * py * image_side + pool * px,
                                               acc);
    }
  }
  for (int t = 0; t < rows * kernel; ++t)
    grad.conv1_weight[c * kernel_taps + first * kernel + t] += lane_sum<S>(acc[t]);
  if constexpr (first == 0) grad.conv1_bias[c] += lane_sum<S>(bias_acc);
}

// d_p1 → conv1's weight and bias gradients, a channel at a time.
template <class S>
void conv1_backward(ConvWorkspace<S>& w, const ConvGradients<S>& grad) {
  for (int c = 0; c < conv1_channels; ++c) {
    conv1_weight_grad_band<0, top_band_rows>(w, c, grad);
    conv1_weight_grad_band<top_band_rows, kernel - top_band_rows>(w, c, grad);
  }
}

// ---------------------------------------------------------------------------
// conv2: p1 [10][12][12] → conv 5×5 (+bias) × dropout2d mask → c2 [20][8][8]
//        → maxpool 2 → relu → p2 [20][4][4]

// With AVX-512's 16 lanes an output vector of conv2 is two rows of 8
// outputs; with 8 or 4 it lies in one row. p1 is read in place: a copy in a
// load-friendly layout pushes other buffers out of L1 (docs/benchmarks.md).
inline constexpr bool conv2_two_rows_per_vector = lane_count == 2 * c2_side;
static_assert(conv2_two_rows_per_vector || c2_side % lane_count == 0);

// The inputs of output vector `v` (outputs v × lane_count on, [y][x]) at tap
// (ky, kx) of input channel `i`, from one sample's p1 [i][12][12]: whole
// rows of 8, two of them per vector with 16 lanes, half a row with 4.
template <class S>
inline Lanes<S> conv2_inputs(const S* planes, int i, int ky, int kx, int v) {
  const int out = v * lane_count;  // output (out / 8, out % 8)
  const S* at = planes + i * p1_plane + (out / c2_side + ky) * p1_side + out % c2_side + kx;
  if constexpr (conv2_two_rows_per_vector) {
    typedef S Row __attribute__((vector_size(c2_side * sizeof(S))));
    Row top;
    Row bottom;
    __builtin_memcpy(&top, at, sizeof top);
    __builtin_memcpy(&bottom, at + p1_side, sizeof bottom);
    return __builtin_shufflevector(top, bottom, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  } else {
    return load_lanes<S>(at);
  }
}

// conv2 (+bias) × dropout2d mask of sample `s`'s channels channel[0..block)
// into its c2 [o][8][8], from its p1 `planes`: `chunk` output vectors of
// each channel in accumulators at a time, so each input vector is loaded
// once per block.
template <class S, int block, int chunk>
void conv2_block(const ConvParameters<S>& p, const ConvWorkspace<S>& w, int s, const S* planes, const int* channel,
                 S* c2) {
  using V = Lanes<S>;
  using namespace cnn_rows;
  static_assert(output_vectors % chunk == 0);
  const S* weights[block];
  for (int j = 0; j < block; ++j) weights[j] = p.conv2_weight + channel[j] * conv2_weights_per_output;
  for (int v0 = 0; v0 < output_vectors; v0 += chunk) {
    V acc[block][chunk] = {};
    for (int i = 0; i < conv1_channels; ++i) {
      for (int ky = 0; ky < kernel; ++ky) {
#pragma GCC unroll 5
        for (int kx = 0; kx < kernel; ++kx) {
          V x[chunk];
#pragma GCC unroll 16
          for (int c = 0; c < chunk; ++c) x[c] = conv2_inputs<S>(planes, i, ky, kx, v0 + c);
          const int tap = i * kernel_taps + ky * kernel + kx;
#pragma GCC unroll 8
          for (int j = 0; j < block; ++j) {
            const V weight = broadcast(weights[j][tap]);
#pragma GCC unroll 16
            for (int c = 0; c < chunk; ++c) acc[j][c] += weight * x[c];
          }
        }
      }
    }
    for (int j = 0; j < block; ++j) {
      const S bias = p.conv2_bias[channel[j]];
      const S mask = w.channel_mask[channel[j]][s];
      for (int c = 0; c < chunk; ++c) {
        store_lanes<S>(c2 + channel[j] * c2_plane + (v0 + c) * lane_count, (acc[j][c] + bias) * mask);
      }
    }
  }
}

// The last `left` (< block) channels, as one block of that many.
template <class S, int block, int chunk>
void conv2_last_block(int left, const ConvParameters<S>& p, const ConvWorkspace<S>& w, int s, const S* planes,
                      const int* channel, S* c2) {
  if constexpr (block > 1) {
    if (left == block - 1) {
      conv2_block<S, block - 1, chunk>(p, w, s, planes, channel, c2);
    } else {
      conv2_last_block<S, block - 1, chunk>(left, p, w, s, planes, channel, c2);
    }
  }
}

// conv2 (+bias) × dropout2d mask into c2, sample by sample and only for
// the channels dropout2d keeps (half of them in training), `block` at a
// time and the rest as one smaller block. A channel dropout2d removed is
// zero, as the mask makes it. Each output's sum runs over (i, ky, kx) in
// the same order whatever the blocks, so the bits do not depend on them.
template <class S, int block, int chunk>
void conv2_apply(const ConvParameters<S>& p, ConvWorkspace<S>& w) {
  using namespace cnn_rows;
  auto& rows = w.rows;
  static_assert(p1_size % lane_count == 0 && c2_size % lane_count == 0);
  lanes_to_rows<S>(w.p1.data(), p1_size, rows.p1_planes.data());  // each sample's p1, [i][y][x]
  rows.kept_channels = 0;
  for (int s = 0; s < lane_count; ++s) {
    S* c2 = rows.c2.data() + s * c2_size;
    int live[conv2_channels];
    int count = 0;
    for (int o = 0; o < conv2_channels; ++o) {
      const bool kept = w.channel_mask[o][s] != 0;
      live[count] = o;
      count += kept ? 1 : 0;
      if (!kept) {
        for (int v = 0; v < c2_plane; ++v) c2[o * c2_plane + v] = 0;  // the blocks below write only the kept
      }
    }
    rows.kept_channels += count;
    const S* planes = rows.p1_planes.data() + s * p1_size;
    int first = 0;
    for (; first + block <= count; first += block) conv2_block<S, block, chunk>(p, w, s, planes, live + first, c2);
    conv2_last_block<S, block, chunk>(count - first, p, w, s, planes, live + first, c2);
  }
  rows_to_lanes<S>(rows.c2.data(), c2_size, w.c2.data());
}

// maxpool 2 → relu of c2 into p2 and p2_index.
template <class S>
void conv2_pool(ConvWorkspace<S>& w) {
  for (int o = 0; o < conv2_channels; ++o) {
    const auto* plane = w.c2.data() + o * c2_plane;
    for (int py = 0; py < p2_side; ++py) {
      for (int px = 0; px < p2_side; ++px) {
        const int top = pool * py * c2_side + pool * px;
        const int at = o * p2_plane + py * p2_side + px;
        pool_relu(plane[top], plane[top + 1], plane[top + c2_side], plane[top + c2_side + 1], w.p2[at], w.p2_index[at]);
      }
    }
  }
}

// p1 → p2 and p2_index.
template <class S>
void conv2_forward(const ConvParameters<S>& p, ConvWorkspace<S>& w) {
  // Channels per block and output vectors per pass: 5 × 4 accumulators in 32 registers, 1 × 8 in 16.
  constexpr int block = wide_register_file ? 5 : 1;
  constexpr int chunk = wide_register_file ? 4 : 8;
  static_assert(block * chunk < vector_registers, "the accumulators and an operand fit in the registers");
  conv2_apply<S, block, chunk>(p, w);
  conv2_pool(w);
}

// ---------------------------------------------------------------------------
// conv2 backward, sample by sample (hogwild/conv.hpp, cnn_rows): each
// pooling winner that carries a gradient is a scalar g and a scalar
// position, so its share of the weight gradient is g × 5 rows of 50
// contiguous p1 values, and its share of the input gradient is g × 6
// shifted weight rows added to the 6×6×10 region under its pooling window:
// whole-vector FMAs with no per-lane choice, and none at all for the
// winners a relu or dropout2d zeroed.

using namespace cnn_rows;

// The gradient each of conv2's pooling winners gets (d_p2 through relu and
// dropout2d; the other three positions of its window get none), and where
// the winner reaches, in lanes: its window's offset in the p1 rows, its
// shifted weights' offset in rows.weights and its window row. Then each
// sample's own values, by transposes: by channel (for the weight gradient)
// and by pooled position (for the input gradient). Adds conv2's bias
// gradient [20].
template <class S>
void conv2_winners(ConvWorkspace<S>& w, S* bias_grad) {
  using V = Lanes<S>;
  auto& rows = w.rows;
  V* g = rows.lane_g.data();
  V* p1_at = rows.lane_p1.data();
  V* position_g = rows.lane_position_g.data();
  V* weight_at = rows.lane_weight.data();
  V* bottom = rows.lane_bottom.data();
  for (int o = 0; o < conv2_channels; ++o) {
    V bias_acc{};
    for (int k = 0; k < p2_plane; ++k) {
      const int at = o * p2_plane + k;          // by channel
      const int here = k * conv2_channels + o;  // by pooled position
      g[at] = (w.p2[at] > 0 ? w.d_p2[at] : V{}) * w.channel_mask[o];
      bias_acc += g[at];
      const V index = w.p2_index[at];  // 0–3: dy = index / 2, dx = index % 2
      const V dy = index >= S(pool) ? broadcast(S(1)) : V{};
      const V dx = index - S(pool) * dy;
      const S corner = S(pooled_corner(k));
      p1_at[at] = corner + S(row) * dy + S(cell) * dx;
      position_g[here] = g[at];
      weight_at[here] = S(o * weight_block) + S(weight_shift) * dx;
      bottom[here] = dy;
    }
    bias_grad[o] += lane_sum<S>(bias_acc);
  }
  static_assert(cnn::features % lane_count == 0);
  lanes_to_rows<S>(g, cnn::features, rows.winner_g.data());
  lanes_to_rows<S>(p1_at, cnn::features, rows.winner_p1.data());
  lanes_to_rows<S>(position_g, cnn::features, rows.position_g.data());
  lanes_to_rows<S>(weight_at, cnn::features, rows.position_weight.data());
  lanes_to_rows<S>(bottom, cnn::features, rows.position_bottom.data());
}

// One winner list being filled: where its offsets and gradients go and how
// many it holds.
template <class S>
struct WinnerList {
  S* at;
  S* g;
  int end;
};

// Candidate winners: `count` gradients g[i] at offsets at[i] + offset.
template <class S>
struct Candidates {
  const S* g;
  const S* at;
  S offset;
  int count;
};

// Appends, without a branch on the gradient, each candidate whose gradient
// is not zero: to `second` when Split and bottom[i] is not zero, else to
// `first`. Every candidate is written at its list's end, and the end moves
// past it only when it joins. (With AVX-512, 16 candidates at a time by
// compress, which is why the lists keep ConvSampleRows::append_room values
// of room past their end.)
template <class S, bool Split>
void append_candidates(const Candidates<S>& c, const S* bottom, WinnerList<S>& first, WinnerList<S>& second) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<S, float>) {
    for (int i = 0; i < c.count; i += 16) {
      const __mmask16 in = c.count - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1U << (c.count - i)) - 1);
      const __m512 gv = _mm512_maskz_loadu_ps(in, c.g + i);
      const __m512 av = _mm512_add_ps(_mm512_maskz_loadu_ps(in, c.at + i), _mm512_set1_ps(c.offset));
      const __mmask16 live = _mm512_mask_cmp_ps_mask(in, gv, _mm512_setzero_ps(), _CMP_NEQ_UQ);
      __mmask16 down = 0;
      if constexpr (Split) {
        down = _mm512_mask_cmp_ps_mask(live, _mm512_maskz_loadu_ps(in, bottom + i), _mm512_setzero_ps(), _CMP_NEQ_UQ);
      }
      const __mmask16 up = static_cast<__mmask16>(live & ~down);
      _mm512_storeu_ps(first.at + first.end, _mm512_maskz_compress_ps(up, av));
      _mm512_storeu_ps(first.g + first.end, _mm512_maskz_compress_ps(up, gv));
      first.end += __builtin_popcount(up);
      if constexpr (Split) {
        _mm512_storeu_ps(second.at + second.end, _mm512_maskz_compress_ps(down, av));
        _mm512_storeu_ps(second.g + second.end, _mm512_maskz_compress_ps(down, gv));
        second.end += __builtin_popcount(down);
      }
    }
    return;
  }
#endif
  for (int i = 0; i < c.count; ++i) {
    const int live = c.g[i] != 0 ? 1 : 0;
    int down = 0;
    if constexpr (Split) down = bottom[i] != 0 ? 1 : 0;
    first.at[first.end] = c.at[i] + c.offset;
    first.g[first.end] = c.g[i];
    first.end += live & (1 - down);
    if constexpr (Split) {
      second.at[second.end] = c.at[i] + c.offset;
      second.g[second.end] = c.g[i];
      second.end += live & down;
    }
  }
}

// The candidates with a gradient, appended to `list`.
template <class S>
void append_live(const Candidates<S>& candidates, WinnerList<S>& list) {
  append_candidates<S, false>(candidates, nullptr, list, list);
}

// The candidates with a gradient, appended to `top` or, where bottom[i] is not zero, to `bottom_list`.
template <class S>
void split_live(const Candidates<S>& candidates, const S* bottom, WinnerList<S>& top, WinnerList<S>& bottom_list) {
  append_candidates<S, true>(candidates, bottom, top, bottom_list);
}

// Each sample's p1 into rows.p1, and its winners with a gradient into the two lists.
template <class S>
void conv2_rows_in(ConvWorkspace<S>& w) {
  using V = Lanes<S>;
  auto& rows = w.rows;
  static_assert(p1_size % lane_count == 0);
  for (int block = 0; block < p1_size; block += lane_count) {
    V t[lane_count];
    for (int u = 0; u < lane_count; ++u) {
      const int e = block + u;  // position e / cell, channel e % cell
      t[u] = w.p1[(e % cell) * p1_plane + e / cell];
    }
    transpose<S>(t);
    for (int s = 0; s < lane_count; ++s) store_lanes<S>(rows.p1.data() + s * sample_stride + block, t[s]);
  }
  using Rows = ConvSampleRows<S>;
  for (int o = 0; o < conv2_channels; ++o) rows.by_channel_count[o] = 0;
  for (int s = 0; s < lane_count; ++s) {
    const int sample = s * Rows::per_sample;
    for (int o = 0; o < conv2_channels; ++o) {
      // Channel o's winners of this sample join the channel's list over all samples.
      WinnerList<S> by_channel{rows.by_channel_at.data() + o * Rows::by_channel_room,
                               rows.by_channel_g.data() + o * Rows::by_channel_room, rows.by_channel_count[o]};
      append_live<S>({rows.winner_g.data() + sample + o * p2_plane, rows.winner_p1.data() + sample + o * p2_plane,
                      S(s * sample_stride), p2_plane},
                     by_channel);
      rows.by_channel_count[o] = by_channel.end;
    }
    for (int k = 0; k < p2_plane; ++k) {
      // Pooled position k's winners, split by their window row.
      const int here = sample + k * conv2_channels;
      const int list = (s * p2_plane + k) * 2 * Rows::position_room;
      WinnerList<S> top{rows.by_position_at.data() + list, rows.by_position_g.data() + list, 0};
      WinnerList<S> bottom{rows.by_position_at.data() + list + Rows::position_room,
                           rows.by_position_g.data() + list + Rows::position_room, 0};
      split_live<S>({rows.position_g.data() + here, rows.position_weight.data() + here, S(0), conv2_channels},
                    rows.position_bottom.data() + here, top, bottom);
      rows.by_position_top[s * p2_plane + k] = top.end;
      rows.by_position_bottom[s * p2_plane + k] = bottom.end;
    }
  }
  rows.gradient_winners = 0;
  for (int o = 0; o < conv2_channels; ++o) rows.gradient_winners += rows.by_channel_count[o];
}

// conv2's weights into rows.weights, laid out for the input gradient; the zeros around them never change.
template <class S>
void conv2_rows_weights(const ConvParameters<S>& p, ConvSampleRows<S>& rows) {
  for (int o = 0; o < conv2_channels; ++o) {
    for (int i = 0; i < conv1_channels; ++i) {
      const S* weight = p.conv2_weight + o * conv2_weights_per_output + i * kernel_taps;
      for (int ky = 0; ky < kernel; ++ky) {
        S* out = rows.weights.data() + o * weight_block + ky * weight_row + i;
        for (int kx = 0; kx < kernel; ++kx) {
          out[kx * cell] = weight[ky * kernel + kx];                       // column 0
          out[weight_shift + (kx + 1) * cell] = weight[ky * kernel + kx];  // column 1
        }
      }
    }
  }
}

// conv2's weight gradient in rows.weight_grad ([20][5][segment_vectors ×
// lanes], (kx, i) along a row; what lies past the 50 values of a row is
// never read): each winner adds g × the 5 rows of its p1 window. The
// winners of one channel, over all the samples, are one list, so the
// accumulators (`rows_per_pass` kernel rows at a time) stay in registers
// through it. A row's last values (2 of its 50 with 16 or 8 lanes) are
// one vector of 4, not a whole lane vector mostly past the row: each
// winner reads about 1.3 KB of rows that start anywhere, and the data it
// reads, not the FMAs, bounds this loop (docs/kernel_profile.md).
template <class S, int rows_per_pass>
void conv2_weight_grad(ConvSampleRows<S>& rows) {
  using V = Lanes<S>;
  typedef S Tail __attribute__((vector_size(4 * sizeof(S))));
  static_assert(kernel % rows_per_pass == 0);
  constexpr int whole = segment / lane_count;         // whole lane vectors in a row
  constexpr int rest = segment - whole * lane_count;  // values after them
  static_assert(rest <= 4 && (whole + (rest > 0 ? 1 : 0)) * lane_count <= segment_vectors * lane_count);
  constexpr int grad_row = segment_vectors * lane_count;
  for (int o = 0; o < conv2_channels; ++o) {
    const int count = rows.by_channel_count[o];
    const S* at = rows.by_channel_at.data() + o * ConvSampleRows<S>::by_channel_room;
    const S* gs = rows.by_channel_g.data() + o * ConvSampleRows<S>::by_channel_room;
    for (int ky0 = 0; ky0 < kernel; ky0 += rows_per_pass) {
      V acc[rows_per_pass][whole] = {};
      Tail tail_acc[rows_per_pass] = {};
      for (int n = 0; n < count; ++n) {
        const V g = broadcast(gs[n]);
        const S* window = rows.p1.data() + static_cast<int>(at[n]) + ky0 * row;
        for (int r = 0; r < rows_per_pass; ++r) {
          for (int j = 0; j < whole; ++j) acc[r][j] += g * load_lanes<S>(window + r * row + j * lane_count);
          if constexpr (rest > 0) {
            Tail in;
            __builtin_memcpy(&in, window + r * row + whole * lane_count, sizeof in);
            tail_acc[r] += (gs[n] - Tail{}) * in;
          }
        }
      }
      S* out = rows.weight_grad.data() + (o * kernel + ky0) * grad_row;
      for (int r = 0; r < rows_per_pass; ++r) {
        for (int j = 0; j < whole; ++j) store_lanes<S>(out + r * grad_row + j * lane_count, acc[r][j]);
        if constexpr (rest > 0) __builtin_memcpy(out + r * grad_row + whole * lane_count, &tail_acc[r], sizeof(Tail));
      }
    }
  }
}

// d_p1 in rows.d_p1: each pooled position's 6×6×10 region gets g × the
// weight rows of every winner there (region rows 0–4 for a winner in the
// window's top row, 1–5 for one in its bottom row), `rows_per_pass` region
// rows at a time held in registers. (The last vector of a region row
// reaches past it, and adds the zeros of the weight rows there.)
template <class S, int rows_per_pass>
void conv2_input_grad(ConvSampleRows<S>& rows) {
  using V = Lanes<S>;
  static_assert(region_side % rows_per_pass == 0);
  for (auto& v : rows.d_p1.values) v = 0;
  for (int s = 0; s < lane_count; ++s) {
    S* d_p1 = rows.d_p1.data() + s * sample_stride;
    for (int k = 0; k < p2_plane; ++k) {
      const int top = rows.by_position_top[s * p2_plane + k];
      const int bottom = rows.by_position_bottom[s * p2_plane + k];
      if (top + bottom == 0) continue;
      const int list = (s * p2_plane + k) * 2 * ConvSampleRows<S>::position_room;
      const S* at = rows.by_position_at.data() + list;
      const S* gs = rows.by_position_g.data() + list;
      S* corner = d_p1 + pooled_corner(k);
      for (int r0 = 0; r0 < region_side; r0 += rows_per_pass) {
        V acc[rows_per_pass][region_vectors];
        for (int r = 0; r < rows_per_pass; ++r) {
          for (int j = 0; j < region_vectors; ++j) acc[r][j] = load_lanes<S>(corner + (r0 + r) * row + j * lane_count);
        }
        for (int n = 0; n < top; ++n) {
          const V g = broadcast(gs[n]);
          const S* weights = rows.weights.data() + static_cast<int>(at[n]);
          for (int r = 0; r < rows_per_pass; ++r) {
            const int ky = r0 + r;
            if (ky >= kernel) continue;
            for (int j = 0; j < region_vectors; ++j)
              acc[r][j] += g * load_lanes<S>(weights + ky * weight_row + j * lane_count);
          }
        }
        for (int n = ConvSampleRows<S>::position_room; n < ConvSampleRows<S>::position_room + bottom; ++n) {
          const V g = broadcast(gs[n]);
          const S* weights = rows.weights.data() + static_cast<int>(at[n]);
          for (int r = 0; r < rows_per_pass; ++r) {
            const int ky = r0 + r - 1;
            if (ky < 0) continue;
            for (int j = 0; j < region_vectors; ++j)
              acc[r][j] += g * load_lanes<S>(weights + ky * weight_row + j * lane_count);
          }
        }
        for (int r = 0; r < rows_per_pass; ++r) {
          for (int j = 0; j < region_vectors; ++j) store_lanes<S>(corner + (r0 + r) * row + j * lane_count, acc[r][j]);
        }
      }
    }
  }
}

// rows.d_p1 back into the lanes of d_p1, and rows.weight_grad added to conv2's weight gradient.
template <class S>
void conv2_rows_out(ConvWorkspace<S>& w, S* weight_grad) {
  using V = Lanes<S>;
  const auto& rows = w.rows;
  for (int block = 0; block < p1_size; block += lane_count) {
    V t[lane_count];
    for (int s = 0; s < lane_count; ++s) t[s] = load_lanes<S>(rows.d_p1.data() + s * sample_stride + block);
    transpose<S>(t);
    for (int u = 0; u < lane_count; ++u) {
      const int e = block + u;
      w.d_p1[(e % cell) * p1_plane + e / cell] = t[u];
    }
  }
  constexpr int grad_row = segment_vectors * lane_count;
  for (int o = 0; o < conv2_channels; ++o) {
    for (int i = 0; i < conv1_channels; ++i) {
      S* out = weight_grad + o * conv2_weights_per_output + i * kernel_taps;
      for (int ky = 0; ky < kernel; ++ky) {
        const S* in = rows.weight_grad.data() + (o * kernel + ky) * grad_row + i;
        for (int kx = 0; kx < kernel; ++kx) out[ky * kernel + kx] += in[kx * cell];
      }
    }
  }
}

// How many kernel rows (weight gradient) and region rows (input gradient)
// one pass holds in registers: all of them in 32 registers, one in 16.
constexpr int weight_rows_per_pass = wide_register_file ? kernel : 1;
constexpr int region_rows_per_pass = wide_register_file ? region_side : 1;
static_assert(weight_rows_per_pass * segment_vectors < vector_registers &&
              region_rows_per_pass * region_vectors < vector_registers);

// d_p2 → d_p1, adding conv2's weight and bias gradients to `grad`.
template <class S>
void conv2_backward(const ConvParameters<S>& p, ConvWorkspace<S>& w, const ConvGradients<S>& grad) {
  conv2_winners(w, grad.conv2_bias);
  conv2_rows_in(w);
  conv2_rows_weights(p, w.rows);
  conv2_weight_grad<S, weight_rows_per_pass>(w.rows);
  conv2_input_grad<S, region_rows_per_pass>(w.rows);
  conv2_rows_out(w, grad.conv2_weight);
}

}  // namespace

template <class S>
void conv_forward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work) {
  conv1_forward(parameters, work);
  conv2_forward(parameters, work);
}

template <class S>
void conv_backward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work, const ConvGradients<S>& grad) {
  conv2_backward(parameters, work, grad);
  conv1_backward(work, grad);
}

template void conv_forward<float>(const ConvParameters<float>&, ConvWorkspace<float>&);
template void conv_forward<double>(const ConvParameters<double>&, ConvWorkspace<double>&);
template void conv_backward<float>(const ConvParameters<float>&, ConvWorkspace<float>&, const ConvGradients<float>&);
template void conv_backward<double>(const ConvParameters<double>&, ConvWorkspace<double>&,
                                    const ConvGradients<double>&);

}  // namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE
