// Direct convolutions over lane groups. Every loop below is a plain scalar
// loop whose "scalar" is a lane vector of 16 samples, so each multiply-add
// is one full-width vector FMA with a broadcast weight; the innermost loops
// have constant trip counts so the accumulators stay in registers.
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
static_assert(pool == 2, "pool_relu and route take a 2×2 window");

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

// Routes the pooled gradient `g` (already through relu) to the window position named by `index`.
template <class V>
inline V route(V g, V index, float position) {
  return index == position ? g : V{};
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
// bias [10] gradients, correlating each routed gradient with its 5×5 image window.
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
        const V index = w.p1_index[at];
        bias_acc += g;
        for (int position = 0; position < pool_window; ++position) {
          const V routed = route(g, index, static_cast<float>(position));
          const V* window = w.image.data() + (pool * py + position / pool) * image_side + pool * px + position % pool;
#pragma GCC unroll 5
          for (int ky = 0; ky < kernel; ++ky) {
#pragma GCC unroll 5
            for (int kx = 0; kx < kernel; ++kx) acc[ky * kernel + kx] += routed * window[ky * image_side + kx];
          }
        }
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

// d_c2 [20][8][8] (gradient at conv2's output before dropout) from d_p2
// [20][4][4]; adds conv2's bias gradient [20].
template <class S>
void conv2_unpool(ConvWorkspace<S>& w, S* bias_grad) {
  using V = Lanes<S>;
  for (int o = 0; o < conv2_channels; ++o) {
    V bias_acc{};
    V* plane = w.d_c2.data() + o * c2_plane;
    for (int py = 0; py < p2_side; ++py) {
      for (int px = 0; px < p2_side; ++px) {
        const int at = o * p2_plane + py * p2_side + px;
        const V g = (w.p2[at] > 0 ? w.d_p2[at] : V{}) * w.channel_mask[o];
        const V index = w.p2_index[at];
        const int top = pool * py * c2_side + pool * px;
        plane[top] = route(g, index, 0.0f);
        plane[top + 1] = route(g, index, 1.0f);
        plane[top + c2_side] = route(g, index, 2.0f);
        plane[top + c2_side + 1] = route(g, index, 3.0f);
        bias_acc += g;
      }
    }
    bias_grad[o] += lane_sum<S>(bias_acc);
  }
}

// conv2's weight gradient [20][10][25]: correlation of d_c2 with p1, the 25
// taps of one (o, i) pair held in registers over the 8×8 positions.
template <class S>
void conv2_weight_grad(ConvWorkspace<S>& w, S* weight_grad) {
  using V = Lanes<S>;
  for (int o = 0; o < conv2_channels; ++o) {
    const V* grad_plane = w.d_c2.data() + o * c2_plane;
    for (int i = 0; i < conv1_channels; ++i) {
      const V* in = w.p1.data() + i * p1_plane;
      V acc[kernel_taps];
#pragma GCC unroll 25
      for (int t = 0; t < kernel_taps; ++t) acc[t] = V{};
      for (int y = 0; y < c2_side; ++y) {
        for (int x = 0; x < c2_side; ++x) {
          const V g = grad_plane[y * c2_side + x];
          const V* window = in + y * p1_side + x;
#pragma GCC unroll 5
          for (int ky = 0; ky < kernel; ++ky) {
#pragma GCC unroll 5
            for (int kx = 0; kx < kernel; ++kx) acc[ky * kernel + kx] += g * window[ky * p1_side + kx];
          }
        }
      }
      S* out = weight_grad + o * conv2_weights_per_output + i * kernel_taps;
      for (int t = 0; t < kernel_taps; ++t) out[t] += lane_sum<S>(acc[t]);
    }
  }
}

// d_p1 [10][12][12]: the transposed convolution of d_c2 with conv2's weights.
template <class S>
void conv2_input_grad(const ConvParameters<S>& p, ConvWorkspace<S>& w) {
  using V = Lanes<S>;
  for (auto& v : w.d_p1) v = V{};
  for (int y = 0; y < c2_side; ++y) {
    for (int x = 0; x < c2_side; ++x) {
      V g[conv2_channels];
#pragma GCC unroll 20
      for (int o = 0; o < conv2_channels; ++o) g[o] = w.d_c2[o * c2_plane + y * c2_side + x];
      for (int i = 0; i < conv1_channels; ++i) {
        for (int ky = 0; ky < kernel; ++ky) {
          for (int kx = 0; kx < kernel; ++kx) {
            V& target = w.d_p1[i * p1_plane + (y + ky) * p1_side + x + kx];
            const S* weight = p.conv2_weight + i * kernel_taps + ky * kernel + kx;
            V acc = target;
#pragma GCC unroll 20
            for (int o = 0; o < conv2_channels; ++o) acc += weight[o * conv2_weights_per_output] * g[o];
            target = acc;
          }
        }
      }
    }
  }
}

// d_p2 → d_p1, adding conv2's weight and bias gradients to `grad`.
template <class S>
void conv2_backward(const ConvParameters<S>& p, ConvWorkspace<S>& w, const ConvGradients<S>& grad) {
  conv2_unpool(w, grad.conv2_bias);
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
