// Direct convolutions over lane groups. Every loop below is a plain scalar
// loop whose "scalar" is a lane vector of samples (one register), so each multiply-add
// is one full-width vector FMA with a broadcast weight; the innermost loops
// have constant trip counts so the accumulators stay in registers.
//
// The backward passes touch only the pooling winners: one position of each
// 2×2 window gets a gradient, a different one in each lane, so the inputs
// or weights that meet it are chosen per lane with blends (vector `?:`)
// and one FMA does the work four would do over the whole window.
//
// Each layer has a forward and a backward function; the sizes are the named
// shapes of hogwild/shapes.hpp. The `#pragma GCC unroll` counts spell out
// conv1_channels (10), conv2_channels (20), kernel_taps (25) and kernel (5)
// because a pragma takes only a literal; the static_asserts below keep them
// in step.
#include "hogwild/conv.hpp"

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE {

namespace {

using namespace cnn;

static_assert(conv1_channels == 10 && conv2_channels == 20 && kernel == 5 && kernel_taps == 25,
              "update the #pragma GCC unroll counts to the new shapes");
static_assert(pool == 2, "pool_relu, add_window_at_max and conv2_input_grad take a 2×2 window");

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

// A weight gradient's share of one pooled output: adds g × the 5×5 input
// window under the conv position that won the pooling, lane by lane, to
// acc[25]. `corner` is the input under the top-left position of the 2×2
// pooling window, in rows of `row_stride`. Only the winner gets a gradient,
// so this touches a quarter of the conv positions: the window is chosen
// with blends (rows, then columns) rather than correlating all four
// positions with a gradient that is zero at three of them.
template <class V, int row_stride>
inline void add_window_at_max(V g, V index, const V* corner, V* acc) {
  const auto down = index >= 2.0f;                       // positions 2 and 3: the window's bottom row
  const auto right = (index == 1.0f) | (index == 3.0f);  // positions 1 and 3: its right column
#pragma GCC unroll 5
  for (int ky = 0; ky < kernel; ++ky) {
    V row[kernel + 1];
#pragma GCC unroll 6
    for (int c = 0; c <= kernel; ++c) row[c] = down ? corner[(ky + 1) * row_stride + c] : corner[ky * row_stride + c];
#pragma GCC unroll 5
    for (int kx = 0; kx < kernel; ++kx) acc[ky * kernel + kx] += g * (right ? row[kx + 1] : row[kx]);
  }
}

// ---------------------------------------------------------------------------
// conv1: image [28][28] → conv 5×5 (+bias) [10][24][24] → maxpool 2 → relu → p1 [10][12][12]

// conv1 (+bias) for image rows `y` and `y + 1`, all columns and channels, into `rows` [2][24][10].
template <class S>
void conv1_row_pair(const ConvParameters<S>& p, const Lanes<S>* image, int y, Lanes<S>* rows) {
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
template <class S>
void conv1_backward(ConvWorkspace<S>& w, const ConvGradients<S>& grad) {
  using V = Lanes<S>;
  for (int c = 0; c < conv1_channels; ++c) {
    V acc[kernel_taps];
#pragma GCC unroll 25
    for (int t = 0; t < kernel_taps; ++t) acc[t] = V{};
    V bias_acc{};
    for (int py = 0; py < p1_side; ++py) {
      for (int px = 0; px < p1_side; ++px) {
        const int at = c * p1_plane + py * p1_side + px;
        const V g = w.p1[at] > 0 ? w.d_p1[at] : V{};
        bias_acc += g;
        add_window_at_max<V, image_side>(g, w.p1_index[at], w.image.data() + pool * py * image_side + pool * px, acc);
      }
    }
    for (int t = 0; t < kernel_taps; ++t) grad.conv1_weight[c * kernel_taps + t] += lane_sum<S>(acc[t]);
    grad.conv1_bias[c] += lane_sum<S>(bias_acc);
  }
}

// ---------------------------------------------------------------------------
// conv2: p1 [10][12][12] → conv 5×5 (+bias) × dropout2d mask → c2 [20][8][8]
//        → maxpool 2 → relu → p2 [20][4][4]

// conv2 (+bias) × dropout2d mask into c2; the 20 output channels of one
// position are accumulated together, so each input is loaded once per position.
template <class S>
void conv2_apply(const ConvParameters<S>& p, ConvWorkspace<S>& w) {
  using V = Lanes<S>;
  const V* p1 = w.p1.data();
  for (int y = 0; y < c2_side; ++y) {
    for (int x = 0; x < c2_side; ++x) {
      V acc[conv2_channels];
#pragma GCC unroll 20
      for (int o = 0; o < conv2_channels; ++o) acc[o] = V{} + p.conv2_bias[o];
      for (int i = 0; i < conv1_channels; ++i) {
        for (int ky = 0; ky < kernel; ++ky) {
          for (int kx = 0; kx < kernel; ++kx) {
            const V in = p1[i * p1_plane + (y + ky) * p1_side + x + kx];
            const S* weight = p.conv2_weight + i * kernel_taps + ky * kernel + kx;
#pragma GCC unroll 20
            for (int o = 0; o < conv2_channels; ++o) acc[o] += weight[o * conv2_weights_per_output] * in;
          }
        }
      }
#pragma GCC unroll 20
      for (int o = 0; o < conv2_channels; ++o) w.c2[o * c2_plane + y * c2_side + x] = acc[o] * w.channel_mask[o];
    }
  }
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
  conv2_apply(p, w);
  conv2_pool(w);
}

// g_p2 [20][4][4], the gradient each pooling winner gets (d_p2 through
// relu and dropout2d; the other three positions of its window get none);
// adds conv2's bias gradient [20].
template <class S>
void conv2_winner_gradient(ConvWorkspace<S>& w, S* bias_grad) {
  using V = Lanes<S>;
  for (int o = 0; o < conv2_channels; ++o) {
    V bias_acc{};
    for (int k = 0; k < p2_plane; ++k) {
      const int at = o * p2_plane + k;
      const V g = (w.p2[at] > 0 ? w.d_p2[at] : V{}) * w.channel_mask[o];
      w.g_p2[at] = g;
      bias_acc += g;
    }
    bias_grad[o] += lane_sum<S>(bias_acc);
  }
}

// conv2's weight gradient [20][10][25]: correlation of each pooling
// winner's gradient g_p2 with the p1 window under it, the 25 taps of one
// (o, i) pair held in registers over the 4×4 pooled positions.
template <class S>
void conv2_weight_grad(ConvWorkspace<S>& w, S* weight_grad) {
  using V = Lanes<S>;
  for (int o = 0; o < conv2_channels; ++o) {
    const V* g = w.g_p2.data() + o * p2_plane;
    const V* index = w.p2_index.data() + o * p2_plane;
    for (int i = 0; i < conv1_channels; ++i) {
      const V* in = w.p1.data() + i * p1_plane;
      V acc[kernel_taps];
#pragma GCC unroll 25
      for (int t = 0; t < kernel_taps; ++t) acc[t] = V{};
      for (int py = 0; py < p2_side; ++py) {
        for (int px = 0; px < p2_side; ++px) {
          const int at = py * p2_side + px;
          add_window_at_max<V, p1_side>(g[at], index[at], in + pool * py * p1_side + pool * px, acc);
        }
      }
      S* out = weight_grad + o * conv2_weights_per_output + i * kernel_taps;
      for (int t = 0; t < kernel_taps; ++t) out[t] += lane_sum<S>(acc[t]);
    }
  }
}

// d_p1 [10][12][12]: the transposed convolution of conv2's output gradient
// with its weights, from the pooling winners alone. Winner (dy, dx) of
// pooled position (py, px) sends g × w[o][i][ky][kx] to p1 row 2py+dy+ky,
// column 2px+dx+kx: seen from the 6×6 region of p1 under the pooling
// window, cell (a, b) gets g × w[a−dy][b−dx], so each lane's weights are
// chosen with blends (rows, then columns) and one FMA serves each cell,
// where correlating all four window positions takes four. The region is
// done in two halves of 3 rows, 18 accumulators in registers.
template <class S>
void conv2_input_grad(const ConvParameters<S>& p, ConvWorkspace<S>& w) {
  using V = Lanes<S>;
  constexpr int region = kernel + 1;     // 6: the rows and columns of p1 a pooled position reaches
  constexpr int half_rows = region / 2;  // 3
  for (auto& v : w.d_p1) v = V{};
  for (int py = 0; py < p2_side; ++py) {
    for (int px = 0; px < p2_side; ++px) {
      const int at = py * p2_side + px;
      for (int i = 0; i < conv1_channels; ++i) {
        V* corner = w.d_p1.data() + i * p1_plane + pool * py * p1_side + pool * px;
        for (int half = 0; half < 2; ++half) {
          V cells[half_rows][region];
#pragma GCC unroll 3
          for (int r = 0; r < half_rows; ++r) {
#pragma GCC unroll 6
            for (int b = 0; b < region; ++b) cells[r][b] = corner[(half * half_rows + r) * p1_side + b];
          }
          for (int o = 0; o < conv2_channels; ++o) {
            const V g = w.g_p2[o * p2_plane + at];
            const V index = w.p2_index[o * p2_plane + at];
            const auto down = index >= 2.0f;
            const auto right = (index == 1.0f) | (index == 3.0f);
            const S* weight = p.conv2_weight + o * conv2_weights_per_output + i * kernel_taps;
#pragma GCC unroll 3
            for (int r = 0; r < half_rows; ++r) {
              const int a = half * half_rows + r;
              V row[kernel];  // w[a − dy][·] of each lane; zero where a − dy is outside the kernel
#pragma GCC unroll 5
              for (int kx = 0; kx < kernel; ++kx) {
                const V above = a >= 1 ? broadcast(weight[(a - 1) * kernel + kx]) : V{};
                const V level = a < kernel ? broadcast(weight[a * kernel + kx]) : V{};
                row[kx] = down ? above : level;
              }
#pragma GCC unroll 6
              for (int b = 0; b < region; ++b) {
                const V left = b >= 1 ? row[b - 1] : V{};
                const V here = b < kernel ? row[b] : V{};
                cells[r][b] += g * (right ? left : here);
              }
            }
          }
#pragma GCC unroll 3
          for (int r = 0; r < half_rows; ++r) {
#pragma GCC unroll 6
            for (int b = 0; b < region; ++b) corner[(half * half_rows + r) * p1_side + b] = cells[r][b];
          }
        }
      }
    }
  }
}

// d_p2 → d_p1, adding conv2's weight and bias gradients to `grad`.
template <class S>
void conv2_backward(const ConvParameters<S>& p, ConvWorkspace<S>& w, const ConvGradients<S>& grad) {
  conv2_winner_gradient(w, grad.conv2_bias);
  conv2_weight_grad(w, grad.conv2_weight);
  conv2_input_grad(p, w);
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
