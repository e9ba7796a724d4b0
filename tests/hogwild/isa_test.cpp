// Which kernel build a process uses: the best this CPU runs, or the one
// MPTRAIN_ISA names when this CPU runs it (choose_isa is pure).
#include "hogwild/isa.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "hogwild/kernels.hpp"
#include "util/failure.hpp"

using namespace mptrain::hogwild;

namespace {
const std::vector<Isa> x86_builds = {Isa::avx512, Isa::avx2, Isa::sse2};
const std::vector<Isa> avx2_cpu = {Isa::avx2, Isa::sse2};
}  // namespace

TEST_CASE("without MPTRAIN_ISA the best build this CPU runs is chosen", "[hogwild]") {
  CHECK(choose_isa("", x86_builds, avx2_cpu).value() == Isa::avx2);
  CHECK(choose_isa("", x86_builds, x86_builds).value() == Isa::avx512);
}

TEST_CASE("MPTRAIN_ISA forces a build this CPU runs", "[hogwild]") {
  CHECK(choose_isa("sse2", x86_builds, avx2_cpu).value() == Isa::sse2);
  CHECK(choose_isa("avx2", x86_builds, x86_builds).value() == Isa::avx2);
}

TEST_CASE("MPTRAIN_ISA naming a build this CPU cannot run is an error naming the ones it can", "[hogwild]") {
  const auto chosen = choose_isa("avx512", x86_builds, avx2_cpu);
  REQUIRE_FALSE(chosen.ok());
  CHECK(chosen.error().message ==
        "MPTRAIN_ISA=avx512: this CPU cannot run the avx512 kernels; set MPTRAIN_ISA to avx2 or sse2, or unset it "
        "for the best one");
}

TEST_CASE("MPTRAIN_ISA naming no build of this binary is an error listing the builds", "[hogwild]") {
  const auto chosen = choose_isa("AVX2", x86_builds, avx2_cpu);
  REQUIRE_FALSE(chosen.ok());
  CHECK(chosen.error().message ==
        "MPTRAIN_ISA=AVX2 names no kernel build of this binary; set it to avx512, avx2 or sse2, or unset it for the "
        "best one this CPU runs");
}

TEST_CASE("the builds this CPU runs end with the baseline, which it always runs", "[hogwild]") {
  const auto runnable = runnable_isas();
  REQUIRE_FALSE(runnable.empty());
  CHECK(runnable.back() == built_isas().back());
  CHECK(cpu_supports(built_isas().back()));
}

TEST_CASE(
    "a network or normalisation on kernels this binary lacks or this CPU cannot run is refused with a usage failure",
    "[hogwild]") {
  const auto runnable = runnable_isas();
  for (Isa isa : {Isa::sse2, Isa::avx2, Isa::avx512, Isa::generic, Isa::native}) {
    if (std::find(runnable.begin(), runnable.end(), isa) != runnable.end()) continue;
    INFO(to_string(isa));
    CHECK_THROWS_AS(Network<float>(ModelKind::cnn, isa), mptrain::Failure);
    const std::uint8_t pixel = 0;
    float value = 0;
    CHECK_THROWS_AS(normalize_pixels(isa, &pixel, 1, &value), mptrain::Failure);
  }
}

TEST_CASE("the kernel description names the build, what the CPU runs and whether it was forced", "[hogwild]") {
  CHECK(describe(IsaChoice{Isa::avx2, false, avx2_cpu}) == "avx2 (this CPU runs avx2, sse2)");
  CHECK(describe(IsaChoice{Isa::sse2, true, avx2_cpu}) == "sse2 (this CPU runs avx2, sse2; forced by MPTRAIN_ISA)");
}
