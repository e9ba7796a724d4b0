// The kernel builds of a binary with one: MPTRAIN_NATIVE, another
// architecture than x86-64, or a compiler without the AVX-512 flags.
// MPTRAIN_KERNEL_ISA names it (native or generic).
#include <array>

#include "hogwild/kernel_set.hpp"

namespace mptrain::hogwild {

namespace kernels_single {
extern const KernelSet kernel_set;
}

namespace {
constexpr std::array<const KernelSet*, 1> sets = {&kernels_single::kernel_set};
constexpr std::array<Isa, 1> isas = {Isa::MPTRAIN_KERNEL_ISA};
}  // namespace

std::span<const KernelSet* const> kernel_sets() { return sets; }

std::span<const Isa> built_isas() { return isas; }

}  // namespace mptrain::hogwild
