#include "hogwild/network.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "hogwild/conv.hpp"
#include "hogwild/dense.hpp"
#include "hogwild/flops.hpp"
#include "hogwild/random.hpp"

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE {

namespace {

// A dense layer's offsets in the flat parameter array.
struct DenseLayer {
  std::size_t weight = 0;
  std::size_t bias = 0;
};

// The dense layers of `layout`, in order.
std::vector<DenseLayer> dense_layers(const ModelLayout& layout) {
  std::vector<DenseLayer> layers;
  const auto specs = model_layers(layout.kind);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].kind == LayerKind::dense) layers.push_back(DenseLayer{layout.layers[i].weight, layout.layers[i].bias});
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

// The conv front's offsets in `layout` (its first two layers, both conv); all zero for a model without one.
ConvOffsets conv_offsets(const ModelLayout& layout) {
  const auto specs = model_layers(layout.kind);
  if (specs.size() < 2 || specs[0].kind != LayerKind::conv || specs[1].kind != LayerKind::conv) return {};
  return {layout.layers[0].weight, layout.layers[0].bias, layout.layers[1].weight, layout.layers[1].bias};
}

// Random bits per draw of the dropout streams.
constexpr int bits_per_draw = 64;
static_assert(cnn::conv2_channels <= bits_per_draw, "one draw covers the dropout2d channels of a sample");
static_assert(cnn::hidden <= bits_per_draw, "one draw covers the dropout of fc1's outputs");

// One lane group's pass through the dense layers, kept for its backward.
// Each array is padded (dense::padded) and its padding stays zero.
template <class S>
struct DenseLanes {
  using V = Lanes<S>;
  std::vector<V> x;     // the first layer's input: the images (mlp, logreg); the cnn reads its front's p2
  std::vector<V> h;     // the hidden layer's output after relu (and dropout): mlp 128, cnn 50
  std::vector<V> mask;  // the cnn's dropout after fc1: 0 or 2 (1 without dropout)
  std::vector<V> d_h;   // the loss's gradient at h's pre-activation
  dense::Classifier<S> out;

  DenseLanes(int inputs, int hidden)
      : x(dense::padded(inputs)), h(dense::padded(hidden)), mask(hidden), d_h(dense::padded(hidden)) {}
};

// The hidden units of `kind`'s dense layers (0: none).
constexpr int hidden_units(ModelKind kind) {
  return kind == ModelKind::cnn ? cnn::hidden : kind == ModelKind::mlp ? mlp::hidden : 0;
}

}  // namespace

template <class S>
struct Network<S>::Impl {
  using V = Lanes<S>;

  ModelLayout layout;
  std::vector<DenseLayer> dense;
  ConvOffsets conv_tensors;
  // A group of group_size samples is group_size / lane_count lane groups,
  // each with its own buffers (the backward needs what its forward kept);
  // the conv front's only for the cnn.
  static constexpr int sub_groups = group_size / lane_count;
  std::vector<ConvWorkspace<S>> conv;
  std::vector<DenseLanes<S>> lanes;
  dense::Rows<S> rows;          // the weight gradients' transposes, sized for the widest layer
  std::int64_t flops_done = 0;  // by train_group

  explicit Impl(ModelKind kind)
      : layout(model_layout(kind)),
        dense(dense_layers(layout)),
        conv_tensors(conv_offsets(layout)),
        conv(kind == ModelKind::cnn ? sub_groups : 0),
        lanes(sub_groups, DenseLanes<S>(kind == ModelKind::cnn ? 0 : image_pixels, hidden_units(kind))),
        rows(std::max(image_pixels, cnn::features), std::max(hidden_units(kind), class_count)) {}

  bool is_cnn() const { return layout.kind == ModelKind::cnn; }

  // The cnn's dropout masks (dropout2d after conv2, dropout after fc1's
  // relu; scale 2 for kept units, PyTorch's 1/(1−p)), each sample's from its
  // key. The lanes past the group's count keep no conv2 channel, so conv2
  // does no work for them.
  void draw_masks(const Group<S>& group) {
    for (int g = 0; g < sub_groups; ++g) {
      for (auto& v : conv[g].channel_mask) v = broadcast(S(1));
      for (auto& v : lanes[g].mask) v = broadcast(S(1));
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
      for (int j = 0; j < cnn::hidden; ++j) lanes[g].mask[j][lane] = ((units >> j) & 1U) != 0 ? S(2) : S(0);
    }
  }

  // Each lane's label and whether it holds a sample, for lane group `g`.
  void set_labels(const Group<S>& group, int g) {
    auto& out = lanes[g].out;
    for (int s = 0; s < lane_count; ++s) {
      const int sample = g * lane_count + s;
      out.live[s] = sample < group.count ? 1 : 0;
      out.label[s] = sample < group.count ? S(group.labels[sample]) : S(-1);
    }
  }

  // cnn head, forward: x [320] → fc1 [50] → relu → dropout (h) → fc2 [10] → log-softmax.
  // (Not inlined, here and in the backward: a profile by symbol shows the head as its own layer.)
  __attribute__((noinline)) void head_forward(const S* p, const V* x, DenseLanes<S>& l) {
    const DenseLayer& fc1 = dense[0];
    const DenseLayer& fc2 = dense[1];
    dense::forward<S, cnn::features, cnn::hidden>(p + fc1.weight, p + fc1.bias, x, l.h.data());
    for (int j = 0; j < cnn::hidden; ++j) l.h[j] = (l.h[j] > 0 ? l.h[j] : V{}) * l.mask[j];
    dense::forward<S, cnn::hidden, class_count>(p + fc2.weight, p + fc2.bias, l.h.data(), l.out.z);
    l.out.log_softmax();
  }

  // cnn head, backward: from the loss to d_x [320], adding fc1's and fc2's gradients to `grad`.
  __attribute__((noinline)) void head_backward(const S* p, const V* x, DenseLanes<S>& l, S loss_scale, S* grad,
                                               V* d_x) {
    const DenseLayer& fc1 = dense[0];
    const DenseLayer& fc2 = dense[1];
    l.out.loss_gradient(loss_scale);
    dense::input_gradient<S, cnn::hidden, class_count>(p + fc2.weight, l.out.g, l.d_h.data());
    for (int j = 0; j < cnn::hidden; ++j) l.d_h[j] = l.h[j] > 0 ? l.d_h[j] * l.mask[j] : V{};
    dense::input_gradient<S, cnn::features, cnn::hidden>(p + fc1.weight, l.d_h.data(), d_x);
    dense::weight_gradient<S, cnn::features, cnn::hidden>(x, l.d_h.data(), grad + fc1.weight, grad + fc1.bias, rows);
    dense::weight_gradient<S, cnn::hidden, class_count>(l.h.data(), l.out.g, grad + fc2.weight, grad + fc2.bias, rows);
  }

  // mlp, forward: x [784] → fc1 [128] → relu (h) → fc2 [10] → log-softmax.
  void mlp_forward(const S* p, DenseLanes<S>& l) {
    const DenseLayer& fc1 = dense[0];
    const DenseLayer& fc2 = dense[1];
    dense::forward<S, image_pixels, mlp::hidden>(p + fc1.weight, p + fc1.bias, l.x.data(), l.h.data());
    dense::relu<S>(l.h.data(), mlp::hidden);
    dense::forward<S, mlp::hidden, class_count>(p + fc2.weight, p + fc2.bias, l.h.data(), l.out.z);
    l.out.log_softmax();
  }

  // mlp, backward: fc2's gradients, back through relu, fc1's gradients.
  void mlp_backward(const S* p, DenseLanes<S>& l, S loss_scale, S* grad) {
    const DenseLayer& fc1 = dense[0];
    const DenseLayer& fc2 = dense[1];
    l.out.loss_gradient(loss_scale);
    dense::weight_gradient<S, mlp::hidden, class_count>(l.h.data(), l.out.g, grad + fc2.weight, grad + fc2.bias, rows);
    dense::input_gradient<S, mlp::hidden, class_count>(p + fc2.weight, l.out.g, l.d_h.data());
    dense::relu_backward<S>(l.h.data(), l.d_h.data(), mlp::hidden);
    dense::weight_gradient<S, image_pixels, mlp::hidden>(l.x.data(), l.d_h.data(), grad + fc1.weight, grad + fc1.bias,
                                                         rows);
  }

  // logreg, forward: x [784] → fc1 [10] → log-softmax.
  void logreg_forward(const S* p, DenseLanes<S>& l) {
    const DenseLayer& fc1 = dense[0];
    dense::forward<S, image_pixels, class_count>(p + fc1.weight, p + fc1.bias, l.x.data(), l.out.z);
    l.out.log_softmax();
  }

  // logreg, backward: fc1's gradients.
  void logreg_backward(DenseLanes<S>& l, S loss_scale, S* grad) {
    const DenseLayer& fc1 = dense[0];
    l.out.loss_gradient(loss_scale);
    dense::weight_gradient<S, image_pixels, class_count>(l.x.data(), l.out.g, grad + fc1.weight, grad + fc1.bias, rows);
  }

  // The forward of every lane group; returns the summed NLL.
  S forward(const S* p, const Group<S>& group) {
    if (is_cnn()) draw_masks(group);
    static_assert(image_pixels % lane_count == 0);
    S loss = 0;
    for (int g = 0; g < sub_groups; ++g) {
      DenseLanes<S>& l = lanes[g];
      const S* images = group.images + g * lane_count * image_pixels;
      set_labels(group, g);
      switch (layout.kind) {
        case ModelKind::cnn:
          rows_to_lanes<S>(images, image_pixels, conv[g].image.data());
          conv_forward(conv_tensors.in(p), conv[g]);
          head_forward(p, conv[g].p2.data(), l);
          break;
        case ModelKind::mlp:
          rows_to_lanes<S>(images, image_pixels, l.x.data());
          mlp_forward(p, l);
          break;
        case ModelKind::logreg:
          rows_to_lanes<S>(images, image_pixels, l.x.data());
          logreg_forward(p, l);
          break;
      }
      loss += l.out.loss();
    }
    return loss;
  }

  // Back-propagates every lane group's loss into `grad`.
  void backward(const S* p, const Group<S>& group, S* grad) {
    for (int g = 0; g < sub_groups; ++g) {
      DenseLanes<S>& l = lanes[g];
      switch (layout.kind) {
        case ModelKind::cnn:
          head_backward(p, conv[g].p2.data(), l, group.loss_scale, grad, conv[g].d_p2.data());
          conv_backward(conv_tensors.in(p), conv[g], conv_tensors.in(grad));
          break;
        case ModelKind::mlp:
          mlp_backward(p, l, group.loss_scale, grad);
          break;
        case ModelKind::logreg:
          logreg_backward(l, group.loss_scale, grad);
          break;
      }
    }
  }

  // The log-probabilities of sample s, class k, after a forward.
  S log_prob(int s, int k) const { return lanes[s / lane_count].out.log_probs[k][s % lane_count]; }
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
