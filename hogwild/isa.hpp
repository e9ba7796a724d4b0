// The instruction sets the kernels are built for, which of them this CPU
// runs, and which one a process uses: the best it runs, unless the
// environment variable MPTRAIN_ISA forces one (for tests and benchmarks).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace mptrain::hogwild {

// One build of the kernels: per x86-64 instruction set, or the single build
// of a binary that has only one (`native` for an MPTRAIN_NATIVE build,
// `generic` elsewhere: another architecture, or a compiler that cannot
// keep per-set builds apart).
enum class Isa { sse2, avx2, avx512, generic, native };

// "sse2", "avx2", "avx512", "generic" or "native".
std::string_view to_string(Isa isa);

// The kernel builds linked into this binary, best first.
std::span<const Isa> built_isas();

// Whether this CPU, and its OS for the wider registers' state, can run kernels built for `isa`.
bool cpu_supports(Isa isa);

// The builds of this binary this CPU runs, best first (never empty: the baseline always runs).
std::vector<Isa> runnable_isas();

// The kernels to use given MPTRAIN_ISA's value `requested` (empty when
// unset): the first of `runnable` when empty, the build it names when that
// build is in `runnable`; an Error saying what to set otherwise (a name that
// is not in `built`, or a build this CPU cannot run).
Result<Isa> choose_isa(std::string_view requested, std::span<const Isa> built, std::span<const Isa> runnable);

// How the kernels of this process were chosen.
struct IsaChoice {
  Isa isa = Isa::sse2;        // the build every Network of this process runs
  bool forced = false;        // named by MPTRAIN_ISA rather than picked as the best
  std::vector<Isa> runnable;  // the builds this CPU runs, best first
};

// choose_isa for this binary, this CPU and MPTRAIN_ISA, decided once per
// process; the Error when MPTRAIN_ISA names a build it cannot use.
const Result<IsaChoice>& isa_choice();

// "avx512 (this CPU runs avx512, avx2, sse2)", with "; forced by MPTRAIN_ISA" when forced.
std::string describe(const IsaChoice& choice);

}  // namespace mptrain::hogwild
