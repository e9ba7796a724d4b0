// One build of the kernels behind the seam of kernel_set.hpp. CMake
// compiles this file with conv.cpp and network.cpp once per instruction
// set, defining MPTRAIN_KERNEL_ISA (the Isa enumerator) and
// MPTRAIN_KERNEL_NAMESPACE (where that build's code lives); its KernelSet
// is the only name the rest of the program sees. Nothing here runs before
// the dispatcher has chosen this build: the set is constant-initialised.
#include "hogwild/kernel_set.hpp"
#include "hogwild/lanes.hpp"
#include "hogwild/network.hpp"

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE {

namespace {

static_assert(group_size % lane_count == 0, "a group is a whole number of the kernels' lane vectors");

// This build's Network behind the NetworkKernels interface.
template <class S>
class Kernels final : public NetworkKernels<S> {
 public:
  explicit Kernels(ModelKind kind) : network_(kind) {}
  S train_group(const S* parameters, const Group<S>& group, S* gradient) override {
    return network_.train_group(parameters, group, gradient);
  }
  S loss(const S* parameters, const Group<S>& group) override { return network_.loss(parameters, group); }
  S evaluate_group(const S* parameters, const Group<S>& group, S* log_probs) override {
    return network_.evaluate_group(parameters, group, log_probs);
  }
  std::int64_t flops_done() const override { return network_.flops_done(); }

 private:
  Network<S> network_;
};

template <class S>
std::unique_ptr<NetworkKernels<S>> make_kernels(ModelKind kind) {
  return std::make_unique<Kernels<S>>(kind);
}

}  // namespace

extern const KernelSet kernel_set;
constinit const KernelSet kernel_set{Isa::MPTRAIN_KERNEL_ISA, make_kernels<float>, make_kernels<double>};

}  // namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE
