// Forward and backward passes of a model over a group of up to 16 samples
// (internal to hogwild/: the rest of the program uses kernels.hpp, which
// dispatches to one build of these per instruction set; each build lives in
// its own MPTRAIN_KERNEL_NAMESPACE, see kernel_entry.cpp).
// Templated on the scalar: float for training, double for the gradient
// checks in the tests. Not thread-safe: one Network per thread.
#pragma once

#include <cstdint>
#include <memory>

#include "hogwild/kernels.hpp"
#include "hogwild/lanes.hpp"
#include "hogwild/model.hpp"

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE {

// A model's computation with its own reusable buffers.
template <class S>
class Network {
 public:
  explicit Network(ModelKind kind);
  ~Network();
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Runs forward and backward on `group` with `parameters`, adds the scaled
  // gradient to `gradient` (same layout as the parameters) and returns the
  // sum of the samples' NLL losses.
  S train_group(const S* parameters, const Group<S>& group, S* gradient);

  // Runs forward only, with the group's dropout masks; returns the sum of the samples' NLL losses.
  S loss(const S* parameters, const Group<S>& group);

  // Runs forward only (no dropout); writes count × 10 log-probabilities to
  // `log_probs` when not null and returns the sum of the samples' NLL losses.
  S evaluate_group(const S* parameters, const Group<S>& group, S* log_probs);

  // The FLOPs train_group has performed so far, counted as hogwild/flops.hpp
  // counts them, less the work these kernels skip: the cnn's conv2 channels
  // that dropout2d removed and its conv2 pooling winners whose gradient is zero.
  std::int64_t flops_done() const;

  // The model's layout.
  const ModelLayout& layout() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

extern template class Network<float>;
extern template class Network<double>;

}  // namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE
