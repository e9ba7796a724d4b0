#include "reference.hpp"

#include <algorithm>
#include <cmath>

#include "hogwild/random.hpp"
#include "hogwild/shapes.hpp"

namespace mptrain::hogwild::reference {

void conv2d_forward(double* out, const double* in, const double* w, const double* b, int C, int H, int W, int O,
                    int K) {
  const int OH = H - K + 1;
  const int OW = W - K + 1;
  for (int o = 0; o < O; ++o) {
    for (int y = 0; y < OH; ++y) {
      for (int x = 0; x < OW; ++x) {
        double sum = b[o];
        for (int c = 0; c < C; ++c) {
          for (int ky = 0; ky < K; ++ky) {
            for (int kx = 0; kx < K; ++kx) {
              sum += w[((o * C + c) * K + ky) * K + kx] * in[(c * H + y + ky) * W + x + kx];
            }
          }
        }
        out[(o * OH + y) * OW + x] = sum;
      }
    }
  }
}

void conv2d_backward(double* d_in, double* d_w, double* d_b, const double* d_out, const double* in, const double* w,
                     int C, int H, int W, int O, int K) {
  const int OH = H - K + 1;
  const int OW = W - K + 1;
  if (d_in != nullptr) std::fill(d_in, d_in + C * H * W, 0.0);
  for (int o = 0; o < O; ++o) {
    for (int y = 0; y < OH; ++y) {
      for (int x = 0; x < OW; ++x) {
        const double d = d_out[(o * OH + y) * OW + x];
        d_b[o] += d;
        for (int c = 0; c < C; ++c) {
          for (int ky = 0; ky < K; ++ky) {
            for (int kx = 0; kx < K; ++kx) {
              const int wi = ((o * C + c) * K + ky) * K + kx;
              const int ii = (c * H + y + ky) * W + x + kx;
              d_w[wi] += d * in[ii];
              if (d_in != nullptr) d_in[ii] += d * w[wi];
            }
          }
        }
      }
    }
  }
}

void maxpool_forward(double* out, int* winner, const double* in, int C, int H, int W) {
  for (int c = 0; c < C; ++c) {
    for (int y = 0; y < H / 2; ++y) {
      for (int x = 0; x < W / 2; ++x) {
        int best = (c * H + 2 * y) * W + 2 * x;
        for (int dy = 0; dy < 2; ++dy) {
          for (int dx = 0; dx < 2; ++dx) {
            const int at = (c * H + 2 * y + dy) * W + 2 * x + dx;
            if (in[at] > in[best]) best = at;
          }
        }
        const int o = (c * (H / 2) + y) * (W / 2) + x;
        out[o] = in[best];
        winner[o] = best;
      }
    }
  }
}

void maxpool_backward(double* d_in, const double* d_out, const int* winner, int C, int H, int W) {
  std::fill(d_in, d_in + C * H * W, 0.0);
  for (int o = 0; o < C * (H / 2) * (W / 2); ++o) d_in[winner[o]] = d_out[o];
}

void relu_forward(double* x, int n) {
  for (int i = 0; i < n; ++i) x[i] = std::max(x[i], 0.0);
}

void relu_backward(double* d, const double* y, int n) {
  for (int i = 0; i < n; ++i) d[i] = y[i] > 0 ? d[i] : 0.0;
}

void scale_forward(double* x, const double* mask, int C, int plane) {
  for (int c = 0; c < C; ++c) {
    for (int i = 0; i < plane; ++i) x[c * plane + i] *= mask[c];
  }
}

void linear_forward(double* out, const double* x, const double* w, const double* b, int I, int O) {
  for (int o = 0; o < O; ++o) {
    double sum = b[o];
    for (int i = 0; i < I; ++i) sum += w[o * I + i] * x[i];
    out[o] = sum;
  }
}

void linear_backward(double* d_x, double* d_w, double* d_b, const double* d_out, const double* x, const double* w,
                     int I, int O) {
  if (d_x != nullptr) std::fill(d_x, d_x + I, 0.0);
  for (int o = 0; o < O; ++o) {
    d_b[o] += d_out[o];
    for (int i = 0; i < I; ++i) {
      d_w[o * I + i] += d_out[o] * x[i];
      if (d_x != nullptr) d_x[i] += d_out[o] * w[o * I + i];
    }
  }
}

double log_softmax_nll_forward(double* log_probs, const double* logits, int label, int n) {
  const double top = *std::max_element(logits, logits + n);
  double sum = 0;
  for (int k = 0; k < n; ++k) sum += std::exp(logits[k] - top);
  for (int k = 0; k < n; ++k) log_probs[k] = logits[k] - top - std::log(sum);
  return -log_probs[label];
}

void log_softmax_nll_backward(double* d_logits, const double* log_probs, int label, double scale, int n) {
  for (int k = 0; k < n; ++k) d_logits[k] = (std::exp(log_probs[k]) - (k == label ? 1.0 : 0.0)) * scale;
}

namespace {

// A tensor of `layout` in the flat arrays `parameters` and `gradient`.
struct Tensor {
  const double* value;
  double* grad;
};

Tensor tensor(const ModelLayout& layout, const char* name, const std::vector<double>& parameters,
              std::vector<double>& gradient) {
  const std::size_t at = layout.tensor(name).offset;
  return {parameters.data() + at, gradient.data() + at};
}

// The cnn's dropout masks of one sample, drawn from its key as the model
// defines them: the first 64 bits keep conv2 channel c when bit c is set,
// the next 64 keep fc1 unit j when bit j is set; a kept unit is scaled by 2.
struct CnnMasks {
  std::vector<double> channels = std::vector<double>(cnn::conv2_channels, 1.0);
  std::vector<double> units = std::vector<double>(cnn::hidden, 1.0);
};

CnnMasks cnn_masks(const GroupInput& input, int sample) {
  CnnMasks masks;
  if (input.keys.empty()) return masks;
  Random random(input.keys[static_cast<std::size_t>(sample)]);
  const std::uint64_t channels = random.next();
  for (int c = 0; c < cnn::conv2_channels; ++c) masks.channels[c] = ((channels >> c) & 1U) != 0 ? 2.0 : 0.0;
  const std::uint64_t units = random.next();
  for (int j = 0; j < cnn::hidden; ++j) masks.units[j] = ((units >> j) & 1U) != 0 ? 2.0 : 0.0;
  return masks;
}

// cnn, one sample: x [1][28][28] → conv1 [10][24][24] → maxpool [10][12][12] → relu (p1)
// → conv2 [20][8][8] → dropout2d → maxpool [20][4][4] → relu (p2, 320) → fc1 [50] → relu
// → dropout (h) → fc2 [10] → log-softmax → NLL; then the same backward.
double cnn_sample(const ModelLayout& layout, const std::vector<double>& p, const GroupInput& input, int s,
                  double* log_probs, std::vector<double>& g) {
  using namespace cnn;
  const Tensor w1 = tensor(layout, "conv1.weight", p, g), b1 = tensor(layout, "conv1.bias", p, g);
  const Tensor w2 = tensor(layout, "conv2.weight", p, g), b2 = tensor(layout, "conv2.bias", p, g);
  const Tensor f1 = tensor(layout, "fc1.weight", p, g), c1 = tensor(layout, "fc1.bias", p, g);
  const Tensor f2 = tensor(layout, "fc2.weight", p, g), c2b = tensor(layout, "fc2.bias", p, g);
  const CnnMasks masks = cnn_masks(input, s);
  const double* x = input.images.data() + s * image_pixels;
  std::vector<double> a1(conv1_channels * conv1_side * conv1_side), p1(p1_size), a2(c2_size), p2(features), h(hidden),
      z(class_count);
  std::vector<int> w1_at(p1_size), w2_at(features);
  // forward
  conv2d_forward(a1.data(), x, w1.value, b1.value, 1, image_side, image_side, conv1_channels, kernel);
  maxpool_forward(p1.data(), w1_at.data(), a1.data(), conv1_channels, conv1_side, conv1_side);
  relu_forward(p1.data(), p1_size);
  conv2d_forward(a2.data(), p1.data(), w2.value, b2.value, conv1_channels, p1_side, p1_side, conv2_channels, kernel);
  scale_forward(a2.data(), masks.channels.data(), conv2_channels, c2_plane);
  maxpool_forward(p2.data(), w2_at.data(), a2.data(), conv2_channels, c2_side, c2_side);
  relu_forward(p2.data(), features);
  linear_forward(h.data(), p2.data(), f1.value, c1.value, features, hidden);
  relu_forward(h.data(), hidden);
  scale_forward(h.data(), masks.units.data(), hidden, 1);
  linear_forward(z.data(), h.data(), f2.value, c2b.value, hidden, class_count);
  const int label = input.labels[static_cast<std::size_t>(s)];
  const double loss = log_softmax_nll_forward(log_probs, z.data(), label, class_count);
  // backward
  std::vector<double> d_z(class_count), d_h(hidden), d_p2(features), d_a2(c2_size), d_p1(p1_size), d_a1(a1.size());
  log_softmax_nll_backward(d_z.data(), log_probs, label, input.loss_scale, class_count);
  linear_backward(d_h.data(), f2.grad, c2b.grad, d_z.data(), h.data(), f2.value, hidden, class_count);
  scale_forward(d_h.data(), masks.units.data(), hidden, 1);
  relu_backward(d_h.data(), h.data(), hidden);
  linear_backward(d_p2.data(), f1.grad, c1.grad, d_h.data(), p2.data(), f1.value, features, hidden);
  relu_backward(d_p2.data(), p2.data(), features);
  maxpool_backward(d_a2.data(), d_p2.data(), w2_at.data(), conv2_channels, c2_side, c2_side);
  scale_forward(d_a2.data(), masks.channels.data(), conv2_channels, c2_plane);
  conv2d_backward(d_p1.data(), w2.grad, b2.grad, d_a2.data(), p1.data(), w2.value, conv1_channels, p1_side, p1_side,
                  conv2_channels, kernel);
  relu_backward(d_p1.data(), p1.data(), p1_size);
  maxpool_backward(d_a1.data(), d_p1.data(), w1_at.data(), conv1_channels, conv1_side, conv1_side);
  conv2d_backward(nullptr, w1.grad, b1.grad, d_a1.data(), x, w1.value, 1, image_side, image_side, conv1_channels,
                  kernel);
  return loss;
}

// mlp, one sample: x [784] → fc1 [128] → relu (h) → fc2 [10] → log-softmax → NLL; then back.
double mlp_sample(const ModelLayout& layout, const std::vector<double>& p, const GroupInput& input, int s,
                  double* log_probs, std::vector<double>& g) {
  const Tensor w1 = tensor(layout, "fc1.weight", p, g), b1 = tensor(layout, "fc1.bias", p, g);
  const Tensor w2 = tensor(layout, "fc2.weight", p, g), b2 = tensor(layout, "fc2.bias", p, g);
  const double* x = input.images.data() + s * image_pixels;
  std::vector<double> h(mlp::hidden), z(class_count), d_z(class_count), d_h(mlp::hidden);
  linear_forward(h.data(), x, w1.value, b1.value, image_pixels, mlp::hidden);
  relu_forward(h.data(), mlp::hidden);
  linear_forward(z.data(), h.data(), w2.value, b2.value, mlp::hidden, class_count);
  const int label = input.labels[static_cast<std::size_t>(s)];
  const double loss = log_softmax_nll_forward(log_probs, z.data(), label, class_count);
  log_softmax_nll_backward(d_z.data(), log_probs, label, input.loss_scale, class_count);
  linear_backward(d_h.data(), w2.grad, b2.grad, d_z.data(), h.data(), w2.value, mlp::hidden, class_count);
  relu_backward(d_h.data(), h.data(), mlp::hidden);
  linear_backward(nullptr, w1.grad, b1.grad, d_h.data(), x, w1.value, image_pixels, mlp::hidden);
  return loss;
}

// logreg, one sample: x [784] → fc1 [10] → log-softmax → NLL; then back.
double logreg_sample(const ModelLayout& layout, const std::vector<double>& p, const GroupInput& input, int s,
                     double* log_probs, std::vector<double>& g) {
  const Tensor w1 = tensor(layout, "fc1.weight", p, g), b1 = tensor(layout, "fc1.bias", p, g);
  const double* x = input.images.data() + s * image_pixels;
  std::vector<double> z(class_count), d_z(class_count);
  linear_forward(z.data(), x, w1.value, b1.value, image_pixels, class_count);
  const int label = input.labels[static_cast<std::size_t>(s)];
  const double loss = log_softmax_nll_forward(log_probs, z.data(), label, class_count);
  log_softmax_nll_backward(d_z.data(), log_probs, label, input.loss_scale, class_count);
  linear_backward(nullptr, w1.grad, b1.grad, d_z.data(), x, w1.value, image_pixels, class_count);
  return loss;
}

}  // namespace

GroupOutput train_group(ModelKind kind, const std::vector<double>& parameters, const GroupInput& input) {
  const ModelLayout layout = model_layout(kind);
  const int count = static_cast<int>(input.labels.size());
  GroupOutput out;
  out.log_probs.assign(static_cast<std::size_t>(count) * class_count, 0.0);
  out.gradient.assign(layout.parameter_count, 0.0);
  for (int s = 0; s < count; ++s) {
    double* log_probs = out.log_probs.data() + s * class_count;
    switch (kind) {
      case ModelKind::cnn:
        out.loss += cnn_sample(layout, parameters, input, s, log_probs, out.gradient);
        break;
      case ModelKind::mlp:
        out.loss += mlp_sample(layout, parameters, input, s, log_probs, out.gradient);
        break;
      case ModelKind::logreg:
        out.loss += logreg_sample(layout, parameters, input, s, log_probs, out.gradient);
        break;
    }
  }
  return out;
}

}  // namespace mptrain::hogwild::reference
