// What an x86-64 CPU runs: its CPUID feature bits (GCC's
// __builtin_cpu_supports) and, for the AVX registers, whether the OS saves
// their state on a context switch (XCR0, read with xgetbv).
#include <cpuid.h>

#include <cstdint>

#include "hogwild/isa.hpp"

namespace mptrain::hogwild {

namespace {

// XCR0 bits: SSE (1) and AVX (2) state; AVX-512's opmask (5), ZMM_Hi256 (6) and Hi16_ZMM (7) state.
constexpr std::uint64_t avx_state = 0x06;
constexpr std::uint64_t avx512_state = 0xe6;

// The register state the OS has enabled (XCR0), or 0 when it has not enabled XSAVE.
std::uint64_t os_enabled_state() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & bit_OSXSAVE) == 0) return 0;
  std::uint32_t low = 0, high = 0;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (std::uint64_t{high} << 32) | low;
}

bool os_enables(std::uint64_t state) { return (os_enabled_state() & state) == state; }

// The flags hogwild/CMakeLists.txt builds the avx2 kernels with: AVX2 and FMA.
bool has_avx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && os_enables(avx_state); }

// The flags of the avx512 kernels: AVX-512 F, DQ, BW and VL, on top of AVX2 and FMA.
bool has_avx512() {
  return has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") && os_enables(avx512_state);
}

}  // namespace

bool cpu_supports(Isa isa) {
  __builtin_cpu_init();
  switch (isa) {
    case Isa::sse2:
      return true;  // part of x86-64 itself
    case Isa::avx2:
      return has_avx2();
    case Isa::avx512:
      return has_avx512();
    case Isa::generic:
    case Isa::native:
      return true;  // built for the compiler's own target: this binary runs at all only where that does
  }
  return false;
}

}  // namespace mptrain::hogwild
