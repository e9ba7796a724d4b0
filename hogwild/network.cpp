// One build of the kernels: each model's passes over a group of
// group_size samples, behind NetworkKernels (kernel_set.hpp), and the
// build's KernelSet, the only name the rest of the program sees. CMake
// compiles this file with conv.cpp once per instruction set, defining
// MPTRAIN_KERNEL_ISA (the Isa enumerator) and MPTRAIN_KERNEL_NAMESPACE
// (where that build's code lives). Nothing here runs before the dispatcher
// has chosen this build: the set is constant-initialised.
//
// A model is a struct of its buffers, one set per lane group (a group is
// sub_groups lane groups of lane_count samples, each keeping what its
// backward needs), with these passes over lane group `g`:
//   input(g)                    where the lane group's images go, as lane vectors
//   forward(p, g)               their log-probabilities, in out(g)
//   backward(p, g, scale, grad) adds the scaled gradient of out(g)'s loss to `grad`
// or, for a model with a conv front (the cnn), that backward in two parts,
// so the head's gradients are final before the front's backward starts:
//   backward_head(p, g, scale, grad)   the head's gradients, and the loss's gradient at the front's output
//   backward_front(p, g, grad)         the front's gradients
// and, for a model with dropout or work it skips (the cnn):
//   masks(count, draws)         the dropout masks of a group of `count` samples
//   work()                      the GroupWork of the last forward and backward
// ModelNetwork runs them over a group for NetworkKernels.
#include "hogwild/conv.hpp"
#include "hogwild/dense.hpp"
#include "hogwild/kernel_set.hpp"

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE {

namespace {

static_assert(group_size % lane_count == 0, "a group is a whole number of the kernels' lane vectors");
constexpr int sub_groups = group_size / lane_count;

static_assert(image_pixels % lane_count == 0);
static_assert(cnn::conv2_channels <= 64, "one draw covers the dropout2d channels of a sample");
static_assert(cnn::hidden <= 64, "one draw covers the dropout of fc1's outputs");

// logreg: x [784] → fc1 [10] → log-softmax.
template <class S>
struct Logreg {
  using V = Lanes<S>;
  struct LaneGroup {
    V x[dense::padded(image_pixels)] = {};
    dense::Classifier<S> out;
  };
  LayerOffsets fc1;
  LaneGroup lanes[sub_groups];
  dense::Rows<S> rows;  // the weight gradient's transposes

  explicit Logreg(const LayerOffsets* layers) : fc1(layers[0]) {}
  V* input(int g) { return lanes[g].x; }
  dense::Classifier<S>& out(int g) { return lanes[g].out; }

  void forward(const S* p, int g) {
    LaneGroup& l = lanes[g];
    dense::forward<S, image_pixels, class_count>(p + fc1.weight, p + fc1.bias, l.x, l.out.z);
    l.out.log_softmax();
  }

  void backward(const S*, int g, S loss_scale, S* grad) {
    LaneGroup& l = lanes[g];
    l.out.loss_gradient(loss_scale);
    dense::weight_gradient<S, image_pixels, class_count>(l.x, l.out.g, grad + fc1.weight, grad + fc1.bias, rows);
  }
};

// mlp: x [784] → fc1 [128] → relu (h) → fc2 [10] → log-softmax.
template <class S>
struct Mlp {
  using V = Lanes<S>;
  struct LaneGroup {
    V x[dense::padded(image_pixels)] = {};
    V h[dense::padded(mlp::hidden)] = {};
    V d_h[dense::padded(mlp::hidden)] = {};  // the loss's gradient at h's pre-activation
    dense::Classifier<S> out;
  };
  LayerOffsets fc1;
  LayerOffsets fc2;
  LaneGroup lanes[sub_groups];
  dense::Rows<S> rows;

  explicit Mlp(const LayerOffsets* layers) : fc1(layers[0]), fc2(layers[1]) {}
  V* input(int g) { return lanes[g].x; }
  dense::Classifier<S>& out(int g) { return lanes[g].out; }

  void forward(const S* p, int g) {
    LaneGroup& l = lanes[g];
    dense::forward<S, image_pixels, mlp::hidden>(p + fc1.weight, p + fc1.bias, l.x, l.h);
    dense::relu<S>(l.h, mlp::hidden);
    dense::forward<S, mlp::hidden, class_count>(p + fc2.weight, p + fc2.bias, l.h, l.out.z);
    l.out.log_softmax();
  }

  // fc2's gradients, back through relu, fc1's gradients.
  void backward(const S* p, int g, S loss_scale, S* grad) {
    LaneGroup& l = lanes[g];
    l.out.loss_gradient(loss_scale);
    dense::weight_gradient<S, mlp::hidden, class_count>(l.h, l.out.g, grad + fc2.weight, grad + fc2.bias, rows);
    dense::input_gradient<S, mlp::hidden, class_count>(p + fc2.weight, l.out.g, l.d_h);
    dense::relu_backward<S>(l.h, l.d_h, mlp::hidden);
    dense::weight_gradient<S, image_pixels, mlp::hidden>(l.x, l.d_h, grad + fc1.weight, grad + fc1.bias, rows);
  }
};

// cnn: the conv front (conv.hpp) → p2 [320] → fc1 [50] → relu → dropout (h)
// → fc2 [10] → log-softmax.
template <class S>
struct Cnn {
  using V = Lanes<S>;
  struct LaneGroup {
    ConvWorkspace<S> front;
    V h[dense::padded(cnn::hidden)] = {};
    V mask[cnn::hidden] = {};  // the dropout after fc1: 0 or 2 (1 without dropout)
    V d_h[dense::padded(cnn::hidden)] = {};
    dense::Classifier<S> out;
  };
  LayerOffsets conv1;
  LayerOffsets conv2;
  LayerOffsets fc1;
  LayerOffsets fc2;
  LaneGroup lanes[sub_groups];
  dense::Rows<S> rows;

  explicit Cnn(const LayerOffsets* layers) : conv1(layers[0]), conv2(layers[1]), fc1(layers[2]), fc2(layers[3]) {}
  V* input(int g) { return lanes[g].front.image.data(); }
  dense::Classifier<S>& out(int g) { return lanes[g].out; }

  // The front's tensors inside the flat array at `base` (parameters or gradients).
  template <class T>
  ConvTensors<T> front_tensors(T* base) const {
    return {base + conv1.weight, base + conv1.bias, base + conv2.weight, base + conv2.bias};
  }

  GroupWork work() const {
    GroupWork done;
    for (const LaneGroup& l : lanes) {
      done.kept_channels += l.front.rows.kept_channels;
      done.gradient_winners += l.front.rows.gradient_winners;
    }
    return done;
  }

  // dropout2d after conv2 and dropout after fc1's relu, scale 2 for kept
  // units (PyTorch's 1/(1−p)), each sample's from its draws. The lanes past
  // the group's count keep no conv2 channel, so conv2 does no work for them.
  void masks(int count, const DropoutDraws* draws) {
    for (LaneGroup& l : lanes) {
      for (V& v : l.front.channel_mask.values) v = broadcast(S(1));
      for (V& v : l.mask) v = broadcast(S(1));
    }
    for (int s = count; s < group_size; ++s) {
      for (V& v : lanes[s / lane_count].front.channel_mask.values) v[s % lane_count] = 0;
    }
    if (draws == nullptr) return;
    for (int s = 0; s < count; ++s) {
      LaneGroup& l = lanes[s / lane_count];
      const int lane = s % lane_count;
      const std::uint64_t channels = draws->draws[s][0];
      for (int c = 0; c < cnn::conv2_channels; ++c)
        l.front.channel_mask[c][lane] = ((channels >> c) & 1U) != 0 ? S(2) : S(0);
      const std::uint64_t units = draws->draws[s][1];
      for (int j = 0; j < cnn::hidden; ++j) l.mask[j][lane] = ((units >> j) & 1U) != 0 ? S(2) : S(0);
    }
  }

  void forward(const S* p, int g) {
    LaneGroup& l = lanes[g];
    conv_forward(front_tensors(p), l.front);
    head_forward(p, l.front.p2.data(), l);
  }

  void backward_head(const S* p, int g, S loss_scale, S* grad) {
    LaneGroup& l = lanes[g];
    head_backward(p, l.front.p2.data(), l, loss_scale, grad, l.front.d_p2.data());
  }
  void backward_front(const S* p, int g, S* grad) {
    LaneGroup& l = lanes[g];
    conv_backward(front_tensors(p), l.front, front_tensors(grad));
  }

  // The head, forward: x [320] → fc1 [50] → relu → dropout (h) → fc2 [10] → log-softmax.
  // (Not inlined, here and in the backward: a profile by symbol shows the head as its own layer.)
  __attribute__((noinline)) void head_forward(const S* p, const V* x, LaneGroup& l) {
    dense::forward<S, cnn::features, cnn::hidden>(p + fc1.weight, p + fc1.bias, x, l.h);
    for (int j = 0; j < cnn::hidden; ++j) l.h[j] = (l.h[j] > 0 ? l.h[j] : V{}) * l.mask[j];
    dense::forward<S, cnn::hidden, class_count>(p + fc2.weight, p + fc2.bias, l.h, l.out.z);
    l.out.log_softmax();
  }

  // The head, backward: from the loss to d_x [320], adding fc1's and fc2's gradients to `grad`.
  __attribute__((noinline)) void head_backward(const S* p, const V* x, LaneGroup& l, S loss_scale, S* grad, V* d_x) {
    l.out.loss_gradient(loss_scale);
    dense::input_gradient<S, cnn::hidden, class_count>(p + fc2.weight, l.out.g, l.d_h);
    for (int j = 0; j < cnn::hidden; ++j) l.d_h[j] = l.h[j] > 0 ? l.d_h[j] * l.mask[j] : V{};
    dense::sparse_input_gradient<S, cnn::features, cnn::hidden>(p + fc1.weight, l.d_h, d_x, rows);
    dense::weight_gradient<S, cnn::features, cnn::hidden>(x, l.d_h, grad + fc1.weight, grad + fc1.bias, rows);
    dense::weight_gradient<S, cnn::hidden, class_count>(l.h, l.out.g, grad + fc2.weight, grad + fc2.bias, rows);
  }
};

// A model's passes over whole groups, behind NetworkKernels.
template <class S, class Model>
class ModelNetwork final : public NetworkKernels<S> {
 public:
  explicit ModelNetwork(const LayerOffsets* layers) : model_(layers) {}

  S train_group(const S* parameters, const Group<S>& group, const DropoutDraws* draws, S* gradient) override {
    const S loss = forward(parameters, group, draws);
    if constexpr (requires { model_.backward_front(parameters, 0, gradient); }) {
      // Every lane group's head, then every lane group's front: each
      // parameter still adds the lane groups' terms in the same order (a
      // head's and a front's parameters are apart), and the head's
      // gradients are final before the fronts run.
      for (int g = 0; g < sub_groups; ++g) model_.backward_head(parameters, g, group.loss_scale, gradient);
      if (group.head_done != nullptr) group.head_done(group.head_context);
      for (int g = 0; g < sub_groups; ++g) model_.backward_front(parameters, g, gradient);
    } else {
      for (int g = 0; g < sub_groups; ++g) model_.backward(parameters, g, group.loss_scale, gradient);
      if (group.head_done != nullptr) group.head_done(group.head_context);
    }
    return loss;
  }

  S loss(const S* parameters, const Group<S>& group, const DropoutDraws* draws) override {
    return forward(parameters, group, draws);
  }

  S evaluate_group(const S* parameters, const Group<S>& group, S* log_probs) override {
    const S loss = forward(parameters, group, nullptr);
    if (log_probs == nullptr) return loss;
    for (int s = 0; s < group.count; ++s) {
      for (int k = 0; k < class_count; ++k)
        log_probs[s * class_count + k] = model_.out(s / lane_count).log_probs[k][s % lane_count];
    }
    return loss;
  }

  GroupWork last_work() const override {
    if constexpr (requires { model_.work(); }) {
      return model_.work();
    } else {
      return {};
    }
  }

 private:
  // The forward of every lane group; returns the summed NLL.
  S forward(const S* parameters, const Group<S>& group, const DropoutDraws* draws) {
    if constexpr (requires { model_.masks(group.count, draws); }) model_.masks(group.count, draws);
    S loss = 0;
    for (int g = 0; g < sub_groups; ++g) {
      auto& out = model_.out(g);
      for (int s = 0; s < lane_count; ++s) {
        const int sample = g * lane_count + s;
        out.live[s] = sample < group.count ? 1 : 0;
        out.label[s] = sample < group.count ? S(group.labels[sample]) : S(-1);
      }
      rows_to_lanes<S>(group.images + g * lane_count * image_pixels, image_pixels, model_.input(g));
      model_.forward(parameters, g);
      loss += out.loss();
    }
    return loss;
  }

  Model model_;
};

// The network of model `kind` with offsets `layers`, allocated with new.
template <class S>
NetworkKernels<S>* make_network(ModelKind kind, const LayerOffsets* layers) {
  switch (kind) {
    case ModelKind::cnn:
      return new ModelNetwork<S, Cnn<S>>(layers);
    case ModelKind::mlp:
      return new ModelNetwork<S, Mlp<S>>(layers);
    case ModelKind::logreg:
      return new ModelNetwork<S, Logreg<S>>(layers);
  }
  return nullptr;
}

// kernels.hpp's normalize_pixels in this build: a loop the compiler
// vectorises (bytes widened and converted a register at a time), not a
// table lookup, which costs a scalar load per byte (docs/benchmarks.md).
// normalize_pixel's formula is written again here, not called: a call per
// byte would not vectorise, and an inline copy shared with the baseline
// code is what lanes.hpp forbids. tests/hogwild/reference_test.cpp holds
// the two to the same bits on every build.
void normalize_pixels(const std::uint8_t* pixels, std::size_t count, float* out) {
  for (std::size_t i = 0; i < count; ++i) out[i] = (static_cast<float>(pixels[i]) / 255.0f - pixel_mean) / pixel_std;
}

}  // namespace

extern const KernelSet kernel_set;
constinit const KernelSet kernel_set{Isa::MPTRAIN_KERNEL_ISA, make_network<float>, make_network<double>,
                                     normalize_pixels};

}  // namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE
