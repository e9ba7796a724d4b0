// The slices of a worker's CPUs for its working children, and the
// variables that tell the placement library about them (pure).
#include "procmgr/tree_placement.hpp"

#include <catch2/catch.hpp>
#include <cstdint>

#include "tests/procmgr/helpers.hpp"

using namespace mptrain;
using namespace mptrain::procmgr;
using namespace mptrain::procmgr::testing;

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

TEST_CASE(
    "the library's variables: the worker's CPUs, pool, table and launcher, and with slices their list and threads",
    "[procmgr]") {
  TreePlacement plain;
  plain.cpus = cpus("0-3");
  plain.threads = 4;
  plain.table = "/proc/1/fd/3";
  plain.launcher = 1;
  CHECK(tree_placement_environment(plain) == std::vector<std::string>{"MPTRAIN_PLACE_CPUS=0-3", "MPTRAIN_PLACE_POOL=4",
                                                                      "MPTRAIN_PLACE_TABLE=/proc/1/fd/3",
                                                                      "MPTRAIN_PLACE_LAUNCHER=1"});
  TreePlacement sliced = plain;
  sliced.slices = child_slices(cpus("0-3"), 4, 2);
  sliced.threads_per_child = 2;
  sliced.program_threads = ProgramThreads::keep;
  CHECK(tree_placement_environment(sliced) ==
        std::vector<std::string>{"MPTRAIN_PLACE_CPUS=0-3", "MPTRAIN_PLACE_POOL=4", "MPTRAIN_PLACE_TABLE=/proc/1/fd/3",
                                 "MPTRAIN_PLACE_LAUNCHER=1", "MPTRAIN_PLACE_KEEP=1", "MPTRAIN_PLACE_SLICES=0-1;2-3",
                                 "MPTRAIN_PLACE_THREADS=2"});
}

TEST_CASE("pools may exceed their CPUs only when the program keeps its counts or the plan oversubscribes",
          "[procmgr]") {
  CHECK_FALSE(pools_may_exceed_cpus(ProgramThreads::cap, false, 4, 2));
  CHECK(pools_may_exceed_cpus(ProgramThreads::keep, false, 4, 2));
  CHECK(pools_may_exceed_cpus(ProgramThreads::cap, true, 4, 0));
  CHECK(pools_may_exceed_cpus(ProgramThreads::cap, false, 1, 2));
}

TEST_CASE("a new tree table reads back empty, and its path opens it", "[procmgr]") {
  auto table = PlaceTable::create(2);
  REQUIRE(table.ok());
  CHECK(table->path().starts_with("/proc/"));
  auto processes = table->read();
  REQUIRE(processes.ok());
  CHECK(processes->empty());
}

namespace mptrain::procmgr {
namespace {

// A 64-bit ELF header with `count` program headers of `types`, headers right after the ELF header.
std::string elf_with(const std::vector<std::uint32_t>& types) {
  std::string elf(64 + 56 * types.size(), '\0');
  elf.replace(0, 4,
              "\x7f"
              "ELF");
  elf[4] = 2;                                 // 64-bit
  elf[5] = 1;                                 // little-endian
  elf[32] = 64;                               // e_phoff
  elf[54] = 56;                               // e_phentsize
  elf[56] = static_cast<char>(types.size());  // e_phnum
  for (std::size_t i = 0; i < types.size(); ++i) elf[64 + 56 * i] = static_cast<char>(types[i]);
  return elf;
}

}  // namespace

TEST_CASE("the placement library reaches dynamic programs and scripts, not static ones nor secure execs", "[procmgr]") {
  CHECK(preload_reach(elf_with({6, 3, 1}), false) == PreloadReach::reaches);  // PT_PHDR, PT_INTERP, PT_LOAD
  CHECK(preload_reach(elf_with({1, 1}), false) == PreloadReach::static_binary);
  CHECK(preload_reach("#!/bin/sh\necho hi\n", false) == PreloadReach::reaches);
  CHECK(preload_reach(elf_with({6, 3}), true) == PreloadReach::set_id);
  CHECK(preload_reach(elf_with({1}).substr(0, 66), false) == PreloadReach::reaches);  // too short to tell
}

TEST_CASE("a set-ID program runs in secure mode only when it changes who runs it", "[procmgr]") {
  CHECK(secure_exec(04755, 0, 0, 1000, 1000));            // set-user-ID root, run by a user
  CHECK_FALSE(secure_exec(04755, 0, 0, 0, 0));            // run by root: root stays root
  CHECK_FALSE(secure_exec(04755, 1000, 50, 1000, 1000));  // a user's own set-user-ID program
  CHECK(secure_exec(02755, 0, 42, 0, 0));                 // set-group-ID to a group root's gid is not
  CHECK_FALSE(secure_exec(02755, 0, 42, 1000, 42));       // ... already the runner's group
  CHECK_FALSE(secure_exec(02745, 0, 42, 1000, 1000));     // set-group-ID without group execute: no exec change
  CHECK_FALSE(secure_exec(0755, 0, 0, 1000, 1000));
}

TEST_CASE("this test binary is dynamically linked, and a missing file is taken as reachable", "[procmgr]") {
  CHECK(preload_reach_of_file("/proc/self/exe") == PreloadReach::reaches);
  CHECK(preload_reach_of_file("/nonexistent/program") == PreloadReach::reaches);
}

}  // namespace mptrain::procmgr
