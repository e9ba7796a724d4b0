// The kernel builds of an x86-64 binary: AVX-512, AVX2 + FMA and the SSE2
// baseline (hogwild/CMakeLists.txt builds all three).
#include <array>

#include "hogwild/kernel_set.hpp"

namespace mptrain::hogwild {

namespace kernels_avx512 {
extern const KernelSet kernel_set;
}
namespace kernels_avx2 {
extern const KernelSet kernel_set;
}
namespace kernels_sse2 {
extern const KernelSet kernel_set;
}

namespace {
constexpr std::array<const KernelSet*, 3> sets = {&kernels_avx512::kernel_set, &kernels_avx2::kernel_set,
                                                  &kernels_sse2::kernel_set};
constexpr std::array<Isa, 3> isas = {Isa::avx512, Isa::avx2, Isa::sse2};
}  // namespace

std::span<const KernelSet* const> kernel_sets() { return sets; }

std::span<const Isa> built_isas() { return isas; }

}  // namespace mptrain::hogwild
