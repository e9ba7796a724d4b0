// Direct convolutions over lane groups. Every loop below is a plain scalar
// loop whose "scalar" is a lane vector of 16 samples, so each multiply-add
// is one full-width vector FMA with a broadcast weight; the innermost loops
// have constant trip counts so the accumulators stay in registers.
#include "hogwild/conv.hpp"

namespace mptrain::hogwild {

namespace {

constexpr int image_side = 28;
constexpr int conv1_side = 24;
constexpr int kernel = 5;
constexpr int c2_side = cnn::c2_side;
constexpr int p1_side = cnn::p1_side;
constexpr int p1_plane = p1_side * p1_side;
constexpr int c2_plane = c2_side * c2_side;
constexpr int p2_side = 4;
constexpr int p2_plane = p2_side * p2_side;
constexpr int channels1 = cnn::conv1_channels;
constexpr int channels2 = cnn::conv2_channels;
constexpr int taps = cnn::kernel_taps;
constexpr int conv2_weights_per_output = channels1 * taps;

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

// conv1 (+bias) for image rows `y` and `y + 1`, all columns and channels, into `rows`.
template <class S>
void conv1_row_pair(const ConvParameters<S>& p, const Lanes<S>* image, int y, Lanes<S>* rows) {
  using V = Lanes<S>;
  for (int dy = 0; dy < 2; ++dy) {
    for (int x = 0; x < conv1_side; ++x) {
      V acc[channels1];
#pragma GCC unroll 10
      for (int c = 0; c < channels1; ++c) acc[c] = V{} + p.conv1_bias[c];
      for (int ky = 0; ky < kernel; ++ky) {
        for (int kx = 0; kx < kernel; ++kx) {
          const V in = image[(y + dy + ky) * image_side + x + kx];
          const int tap = ky * kernel + kx;
#pragma GCC unroll 10
          for (int c = 0; c < channels1; ++c) acc[c] += p.conv1_weight[c * taps + tap] * in;
        }
      }
      V* out = rows + (dy * conv1_side + x) * channels1;
#pragma GCC unroll 10
      for (int c = 0; c < channels1; ++c) out[c] = acc[c];
    }
  }
}

// conv1 → maxpool 2 → relu into p1 and p1_index.
template <class S>
void conv1_forward(const ConvParameters<S>& p, ConvWorkspace<S>& w) {
  using V = Lanes<S>;
  for (int py = 0; py < p1_side; ++py) {
    conv1_row_pair(p, w.image.data(), 2 * py, w.conv1_rows.data());
    const V* top = w.conv1_rows.data();
    const V* bottom = top + conv1_side * channels1;
    for (int px = 0; px < p1_side; ++px) {
      for (int c = 0; c < channels1; ++c) {
        const int left = 2 * px * channels1 + c;
        const int right = left + channels1;
        const int at = c * p1_plane + py * p1_side + px;
        pool_relu(top[left], top[right], bottom[left], bottom[right], w.p1[at], w.p1_index[at]);
      }
    }
  }
}

// conv2 (+bias) × dropout2d mask into c2 [20][8][8].
template <class S>
void conv2_apply(const ConvParameters<S>& p, ConvWorkspace<S>& w) {
  using V = Lanes<S>;
  const V* p1 = w.p1.data();
  for (int y = 0; y < c2_side; ++y) {
    for (int x = 0; x < c2_side; ++x) {
      V acc[channels2];
#pragma GCC unroll 20
      for (int o = 0; o < channels2; ++o) acc[o] = V{} + p.conv2_bias[o];
      for (int i = 0; i < channels1; ++i) {
        for (int ky = 0; ky < kernel; ++ky) {
          for (int kx = 0; kx < kernel; ++kx) {
            const V in = p1[i * p1_plane + (y + ky) * p1_side + x + kx];
            const S* weight = p.conv2_weight + i * taps + ky * kernel + kx;
#pragma GCC unroll 20
            for (int o = 0; o < channels2; ++o) acc[o] += weight[o * conv2_weights_per_output] * in;
          }
        }
      }
#pragma GCC unroll 20
      for (int o = 0; o < channels2; ++o) w.c2[o * c2_plane + y * c2_side + x] = acc[o] * w.channel_mask[o];
    }
  }
}

// maxpool 2 → relu of c2 into p2 and p2_index.
template <class S>
void conv2_pool(ConvWorkspace<S>& w) {
  for (int o = 0; o < channels2; ++o) {
    const auto* plane = w.c2.data() + o * c2_plane;
    for (int py = 0; py < p2_side; ++py) {
      for (int px = 0; px < p2_side; ++px) {
        const int top = 2 * py * c2_side + 2 * px;
        const int at = o * p2_plane + py * p2_side + px;
        pool_relu(plane[top], plane[top + 1], plane[top + c2_side], plane[top + c2_side + 1], w.p2[at], w.p2_index[at]);
      }
    }
  }
}

// Routes the pooled gradient `g` (already through relu) to the window position named by `index`.
template <class V>
inline V route(V g, V index, float position) {
  return index == position ? g : V{};
}

// d_c2 (gradient at conv2's output before dropout) from d_p2; adds conv2's bias gradient.
template <class S>
void conv2_unpool(ConvWorkspace<S>& w, S* bias_grad) {
  using V = Lanes<S>;
  for (int o = 0; o < channels2; ++o) {
    V bias_acc{};
    V* plane = w.d_c2.data() + o * c2_plane;
    for (int py = 0; py < p2_side; ++py) {
      for (int px = 0; px < p2_side; ++px) {
        const int at = o * p2_plane + py * p2_side + px;
        const V g = (w.p2[at] > 0 ? w.d_p2[at] : V{}) * w.channel_mask[o];
        const V index = w.p2_index[at];
        const int top = 2 * py * c2_side + 2 * px;
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

// conv2's weight gradient: correlation of d_c2 with p1.
template <class S>
void conv2_weight_grad(ConvWorkspace<S>& w, S* weight_grad) {
  using V = Lanes<S>;
  for (int o = 0; o < channels2; ++o) {
    const V* grad_plane = w.d_c2.data() + o * c2_plane;
    for (int i = 0; i < channels1; ++i) {
      const V* in = w.p1.data() + i * p1_plane;
      V acc[taps];
#pragma GCC unroll 25
      for (int t = 0; t < taps; ++t) acc[t] = V{};
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
      S* out = weight_grad + o * conv2_weights_per_output + i * taps;
      for (int t = 0; t < taps; ++t) out[t] += lane_sum<S>(acc[t]);
    }
  }
}

// d_p1: the transposed convolution of d_c2 with conv2's weights.
template <class S>
void conv2_input_grad(const ConvParameters<S>& p, ConvWorkspace<S>& w) {
  using V = Lanes<S>;
  for (auto& v : w.d_p1) v = V{};
  for (int y = 0; y < c2_side; ++y) {
    for (int x = 0; x < c2_side; ++x) {
      V g[channels2];
#pragma GCC unroll 20
      for (int o = 0; o < channels2; ++o) g[o] = w.d_c2[o * c2_plane + y * c2_side + x];
      for (int i = 0; i < channels1; ++i) {
        for (int ky = 0; ky < kernel; ++ky) {
          for (int kx = 0; kx < kernel; ++kx) {
            V& target = w.d_p1[i * p1_plane + (y + ky) * p1_side + x + kx];
            const S* weight = p.conv2_weight + i * taps + ky * kernel + kx;
            V acc = target;
#pragma GCC unroll 20
            for (int o = 0; o < channels2; ++o) acc += weight[o * conv2_weights_per_output] * g[o];
            target = acc;
          }
        }
      }
    }
  }
}

// conv1's weight and bias gradients from d_p1 through relu and the pooling.
template <class S>
void conv1_weight_grad(ConvWorkspace<S>& w, const ConvGradients<S>& grad) {
  using V = Lanes<S>;
  for (int c = 0; c < channels1; ++c) {
    V acc[taps];
#pragma GCC unroll 25
    for (int t = 0; t < taps; ++t) acc[t] = V{};
    V bias_acc{};
    for (int py = 0; py < p1_side; ++py) {
      for (int px = 0; px < p1_side; ++px) {
        const int at = c * p1_plane + py * p1_side + px;
        const V g = w.p1[at] > 0 ? w.d_p1[at] : V{};
        const V index = w.p1_index[at];
        bias_acc += g;
        for (int position = 0; position < 4; ++position) {
          const V routed = route(g, index, static_cast<float>(position));
          const V* window = w.image.data() + (2 * py + position / 2) * image_side + 2 * px + position % 2;
#pragma GCC unroll 5
          for (int ky = 0; ky < kernel; ++ky) {
#pragma GCC unroll 5
            for (int kx = 0; kx < kernel; ++kx) acc[ky * kernel + kx] += routed * window[ky * image_side + kx];
          }
        }
      }
    }
    for (int t = 0; t < taps; ++t) grad.conv1_weight[c * taps + t] += lane_sum<S>(acc[t]);
    grad.conv1_bias[c] += lane_sum<S>(bias_acc);
  }
}

}  // namespace

template <class S>
void conv_forward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work) {
  conv1_forward(parameters, work);
  conv2_apply(parameters, work);
  conv2_pool(work);
}

template <class S>
void conv_backward(const ConvParameters<S>& parameters, ConvWorkspace<S>& work, const ConvGradients<S>& grad) {
  conv2_unpool(work, grad.conv2_bias);
  conv2_weight_grad(work, grad.conv2_weight);
  conv2_input_grad(parameters, work);
  conv1_weight_grad(work, grad);
}

template void conv_forward<float>(const ConvParameters<float>&, ConvWorkspace<float>&);
template void conv_forward<double>(const ConvParameters<double>&, ConvWorkspace<double>&);
template void conv_backward<float>(const ConvParameters<float>&, ConvWorkspace<float>&, const ConvGradients<float>&);
template void conv_backward<double>(const ConvParameters<double>&, ConvWorkspace<double>&,
                                    const ConvGradients<double>&);

}  // namespace mptrain::hogwild
