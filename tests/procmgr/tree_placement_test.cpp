// The slices of a worker's CPUs for its working children, and the
// variables that tell the placement library about them (pure).
#include "procmgr/tree_placement.hpp"

#include <catch2/catch.hpp>

using namespace mptrain;
using namespace mptrain::procmgr;

namespace {
CpuSet cpus(const char* text) { return CpuSet::parse(text).value(); }
}  // namespace

TEST_CASE("each working child gets floor(T/K) threads, at least one", "[procmgr]") {
  CHECK(child_threads(8, 2) == 4);
  CHECK(child_threads(7, 2) == 3);
  CHECK(child_threads(2, 4) == 1);
  CHECK(child_threads(6, 0) == 6);  // no --children: the worker's own T
}

TEST_CASE("slices are consecutive runs of the worker's CPUs in the set's order", "[procmgr]") {
  const auto slices = child_slices(cpus("4-7,12-15"), 8, 4);
  REQUIRE(slices.size() == 4);
  CHECK(slices[0] == cpus("4-5"));
  CHECK(slices[1] == cpus("6-7"));
  CHECK(slices[2] == cpus("12-13"));
  CHECK(slices[3] == cpus("14-15"));
  CHECK(slices_text(slices) == "4-5;6-7;12-13;14-15");
  // T below the set (--reserve): slices of floor(T/K) from the start, the rest unused.
  CHECK(slices_text(child_slices(cpus("0-7"), 6, 2)) == "0-2;3-5");
}

TEST_CASE("more children than CPUs (--allow-oversubscribe): slices wrap around and share CPUs", "[procmgr]") {
  CHECK(slices_text(child_slices(cpus("0-1"), 4, 2)) == "0-1;0-1");
  CHECK(slices_text(child_slices(cpus("0-1"), 2, 3)) == "0;1;0");
}

TEST_CASE("no slices without children or without CPUs", "[procmgr]") {
  CHECK(child_slices(cpus("0-3"), 4, 0).empty());
  CHECK(child_slices(CpuSet(), 4, 2).empty());
}

TEST_CASE("the library's variables: the worker's CPUs, and with slices their list, threads and table", "[procmgr]") {
  CHECK(tree_placement_environment(cpus("0-3"), {}, 4, "") == std::vector<std::string>{"MPTRAIN_PLACE_CPUS=0-3"});
  CHECK(tree_placement_environment(cpus("0-3"), child_slices(cpus("0-3"), 4, 2), 2, "/proc/1/fd/3") ==
        std::vector<std::string>{"MPTRAIN_PLACE_CPUS=0-3", "MPTRAIN_PLACE_SLICES=0-1;2-3", "MPTRAIN_PLACE_THREADS=2",
                                 "MPTRAIN_PLACE_TABLE=/proc/1/fd/3"});
}
