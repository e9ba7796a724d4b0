// The models' forward and backward passes over a group of up to 16
// samples, run by the kernels this CPU runs best (hogwild/isa.hpp: built
// per instruction set, chosen at start-up, MPTRAIN_ISA forces one).
// Templated on the scalar: float for training, double for the gradient
// checks in the tests. Not thread-safe: one Network per thread
// (normalize_pixels, which keeps no state, runs on any thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "hogwild/isa.hpp"
#include "hogwild/model.hpp"

namespace mptrain::hogwild {

// Samples per group: the widest kernels' lane count (16 floats with
// AVX-512); narrower kernels take a group as several lane vectors
// (network.cpp checks that group_size is a multiple of lane_count).
inline constexpr int group_size = 16;

// One group's input.
template <class S>
struct Group {
  const S* images = nullptr;    // group_size × image_pixels, normalised, row-major; rows >= count are zero
  const int* labels = nullptr;  // `count` labels 0–9
  int count = 0;                // samples in the group (1–16)
  // Per sample, the key its dropout masks are drawn from; nullptr disables
  // dropout (evaluation, or a model without dropout).
  const std::uint64_t* dropout_keys = nullptr;
  S loss_scale = 1;  // every gradient is multiplied by this (1 / batch size gives the mean loss)
  // Training only; nullptr: nothing. Called with `head_context` once the
  // group is done with the layers after the conv front (the cnn's fc1 and
  // fc2; every layer of the other models): their gradients are all added,
  // and the rest of its backward neither reads their parameters nor adds
  // to their gradients.
  void (*head_done)(void* context) = nullptr;
  void* head_context = nullptr;
};

template <class S>
class NetworkKernels;

// A model's computation with its own reusable buffers.
template <class S>
class Network {
 public:
  // The model `kind` on the kernels isa_choice() picked; throws a Failure
  // (exit code 2) when MPTRAIN_ISA names kernels this process cannot use.
  explicit Network(ModelKind kind);
  // The model `kind` on the kernels built for `isa`; throws a Failure
  // (exit code 2) when this binary lacks them or this CPU cannot run them.
  Network(ModelKind kind, Isa isa);
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

  // The instruction set whose kernels this network runs.
  Isa isa() const;

 private:
  ModelLayout layout_;
  Isa isa_;
  std::unique_ptr<NetworkKernels<S>> kernels_;
  std::int64_t flops_done_ = 0;  // by train_group
};

// The peer's normalisation: MNIST's pixel mean and standard deviation, as PyTorch's example uses.
inline constexpr float pixel_mean = 0.1307f;
inline constexpr float pixel_std = 0.3081f;

// Normalises a pixel byte as the peer does: (x / 255 − pixel_mean) / pixel_std.
float normalize_pixel(std::uint8_t pixel);

// Writes normalize_pixel of each of the `count` bytes at `pixels` to `out`,
// in a loop vectorised by the kernel build of `isa` (isa_choice()'s
// without it; a Failure, exit code 2, as Network's constructors throw).
// The same bits as normalize_pixel on every build: a division, a
// subtraction and a division, each correctly rounded.
void normalize_pixels(const std::uint8_t* pixels, std::size_t count, float* out);
void normalize_pixels(Isa isa, const std::uint8_t* pixels, std::size_t count, float* out);

extern template class Network<float>;
extern template class Network<double>;

}  // namespace mptrain::hogwild
