#include "hogwild/network.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>

#include "hogwild/conv.hpp"
#include "hogwild/flops.hpp"
#include "hogwild/random.hpp"

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE {

namespace {

template <class S>
using Matrix = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class S>
using ConstMap = Eigen::Map<const Matrix<S>>;
template <class S>
using MutableMap = Eigen::Map<Matrix<S>>;
template <class S>
using RowMap = Eigen::Map<Eigen::Matrix<S, 1, Eigen::Dynamic>>;
template <class S>
using ConstRowMap = Eigen::Map<const Eigen::Matrix<S, 1, Eigen::Dynamic>>;

// A dense layer: its sizes, its offsets and whether relu follows it.
struct DenseLayer {
  int inputs = 0;
  int outputs = 0;
  std::size_t weight = 0;  // offsets in the flat parameter array
  std::size_t bias = 0;
  bool hidden = false;  // relu after it
};

// The dense layers of `layout` (named fc1, fc2, …).
std::vector<DenseLayer> dense_layers(const ModelLayout& layout) {
  std::vector<DenseLayer> layers;
  for (const auto& info : layout.tensors) {
    if (info.name.rfind("fc", 0) != 0 || info.shape.size() != 2) continue;
    const std::string name = info.name.substr(0, info.name.find('.'));
    layers.push_back(DenseLayer{info.shape[1], info.shape[0], info.offset, layout.tensor(name + ".bias").offset});
  }
  for (std::size_t l = 0; l + 1 < layers.size(); ++l) layers[l].hidden = true;
  return layers;
}

// Offsets of the conv front's tensors in the flat parameter array, resolved
// once per layout so a group's pass looks nothing up by name.
struct ConvOffsets {
  std::size_t conv1_weight = 0;
  std::size_t conv1_bias = 0;
  std::size_t conv2_weight = 0;
  std::size_t conv2_bias = 0;

  // The front's tensors inside the flat array at `base` (parameters or gradients).
  template <class T>
  ConvTensors<T> in(T* base) const {
    return {base + conv1_weight, base + conv1_bias, base + conv2_weight, base + conv2_bias};
  }
};

// The conv front's offsets in `layout`; all zero for a model without one.
ConvOffsets conv_offsets(const ModelLayout& layout) {
  if (layout.kind != ModelKind::cnn) return {};
  return {layout.tensor("conv1.weight").offset, layout.tensor("conv1.bias").offset,
          layout.tensor("conv2.weight").offset, layout.tensor("conv2.bias").offset};
}

// Random bits per draw of the dropout streams.
constexpr int bits_per_draw = 64;
static_assert(cnn::conv2_channels <= bits_per_draw, "one draw covers the dropout2d channels of a sample");
static_assert(cnn::hidden <= bits_per_draw, "one draw covers the dropout of fc1's outputs");

// The cnn's dense head on lane vectors, like its front: fc1 320 → 50, relu,
// dropout, fc2 50 → 10, log-softmax, one sample per lane. Its weight
// gradients are sums over the lanes, made as FMAs over each sample's own
// values (transposed), not as a reduction per weight.
namespace head {

constexpr int hidden = cnn::hidden;
constexpr int features = cnn::features;
// The hidden units and classes rounded up to whole lane-vector blocks, for the transposes.
constexpr int round_to_lanes(int n) { return (n + lane_count - 1) / lane_count * lane_count; }
constexpr int hidden_padded = round_to_lanes(hidden);
constexpr int classes_padded = round_to_lanes(class_count);
static_assert(features % lane_count == 0);

// One lane group's pass through the head, kept for its backward.
template <class S>
struct Lanes_ {
  using V = Lanes<S>;
  std::array<V, hidden> mask{};            // dropout: 0 or 2 (1 without dropout)
  std::array<V, hidden> h{};               // fc1 → relu → dropout
  std::array<V, class_count> log_probs{};  // fc2 → log-softmax
  V label{};                               // each lane's label
  V live{};                                // 1 for the lanes that hold a sample, 0 past the group's count
};

// Buffers of the backward, shared by the lane groups: gradients in lanes
// (zero past the real units) and each sample's own values, [lane][·].
template <class S>
struct Scratch {
  using V = Lanes<S>;
  std::array<V, hidden_padded> g1{};
  std::array<V, classes_padded> g2{};
  std::array<V, hidden_padded> h{};
  std::vector<S> x_rows = std::vector<S>(lane_count * features);
  std::vector<S> g1_rows = std::vector<S>(lane_count * hidden_padded);
  std::vector<S> g2_rows = std::vector<S>(lane_count * classes_padded);
  std::vector<S> h_rows = std::vector<S>(lane_count * hidden_padded);
};

// e^x in every lane.
template <class S>
inline Lanes<S> exp_lanes(Lanes<S> x) {
  for (int s = 0; s < lane_count; ++s) x[s] = std::exp(x[s]);
  return x;
}

// out[0 … n) += the first n values of acc.
template <class S, int n>
inline void add_to(S* out, const Lanes<S>* acc) {
  constexpr int full = n / lane_count;
  for (int v = 0; v < full; ++v) store_lanes<S>(out + v * lane_count, load_lanes<S>(out + v * lane_count) + acc[v]);
  if constexpr (n % lane_count != 0) {
    for (int j = 0; j < n % lane_count; ++j) out[full * lane_count + j] += acc[full][j];
  }
}

// weight [outputs][inputs] += Σ over the lanes of g[o] × x[i], from the
// samples' rows g_rows [lane][g_stride] and x_rows [lane][x_stride] (x_stride
// = inputs rounded up to whole vectors), `block` vectors of one output row
// in accumulators at a time; and bias [outputs] += Σ over the lanes of g.
template <class S, int outputs, int inputs, int block>
void add_outer(const S* g_rows, int g_stride, const S* x_rows, S* weight, S* bias) {
  using V = Lanes<S>;
  constexpr int x_stride = round_to_lanes(inputs);
  constexpr int inputs_vectors = x_stride / lane_count;
  static_assert(inputs_vectors % block == 0);
  for (int o = 0; o < outputs; ++o) {
    S bias_sum = 0;
    for (int s = 0; s < lane_count; ++s) bias_sum += g_rows[s * g_stride + o];
    bias[o] += bias_sum;
    for (int j0 = 0; j0 < inputs_vectors; j0 += block) {
      V acc[block] = {};
      for (int s = 0; s < lane_count; ++s) {
        const V g = broadcast(g_rows[s * g_stride + o]);
        const S* x = x_rows + s * x_stride + j0 * lane_count;
#pragma GCC unroll 20
        for (int j = 0; j < block; ++j) acc[j] += g * load_lanes<S>(x + j * lane_count);
      }
      S* out = weight + o * inputs + j0 * lane_count;
      if (j0 + block < inputs_vectors || inputs % (block * lane_count) == 0) {
        add_to<S, block * lane_count>(out, acc);
      } else {
        add_to<S, inputs - (inputs_vectors - block) * lane_count>(out, acc);
      }
    }
  }
}

// fc1, relu, dropout, fc2, log-softmax of the features `x` [320] into `lanes`.
// (Not inlined, here and in backward: a profile by symbol then shows the dense head as its own layer.)
template <class S>
__attribute__((noinline)) void forward(const S* w1, const S* b1, const S* w2, const S* b2, const Lanes<S>* x,
                                       Lanes_<S>& lanes) {
  using V = Lanes<S>;
  constexpr int block = 10;  // fc1 outputs accumulated together, each input loaded once per block
  static_assert(hidden % block == 0);
  for (int j0 = 0; j0 < hidden; j0 += block) {
    V acc[block];
#pragma GCC unroll 10
    for (int jj = 0; jj < block; ++jj) acc[jj] = broadcast(b1[j0 + jj]);
    for (int f = 0; f < features; ++f) {
      const V in = x[f];
#pragma GCC unroll 10
      for (int jj = 0; jj < block; ++jj) acc[jj] += w1[(j0 + jj) * features + f] * in;
    }
#pragma GCC unroll 10
    for (int jj = 0; jj < block; ++jj) lanes.h[j0 + jj] = (acc[jj] > 0 ? acc[jj] : V{}) * lanes.mask[j0 + jj];
  }
  V z[class_count];
  for (int k = 0; k < class_count; ++k) z[k] = broadcast(b2[k]);
  for (int j = 0; j < hidden; ++j) {
    const V hj = lanes.h[j];
#pragma GCC unroll 10
    for (int k = 0; k < class_count; ++k) z[k] += w2[k * hidden + j] * hj;
  }
  V top = z[0];
  for (int k = 1; k < class_count; ++k) top = z[k] > top ? z[k] : top;
  V sum{};
  for (int k = 0; k < class_count; ++k) sum += exp_lanes<S>(z[k] - top);
  V log_sum = sum;
  for (int s = 0; s < lane_count; ++s) log_sum[s] = std::log(sum[s]);
  for (int k = 0; k < class_count; ++k) lanes.log_probs[k] = z[k] - top - log_sum;
}

// The NLL of the lanes that hold a sample.
template <class S>
S loss(const Lanes_<S>& lanes) {
  Lanes<S> picked{};
  for (int k = 0; k < class_count; ++k) picked += lanes.label == S(k) ? lanes.log_probs[k] : Lanes<S>{};
  S total = 0;
  for (int s = 0; s < lane_count; ++s) total -= lanes.live[s] != 0 ? picked[s] : S(0);
  return total;
}

// Back through log-softmax + NLL (× loss_scale), fc2, dropout, relu and fc1:
// adds the head's weight and bias gradients and writes d_x [320].
template <class S>
__attribute__((noinline)) void backward(const S* w1, const S* w2, const Lanes<S>* x, const Lanes_<S>& lanes,
                                        S loss_scale, S* gw1, S* gb1, S* gw2, S* gb2, Lanes<S>* d_x,
                                        Scratch<S>& scratch) {
  using V = Lanes<S>;
  auto& g2 = scratch.g2;
  for (int k = 0; k < class_count; ++k) {
    const V one_hot = lanes.label == S(k) ? broadcast(S(1)) : V{};
    g2[k] = (exp_lanes<S>(lanes.log_probs[k]) - one_hot) * (lanes.live * loss_scale);
  }
  auto& g1 = scratch.g1;
  for (int j = 0; j < hidden; ++j) {
    V d{};
#pragma GCC unroll 10
    for (int k = 0; k < class_count; ++k) d += w2[k * hidden + j] * g2[k];
    g1[j] = lanes.h[j] > 0 ? d * lanes.mask[j] : V{};
  }
  // d_x [320] = g1 · w1, a block of inputs at a time (as many accumulators as the registers hold).
  constexpr int block = lane_count == 16 ? 16 : 8;
  static_assert(features % block == 0);
  for (int f0 = 0; f0 < features; f0 += block) {
    V acc[block] = {};
    for (int j = 0; j < hidden; ++j) {
      const V gj = g1[j];
#pragma GCC unroll 16
      for (int ff = 0; ff < block; ++ff) acc[ff] += w1[j * features + f0 + ff] * gj;
    }
    for (int ff = 0; ff < block; ++ff) d_x[f0 + ff] = acc[ff];
  }
  // Weight gradients from each sample's own values.
  std::copy(lanes.h.begin(), lanes.h.end(), scratch.h.begin());
  lanes_to_rows<S>(x, features, scratch.x_rows.data());
  lanes_to_rows<S>(g1.data(), hidden_padded, scratch.g1_rows.data());
  lanes_to_rows<S>(g2.data(), classes_padded, scratch.g2_rows.data());
  lanes_to_rows<S>(scratch.h.data(), hidden_padded, scratch.h_rows.data());
  constexpr int x_vectors = features / lane_count;
  constexpr int h_vectors = hidden_padded / lane_count;
  add_outer<S, hidden, features, lane_count == 16 ? x_vectors : 10>(scratch.g1_rows.data(), hidden_padded,
                                                                    scratch.x_rows.data(), gw1, gb1);
  add_outer<S, class_count, hidden, h_vectors>(scratch.g2_rows.data(), classes_padded, scratch.h_rows.data(), gw2, gb2);
}

}  // namespace head

}  // namespace

template <class S>
struct Network<S>::Impl {
  using V = Lanes<S>;

  ModelLayout layout;
  std::vector<DenseLayer> dense;
  ConvOffsets conv_tensors;
  // The mlp and the logreg: Eigen on the group's rows.
  std::vector<Matrix<S>> activations;  // [0]: the images; [l + 1]: layer l's output
  Matrix<S> grad_out;
  Matrix<S> grad_in;
  // The cnn runs on lane_count samples at a time: a group of group_size is
  // group_size / lane_count lane groups, each with its own buffers (the
  // backward needs what its forward kept).
  static constexpr int sub_groups = group_size / lane_count;
  std::array<ConvWorkspace<S>, sub_groups> conv;
  std::array<head::Lanes_<S>, sub_groups> heads;
  head::Scratch<S> head_scratch;
  std::int64_t flops_done = 0;  // by train_group

  explicit Impl(ModelKind kind)
      : layout(model_layout(kind)), dense(dense_layers(layout)), conv_tensors(conv_offsets(layout)) {
    if (is_cnn()) return;
    activations.emplace_back(group_size, dense.front().inputs);
    for (const auto& layer : dense) activations.emplace_back(group_size, layer.outputs);
  }

  bool is_cnn() const { return layout.kind == ModelKind::cnn; }

  // The cnn's dropout masks (dropout2d after conv2, dropout after fc1's
  // relu; scale 2 for kept units, PyTorch's 1/(1−p)), each sample's from its
  // key. The lanes past the group's count keep no conv2 channel, so conv2
  // does no work for them.
  void draw_masks(const Group<S>& group) {
    for (int g = 0; g < sub_groups; ++g) {
      for (auto& v : conv[g].channel_mask) v = broadcast(S(1));
      for (auto& v : heads[g].mask) v = broadcast(S(1));
    }
    for (int s = group.count; s < group_size; ++s) {
      for (auto& v : conv[s / lane_count].channel_mask) v[s % lane_count] = 0;
    }
    if (group.dropout_keys == nullptr) return;
    for (int s = 0; s < group.count; ++s) {
      Random random(group.dropout_keys[s]);
      const int g = s / lane_count;
      const int lane = s % lane_count;
      const std::uint64_t channels = random.next();
      for (int c = 0; c < cnn::conv2_channels; ++c)
        conv[g].channel_mask[c][lane] = ((channels >> c) & 1U) != 0 ? S(2) : S(0);
      const std::uint64_t units = random.next();
      for (int j = 0; j < cnn::hidden; ++j) heads[g].mask[j][lane] = ((units >> j) & 1U) != 0 ? S(2) : S(0);
    }
  }

  // The cnn forward, lane group by lane group; returns the summed NLL.
  S forward_cnn(const S* p, const Group<S>& group) {
    draw_masks(group);
    const DenseLayer& fc1 = dense[0];
    const DenseLayer& fc2 = dense[1];
    S loss = 0;
    for (int g = 0; g < sub_groups; ++g) {
      static_assert(image_pixels % lane_count == 0);
      rows_to_lanes<S>(group.images + g * lane_count * image_pixels, image_pixels, conv[g].image.data());
      conv_forward(conv_tensors.in(p), conv[g]);
      auto& lanes = heads[g];
      for (int s = 0; s < lane_count; ++s) {
        const int sample = g * lane_count + s;
        lanes.live[s] = sample < group.count ? 1 : 0;
        lanes.label[s] = sample < group.count ? S(group.labels[sample]) : S(-1);
      }
      head::forward(p + fc1.weight, p + fc1.bias, p + fc2.weight, p + fc2.bias, conv[g].p2.data(), lanes);
      loss += head::loss(lanes);
    }
    return loss;
  }

  // The dense layers on the images, then log-softmax in place on the last activation; returns the summed NLL.
  S forward(const S* p, const Group<S>& group) {
    if (is_cnn()) return forward_cnn(p, group);
    activations[0] = ConstMap<S>(group.images, group_size, image_pixels);
    for (std::size_t l = 0; l < dense.size(); ++l) {
      const auto& layer = dense[l];
      Matrix<S>& out = activations[l + 1];
      out.noalias() = activations[l] * ConstMap<S>(p + layer.weight, layer.outputs, layer.inputs).transpose();
      out.rowwise() += ConstRowMap<S>(p + layer.bias, layer.outputs);
      if (layer.hidden) out = out.cwiseMax(S(0));
    }
    Matrix<S>& logits = activations.back();
    S loss = 0;
    for (int s = 0; s < group_size; ++s) {
      const S top = logits.row(s).maxCoeff();
      const S log_sum = top + std::log((logits.row(s).array() - top).exp().sum());
      logits.row(s).array() -= log_sum;
      if (s < group.count) loss -= logits(s, group.labels[s]);
    }
    return loss;
  }

  // Back-propagates the loss into `grad`.
  void backward(const S* p, const Group<S>& group, S* grad) {
    if (is_cnn()) {
      const DenseLayer& fc1 = dense[0];
      const DenseLayer& fc2 = dense[1];
      for (int g = 0; g < sub_groups; ++g) {
        head::backward(p + fc1.weight, p + fc2.weight, conv[g].p2.data(), heads[g], group.loss_scale, grad + fc1.weight,
                       grad + fc1.bias, grad + fc2.weight, grad + fc2.bias, conv[g].d_p2.data(), head_scratch);
        conv_backward(conv_tensors.in(p), conv[g], conv_tensors.in(grad));
      }
      return;
    }
    const Matrix<S>& log_probs = activations.back();
    grad_out = log_probs.array().exp() * group.loss_scale;
    for (int s = 0; s < group_size; ++s) {
      if (s < group.count) {
        grad_out(s, group.labels[s]) -= group.loss_scale;
      } else {
        grad_out.row(s).setZero();
      }
    }
    for (std::size_t l = dense.size(); l-- > 0;) {
      const auto& layer = dense[l];
      const Matrix<S>& input = activations[l];
      MutableMap<S>(grad + layer.weight, layer.outputs, layer.inputs).noalias() += grad_out.transpose() * input;
      RowMap<S>(grad + layer.bias, layer.outputs) += grad_out.colwise().sum();
      if (l == 0) break;
      grad_in.noalias() = grad_out * ConstMap<S>(p + layer.weight, layer.outputs, layer.inputs);
      grad_in = (input.array() > S(0)).select(grad_in, S(0));
      std::swap(grad_out, grad_in);
    }
  }

  // The log-probabilities of sample s, class k, after a forward.
  S log_prob(int s, int k) const {
    if (is_cnn()) return heads[s / lane_count].log_probs[k][s % lane_count];
    return activations.back()(s, k);
  }
};

template <class S>
Network<S>::Network(ModelKind kind) : impl_(std::make_unique<Impl>(kind)) {}

template <class S>
Network<S>::~Network() = default;

template <class S>
S Network<S>::train_group(const S* parameters, const Group<S>& group, S* gradient) {
  const S loss = impl_->forward(parameters, group);
  impl_->backward(parameters, group, gradient);
  if (impl_->is_cnn()) {
    std::int64_t kept = 0;
    std::int64_t winners = 0;
    for (const auto& front : impl_->conv) {
      kept += front.rows.kept_channels;
      winners += front.rows.gradient_winners;
    }
    impl_->flops_done += cnn_flops_done(group.count, kept, winners);
  } else {
    impl_->flops_done += group.count * flops_per_sample(impl_->layout.kind);
  }
  return loss;
}

template <class S>
std::int64_t Network<S>::flops_done() const {
  return impl_->flops_done;
}

template <class S>
S Network<S>::loss(const S* parameters, const Group<S>& group) {
  return impl_->forward(parameters, group);
}

template <class S>
S Network<S>::evaluate_group(const S* parameters, const Group<S>& group, S* log_probs) {
  Group<S> plain = group;
  plain.dropout_keys = nullptr;
  const S loss = impl_->forward(parameters, plain);
  if (log_probs != nullptr) {
    for (int s = 0; s < group.count; ++s) {
      for (int k = 0; k < class_count; ++k) log_probs[s * class_count + k] = impl_->log_prob(s, k);
    }
  }
  return loss;
}

template <class S>
const ModelLayout& Network<S>::layout() const {
  return impl_->layout;
}

template class Network<float>;
template class Network<double>;

}  // namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE
