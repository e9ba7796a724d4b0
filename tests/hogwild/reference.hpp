// A plain scalar reference of the built-in models (as llm.c keeps a naive
// matmul beside the tuned one): each layer a forward and a backward
// function over plain arrays of double, one sample at a time, shapes in
// the comments. No lanes, no blocking, no skipped work: what the tuned
// kernels (hogwild/network.cpp, conv.cpp, dense.hpp) must agree with.
#pragma once

#include <cstdint>
#include <vector>

#include "hogwild/model.hpp"

namespace mptrain::hogwild::reference {

// conv2d, stride 1, no padding.
// in [C][H][W], w [O][C][K][K], b [O] → out [O][H−K+1][W−K+1].
void conv2d_forward(double* out, const double* in, const double* w, const double* b, int C, int H, int W, int O, int K);
// Adds d_w [O][C][K][K] and d_b [O] from d_out [O][H−K+1][W−K+1]; writes
// d_in [C][H][W] unless it is null.
void conv2d_backward(double* d_in, double* d_w, double* d_b, const double* d_out, const double* in, const double* w,
                     int C, int H, int W, int O, int K);

// maxpool 2×2, stride 2: in [C][H][W] → out [C][H/2][W/2]; winner [C][H/2][W/2]
// is the index in `in` of each window's maximum, the first in scan order on a tie.
void maxpool_forward(double* out, int* winner, const double* in, int C, int H, int W);
// d_in [C][H][W] = 0 but at each window's winner, which gets d_out's value.
void maxpool_backward(double* d_in, const double* d_out, const int* winner, int C, int H, int W);

// relu in place on x [n].
void relu_forward(double* x, int n);
// d [n] = 0 where relu's output y [n] was not positive.
void relu_backward(double* d, const double* y, int n);

// x [C][plane] × mask [C] (dropout and dropout2d: 0 or 2), in place; the backward is the same product.
void scale_forward(double* x, const double* mask, int C, int plane);

// linear: x [I], w [O][I], b [O] → out [O].
void linear_forward(double* out, const double* x, const double* w, const double* b, int I, int O);
// Adds d_w [O][I] and d_b [O] from d_out [O]; writes d_x [I] unless it is null.
void linear_backward(double* d_x, double* d_w, double* d_b, const double* d_out, const double* x, const double* w,
                     int I, int O);

// log-softmax of logits [n] into log_probs [n]; returns the NLL of `label`.
double log_softmax_nll_forward(double* log_probs, const double* logits, int label, int n);
// d_logits [n] = (softmax − one-hot(label)) × scale.
void log_softmax_nll_backward(double* d_logits, const double* log_probs, int label, double scale, int n);

// One group through a model, as Network::train_group runs it.
struct GroupInput {
  std::vector<double> images;       // count × 784
  std::vector<int> labels;          // count
  std::vector<std::uint64_t> keys;  // count dropout keys (cnn), or empty for no dropout
  double loss_scale = 1;
};

struct GroupOutput {
  double loss = 0;                // Σ of the samples' NLL
  std::vector<double> log_probs;  // count × 10
  std::vector<double> gradient;   // the layout's size: Σ over the samples of loss_scale × ∂NLL/∂parameters
};

// Forward and backward of `kind` at `parameters` over `input`.
GroupOutput train_group(ModelKind kind, const std::vector<double>& parameters, const GroupInput& input);

}  // namespace mptrain::hogwild::reference
