// The seam between the dispatching Network (kernels.hpp) and the builds of
// the kernels, one per instruction set (internal to hogwild/). Each build
// compiles conv.cpp, network.cpp and kernel_entry.cpp with its own flags
// into its own namespace (hogwild/CMakeLists.txt), so no code compiled for
// a wider instruction set is shared with the others.
#pragma once

#include <memory>
#include <span>

#include "hogwild/isa.hpp"
#include "hogwild/kernels.hpp"
#include "hogwild/model.hpp"

namespace mptrain::hogwild {

// One model's passes in one build of the kernels; as Network<S>'s functions.
template <class S>
class NetworkKernels {
 public:
  virtual ~NetworkKernels() = default;
  virtual S train_group(const S* parameters, const Group<S>& group, S* gradient) = 0;
  virtual S loss(const S* parameters, const Group<S>& group) = 0;
  virtual S evaluate_group(const S* parameters, const Group<S>& group, S* log_probs) = 0;
  virtual std::int64_t flops_done() const = 0;
};

// What one build of the kernels offers: its instruction set and its networks.
struct KernelSet {
  Isa isa;
  std::unique_ptr<NetworkKernels<float>> (*make_float)(ModelKind kind);
  std::unique_ptr<NetworkKernels<double>> (*make_double)(ModelKind kind);
};

// The builds of the kernels linked into this binary, best first.
std::span<const KernelSet* const> kernel_sets();

}  // namespace mptrain::hogwild
