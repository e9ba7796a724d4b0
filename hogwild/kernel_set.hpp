// The seam between the dispatching Network (kernels.hpp) and the builds of
// the kernels, one per instruction set (internal to hogwild/). Each build
// compiles conv.cpp and network.cpp with its own flags into its own
// namespace (hogwild/CMakeLists.txt), and shares no code with the others:
// nothing here is defined inline, so no build emits a copy of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "hogwild/isa.hpp"
#include "hogwild/kernels.hpp"
#include "hogwild/model.hpp"

namespace mptrain::hogwild {

// Each sample's two dropout draws, made from its key by the caller: the
// kernels draw no random numbers (the cnn masks conv2's channels with the
// first and fc1's units with the second, one bit per channel or unit).
struct DropoutDraws {
  std::uint64_t draws[group_size][2];
};

// The work of the last train_group that the FLOP count depends on: the
// cnn's conv2 channels the forward computed and pooling winners with a
// gradient, over the group's samples (0 for the dense models).
struct GroupWork {
  std::int64_t kept_channels = 0;
  std::int64_t gradient_winners = 0;
};

// One model's passes in one build of the kernels, as Network<S>'s
// functions; `draws` is null without dropout.
template <class S>
class NetworkKernels {
 public:
  virtual ~NetworkKernels();
  virtual S train_group(const S* parameters, const Group<S>& group, const DropoutDraws* draws, S* gradient) = 0;
  virtual S loss(const S* parameters, const Group<S>& group, const DropoutDraws* draws) = 0;
  virtual S evaluate_group(const S* parameters, const Group<S>& group, S* log_probs) = 0;
  virtual GroupWork last_work() const = 0;

 protected:
  NetworkKernels();
};

extern template class NetworkKernels<float>;
extern template class NetworkKernels<double>;

// What one build of the kernels offers: its instruction set, its
// networks of model `kind` with the layer offsets `layers` (model_layout's,
// one per layer), allocated with new for the caller to own, and its
// normalize_pixels (kernels.hpp).
struct KernelSet {
  Isa isa;
  NetworkKernels<float>* (*make_float)(ModelKind kind, const LayerOffsets* layers);
  NetworkKernels<double>* (*make_double)(ModelKind kind, const LayerOffsets* layers);
  void (*normalize_pixels)(const std::uint8_t* pixels, std::size_t count, float* out);
};

// The builds of the kernels linked into this binary, best first.
std::span<const KernelSet* const> kernel_sets();

}  // namespace mptrain::hogwild
