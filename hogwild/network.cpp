#include "hogwild/network.hpp"

#include <Eigen/Core>
#include <array>
#include <cmath>

#include "hogwild/conv.hpp"
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

// A dense layer: its sizes, its offsets and whether relu (and dropout) follow it.
struct DenseLayer {
  int inputs = 0;
  int outputs = 0;
  std::size_t weight = 0;  // offsets in the flat parameter array
  std::size_t bias = 0;
  bool hidden = false;   // relu after it
  bool dropout = false;  // dropout (p = 0.5) after the relu
};

// The dense layers of `layout` (named fc1, fc2, …).
std::vector<DenseLayer> dense_layers(const ModelLayout& layout) {
  std::vector<DenseLayer> layers;
  for (const auto& info : layout.tensors) {
    if (info.name.rfind("fc", 0) != 0 || info.shape.size() != 2) continue;
    const std::string name = info.name.substr(0, info.name.find('.'));
    layers.push_back(DenseLayer{info.shape[1], info.shape[0], info.offset, layout.tensor(name + ".bias").offset});
  }
  for (std::size_t l = 0; l + 1 < layers.size(); ++l) {
    layers[l].hidden = true;
    layers[l].dropout = layout.kind == ModelKind::cnn;
  }
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

}  // namespace

template <class S>
struct Network<S>::Impl {
  using V = Lanes<S>;

  ModelLayout layout;
  std::vector<DenseLayer> dense;
  ConvOffsets conv_tensors;
  std::vector<Matrix<S>> activations;  // [0]: the dense input; [l + 1]: layer l's output
  std::vector<Matrix<S>> masks;        // dropout masks (0 or 2) of hidden layers
  Matrix<S> grad_out;
  Matrix<S> grad_in;
  // The conv front runs on lane_count samples at a time: a group of
  // group_size is group_size / lane_count sub-groups, each with its own
  // buffers (the backward needs what its forward kept).
  static constexpr int sub_groups = group_size / lane_count;
  std::array<ConvWorkspace<S>, sub_groups> conv;

  explicit Impl(ModelKind kind)
      : layout(model_layout(kind)), dense(dense_layers(layout)), conv_tensors(conv_offsets(layout)) {
    activations.emplace_back(group_size, dense.front().inputs);
    for (const auto& layer : dense) {
      activations.emplace_back(group_size, layer.outputs);
      masks.emplace_back(Matrix<S>::Ones(group_size, layer.outputs));
    }
  }

  bool is_cnn() const { return layout.kind == ModelKind::cnn; }

  // Draws the dropout masks of the group (scale 2 for kept units, PyTorch's 1/(1−p)).
  void draw_masks(const Group<S>& group) {
    const bool active = group.dropout_keys != nullptr;
    for (std::size_t l = 0; l < dense.size(); ++l) {
      if (dense[l].dropout) masks[l].setOnes();
    }
    if (is_cnn()) {
      for (auto& front : conv) {
        for (auto& v : front.channel_mask) v = broadcast(S(1));
      }
    }
    if (!active) return;
    for (int s = 0; s < group.count; ++s) {
      Random random(group.dropout_keys[s]);
      if (is_cnn()) {
        const std::uint64_t bits = random.next();
        auto& mask = conv[s / lane_count].channel_mask;
        for (int c = 0; c < cnn::conv2_channels; ++c) mask[c][s % lane_count] = ((bits >> c) & 1U) != 0 ? S(2) : S(0);
      }
      for (std::size_t l = 0; l < dense.size(); ++l) {
        if (!dense[l].dropout) continue;
        std::uint64_t bits = random.next();
        for (int j = 0; j < dense[l].outputs; ++j) {
          if (j % bits_per_draw == 0 && j > 0) bits = random.next();
          masks[l](s, j) = ((bits >> (j % bits_per_draw)) & 1U) != 0 ? S(2) : S(0);
        }
      }
    }
  }

  // Fills activations[0]: the images, or the conv front's features for the cnn.
  void dense_input(const S* p, const Group<S>& group) {
    Matrix<S>& input = activations[0];
    if (!is_cnn()) {
      input = ConstMap<S>(group.images, group_size, image_pixels);
      return;
    }
    for (int g = 0; g < sub_groups; ++g) {
      const S* images = group.images + g * lane_count * image_pixels;
      for (int pixel = 0; pixel < image_pixels; ++pixel) {
        V v;
        for (int s = 0; s < lane_count; ++s) v[s] = images[s * image_pixels + pixel];
        conv[g].image[pixel] = v;
      }
      conv_forward(conv_tensors.in(p), conv[g]);
      for (int s = 0; s < lane_count; ++s) {
        for (int f = 0; f < cnn::features; ++f) input(g * lane_count + s, f) = conv[g].p2[f][s];
      }
    }
  }

  // The dense layers, then log-softmax in place on the last activation; returns the summed NLL.
  S forward(const S* p, const Group<S>& group) {
    draw_masks(group);
    dense_input(p, group);
    for (std::size_t l = 0; l < dense.size(); ++l) {
      const auto& layer = dense[l];
      Matrix<S>& out = activations[l + 1];
      out.noalias() = activations[l] * ConstMap<S>(p + layer.weight, layer.outputs, layer.inputs).transpose();
      out.rowwise() += ConstRowMap<S>(p + layer.bias, layer.outputs);
      if (layer.hidden) out = out.cwiseMax(S(0)).cwiseProduct(masks[l]);
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

  // Back-propagates the loss through the dense layers (and the conv front) into `grad`.
  void backward(const S* p, const Group<S>& group, S* grad) {
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
      if (l == 0 && !is_cnn()) break;
      grad_in.noalias() = grad_out * ConstMap<S>(p + layer.weight, layer.outputs, layer.inputs);
      if (l > 0) {
        const auto& mask = masks[l - 1];
        grad_in = (input.array() > S(0)).select(grad_in.cwiseProduct(mask), S(0));
      }
      std::swap(grad_out, grad_in);
    }
    if (!is_cnn()) return;
    for (int g = 0; g < sub_groups; ++g) {
      for (int f = 0; f < cnn::features; ++f) {
        V v;
        for (int s = 0; s < lane_count; ++s) v[s] = grad_out(g * lane_count + s, f);
        conv[g].d_p2[f] = v;
      }
      conv_backward(conv_tensors.in(p), conv[g], conv_tensors.in(grad));
    }
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
  return loss;
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
    const Matrix<S>& out = impl_->activations.back();
    for (int s = 0; s < group.count; ++s) {
      for (int k = 0; k < class_count; ++k) log_probs[s * class_count + k] = out(s, k);
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
