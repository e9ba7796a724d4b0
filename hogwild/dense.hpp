// Dense layers on lane vectors, one sample per lane (internal to hogwild/):
// the mlp, the logreg and the cnn's head are these functions in a row.
// Every loop adds in a fixed order (over inputs, then over the lanes'
// samples in lane order), so a result depends on the values only, never on
// where a buffer lies. Activations live in arrays of lane vectors rounded
// up to whole blocks of lane_count (padded(n)); the padding holds zeros,
// which the transposes of the weight gradients read.
#pragma once

#include "hogwild/lanes.hpp"
#include "hogwild/shapes.hpp"

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE::dense {

// `n` rounded up to a whole number of lane vectors' worth of lanes.
constexpr int padded(int n) { return (n + lane_count - 1) / lane_count * lane_count; }

// The largest divisor of `n` no greater than `cap`: a block of accumulators
// that tiles n exactly.
constexpr int block_of(int n, int cap) {
  for (int b = cap; b > 1; --b) {
    if (n % b == 0) return b;
  }
  return 1;
}

// Accumulators a kernel may keep in registers besides its operands (the
// rest of vector_registers holds the loaded inputs and weights).
inline constexpr int accumulator_cap = wide_register_file ? 20 : 13;
static_assert(accumulator_cap < vector_registers);

// The inputs and outputs of the widest dense layer (the mlp's fc1).
inline constexpr int widest_inputs = image_pixels;
inline constexpr int widest_outputs = mlp::hidden;
static_assert(cnn::features <= widest_inputs && cnn::hidden <= widest_outputs && class_count <= widest_outputs);

// A layer's rows, [lane][padded(inputs)], sized for the widest layer: each
// sample's input values for its weight gradient, or each sample's input
// gradient on its way back into lanes (sparse_input_gradient).
template <class S>
struct Rows {
  Buffer<S, lane_count * padded(widest_inputs)> x;
};

// Forward: out [outputs] = b + w [outputs][inputs] · x [inputs].
// `block` outputs accumulate together, each input vector loaded once per block.
template <class S, int inputs, int outputs>
void forward(const S* w, const S* b, const Lanes<S>* x, Lanes<S>* out) {
  using V = Lanes<S>;
  constexpr int block = block_of(outputs, 10);
  for (int o0 = 0; o0 < outputs; o0 += block) {
    V acc[block];
#pragma GCC unroll 10
    for (int k = 0; k < block; ++k) acc[k] = broadcast(b[o0 + k]);
    for (int i = 0; i < inputs; ++i) {
      const V in = x[i];
#pragma GCC unroll 10
      for (int k = 0; k < block; ++k) acc[k] += w[(o0 + k) * inputs + i] * in;
    }
#pragma GCC unroll 10
    for (int k = 0; k < block; ++k) out[o0 + k] = acc[k];
  }
}

// Input gradient: d_x [inputs] = wᵀ · g, g [outputs]; `block` inputs at a time.
template <class S, int inputs, int outputs>
void input_gradient(const S* w, const Lanes<S>* g, Lanes<S>* d_x) {
  using V = Lanes<S>;
  constexpr int block = block_of(inputs, vector_registers / 2);
  for (int i0 = 0; i0 < inputs; i0 += block) {
    V acc[block] = {};
    for (int o = 0; o < outputs; ++o) {
      const V go = g[o];
#pragma GCC unroll 16
      for (int k = 0; k < block; ++k) acc[k] += w[o * inputs + i0 + k] * go;
    }
#pragma GCC unroll 16
    for (int k = 0; k < block; ++k) d_x[i0 + k] = acc[k];
  }
}

// The non-zero terms of a sum over k in [0, n), in order: value(k) goes to
// values[live] and k to index[live] when it is not zero; returns how many.
// (Without a branch on the value: every term is written at the end, which
// moves past it only when it joins.)
template <class S, int n, class Value>
inline int nonzero_terms(Value value, S* values, int* index) {
  int live = 0;
  for (int k = 0; k < n; ++k) {
    const S v = value(k);
    values[live] = v;
    index[live] = k;
    live += v != 0 ? 1 : 0;
  }
  return live;
}

// The same d_x where most of g is zero (behind a relu and dropout): sample
// by sample, over only the outputs whose g is not zero, in output order,
// so about a quarter of input_gradient's FMAs (each sample's list of them
// made first); each sample's row then goes back into lanes through `rows`.
// A term 0 × w adds nothing to a sum that starts at +0, so for finite w the
// bits are input_gradient's.
template <class S, int inputs, int outputs>
void sparse_input_gradient(const S* w, const Lanes<S>* g, Lanes<S>* d_x, Rows<S>& rows) {
  static_assert(inputs % lane_count == 0 && inputs <= widest_inputs);
  using V = Lanes<S>;
  constexpr int input_vectors = inputs / lane_count;
  constexpr int block = block_of(input_vectors, accumulator_cap);
  S* d_rows = rows.x.data();
  S live_g[lane_count][outputs];
  int live_output[lane_count][outputs];
  int live[lane_count];
  for (int s = 0; s < lane_count; ++s) {
    live[s] = nonzero_terms<S, outputs>([&](int o) { return g[o][s]; }, live_g[s], live_output[s]);
  }
  for (int j0 = 0; j0 < input_vectors; j0 += block) {
    for (int s = 0; s < lane_count; ++s) {
      V acc[block];
#pragma GCC unroll 20
      for (int j = 0; j < block; ++j) acc[j] = V{};
      for (int k = 0; k < live[s]; ++k) {
        const V go = broadcast(live_g[s][k]);
        const S* row = w + live_output[s][k] * inputs + j0 * lane_count;
#pragma GCC unroll 20
        for (int j = 0; j < block; ++j) acc[j] += go * load_lanes<S>(row + j * lane_count);
      }
#pragma GCC unroll 20
      for (int j = 0; j < block; ++j) store_lanes<S>(d_rows + s * inputs + (j0 + j) * lane_count, acc[j]);
    }
  }
  rows_to_lanes<S>(d_rows, inputs, d_x);
}

// out[0 … n) += the first n values of the vectors `acc`.
template <class S, int n>
inline void add_to(S* out, const Lanes<S>* acc) {
  constexpr int full = n / lane_count;
  for (int v = 0; v < full; ++v) store_lanes<S>(out + v * lane_count, load_lanes<S>(out + v * lane_count) + acc[v]);
  if constexpr (n % lane_count != 0) {
    for (int j = 0; j < n % lane_count; ++j) out[full * lane_count + j] += acc[full][j];
  }
}

// Weight and bias gradients: gw [outputs][inputs] += Σ over the lanes of
// g[o] × x[i], gb [outputs] += Σ over the lanes of g[o]. The lanes of `x`
// (padded, zeros past the real units) are first transposed into each
// sample's own row, so a weight row's gradient is FMAs of whole vectors:
// `block` vectors of one row in accumulators, the samples in lane order.
// Only the samples whose g[o] is not zero are added (behind a relu and
// dropout, about a quarter of them): a term 0 × x adds nothing to a sum
// that starts at +0, so for finite x the bits are those of the full sum.
template <class S, int inputs, int outputs>
void weight_gradient(const Lanes<S>* x, const Lanes<S>* g, S* gw, S* gb, Rows<S>& rows) {
  static_assert(inputs <= widest_inputs && outputs <= widest_outputs);
  using V = Lanes<S>;
  constexpr int x_stride = padded(inputs);
  constexpr int input_vectors = x_stride / lane_count;
  constexpr int block = block_of(input_vectors, accumulator_cap);
  lanes_to_rows<S>(x, x_stride, rows.x.data());
  const S* x_rows = rows.x.data();
  for (int o = 0; o < outputs; ++o) {
    S bias_sum = 0;
    for (int s = 0; s < lane_count; ++s) bias_sum += g[o][s];
    gb[o] += bias_sum;
    S live_g[lane_count];
    int live_sample[lane_count];
    const int live = nonzero_terms<S, lane_count>([&](int s) { return g[o][s]; }, live_g, live_sample);
    if (live == 0) continue;  // adding +0 changes no gradient (one that starts at +0 is never −0)
    for (int j0 = 0; j0 < input_vectors; j0 += block) {
      V acc[block];
#pragma GCC unroll 20
      for (int j = 0; j < block; ++j) acc[j] = V{};  // (not `= {}`: GCC zeroed that through memory, by rep stos)
      for (int k = 0; k < live; ++k) {
        const V go = broadcast(live_g[k]);
        const S* in = x_rows + live_sample[k] * x_stride + j0 * lane_count;
#pragma GCC unroll 20
        for (int j = 0; j < block; ++j) acc[j] += go * load_lanes<S>(in + j * lane_count);
      }
      S* out = gw + o * inputs + j0 * lane_count;
      if (j0 + block < input_vectors || inputs % (block * lane_count) == 0) {
        add_to<S, block * lane_count>(out, acc);
      } else {
        add_to<S, inputs - (input_vectors - block) * lane_count>(out, acc);
      }
    }
  }
}

// relu in place on `n` vectors.
template <class S>
inline void relu(Lanes<S>* v, int n) {
  for (int i = 0; i < n; ++i) v[i] = v[i] > 0 ? v[i] : Lanes<S>{};
}

// relu's backward: g[i] = 0 where the layer's output `y` was not positive.
template <class S>
inline void relu_backward(const Lanes<S>* y, Lanes<S>* g, int n) {
  for (int i = 0; i < n; ++i) g[i] = y[i] > 0 ? g[i] : Lanes<S>{};
}

// e^x and ln x of a scalar, by the compiler's builtins (the C library's
// expf/exp and logf/log): <cmath>'s overloads would be inline functions
// outside this build's namespace.
inline float exp_of(float x) { return __builtin_expf(x); }
inline double exp_of(double x) { return __builtin_exp(x); }
inline float log_of(float x) { return __builtin_logf(x); }
inline double log_of(double x) { return __builtin_log(x); }

// e^x in every lane.
template <class S>
inline Lanes<S> exp_lanes(Lanes<S> x) {
  for (int s = 0; s < lane_count; ++s) x[s] = exp_of(x[s]);
  return x;
}

// The classifier's end for every lane: log-softmax of the logits `z`
// [class_count] into `log_probs`, and its NLL against `label` (one per
// lane; `live` 1 for the lanes that hold a sample, 0 past the group's count).
template <class S>
struct Classifier {
  using V = Lanes<S>;
  V z[padded(class_count)] = {};
  V log_probs[class_count] = {};
  V g[padded(class_count)] = {};  // the loss's gradient at the logits (zeros past class_count)
  V label{};
  V live{};

  // log_probs = z − max − log Σ e^(z − max), lane by lane.
  void log_softmax() {
    V top = z[0];
    for (int k = 1; k < class_count; ++k) top = z[k] > top ? z[k] : top;
    V sum{};
    for (int k = 0; k < class_count; ++k) sum += exp_lanes<S>(z[k] - top);
    V log_sum = sum;
    for (int s = 0; s < lane_count; ++s) log_sum[s] = log_of(sum[s]);
    for (int k = 0; k < class_count; ++k) log_probs[k] = z[k] - top - log_sum;
  }

  // The summed NLL of the live lanes.
  S loss() const {
    V picked{};
    for (int k = 0; k < class_count; ++k) picked += label == S(k) ? log_probs[k] : V{};
    S total = 0;
    for (int s = 0; s < lane_count; ++s) total -= live[s] != 0 ? picked[s] : S(0);
    return total;
  }

  // g = (softmax − one-hot(label)) × `scale` in the live lanes, 0 elsewhere.
  void loss_gradient(S scale) {
    for (int k = 0; k < class_count; ++k) {
      const V one_hot = label == S(k) ? broadcast(S(1)) : V{};
      g[k] = (exp_lanes<S>(log_probs[k]) - one_hot) * (live * scale);
    }
  }
};

}  // namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE::dense
