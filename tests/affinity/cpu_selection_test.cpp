#include "affinity/cpu_selection.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "tests/affinity/helpers.hpp"

using namespace mptrain;
using namespace mptrain::affinity;
using namespace mptrain::affinity::testing;

namespace {

// Two packages of two NUMA nodes of four cores of two PUs: PUs 0-31, OS index = logical index.
constexpr const char* two_by_two = "package:2 numa:2 core:4 pu:2";
// Two packages of two cores of two PUs whose OS indexes interleave, as on
// many two-socket x86 machines (core L#1 holds P#1 and P#5).
constexpr const char* interleaved = "package:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)";
// One package, two L3 caches of two L2 caches of two cores of two PUs.
constexpr const char* caches = "package:1 l3:2 l2:2 core:2 pu:2";

// The OS indexes `text` selects on `description`, as a list string.
std::string cpus_of(const std::string& description, const std::string& text) {
  auto selection = parse_cpu_selection(text);
  INFO(text << ": " << (selection.ok() ? std::string() : selection.error().message));
  REQUIRE(selection.ok());
  auto cpus = resolve_cpu_selection(*selection, topology_of(description));
  INFO(text << ": " << (cpus.ok() ? std::string() : cpus.error().message));
  REQUIRE(cpus.ok());
  return cpus->to_string();
}

// The error resolving `text` on `description` gives.
std::string resolve_error(const std::string& description, const std::string& text) {
  auto selection = parse_cpu_selection(text);
  REQUIRE(selection.ok());
  auto cpus = resolve_cpu_selection(*selection, topology_of(description));
  REQUIRE_FALSE(cpus.ok());
  return cpus.error().message;
}

// The error parsing `text` gives.
std::string parse_error(const std::string& text) {
  auto selection = parse_cpu_selection(text);
  REQUIRE_FALSE(selection.ok());
  return selection.error().message;
}

}  // namespace

TEST_CASE("a kernel CPU list selects those CPUs without looking at the topology", "[affinity][cpus]") {
  CHECK(cpus_of(two_by_two, "0-3,8") == "0-3,8");
  CHECK(cpus_of(two_by_two, "0-15:2") == "0,2,4,6,8,10,12,14");
  CHECK(cpus_of(two_by_two, "0-15:2/4") == "0-1,4-5,8-9,12-13");
  auto selection = parse_cpu_selection("0-3 8");
  REQUIRE(selection.ok());
  CHECK(selection->locations.empty());
  CHECK(selection->cpus.to_string() == "0-3,8");
}

TEST_CASE("a location selects the PUs of the objects at its logical indexes", "[affinity][cpus]") {
  CHECK(cpus_of(two_by_two, "package:1") == "16-31");
  CHECK(cpus_of(two_by_two, "numa:1") == "8-15");
  CHECK(cpus_of(two_by_two, "numa:3") == "24-31");
  CHECK(cpus_of(two_by_two, "core:5") == "10-11");
  CHECK(cpus_of(two_by_two, "core:0-3") == "0-7");
  CHECK(cpus_of(two_by_two, "pu:0-3,8") == "0-3,8");
  CHECK(cpus_of(two_by_two, "machine:0") == "0-31");
}

TEST_CASE("location indexes take hwloc's forms: X-, X:N wrapping around, all, odd, even", "[affinity][cpus]") {
  CHECK(cpus_of(two_by_two, "core:14-") == "28-31");
  CHECK(cpus_of(two_by_two, "core:6:4") == "12-19");
  CHECK(cpus_of(two_by_two, "core:14:4") == "0-3,28-31");
  CHECK(cpus_of(two_by_two, "core:7:100") == "0-31");
  CHECK(cpus_of(two_by_two, "numa:all") == "0-31");
  CHECK(cpus_of(two_by_two, "core:odd") == "2-3,6-7,10-11,14-15,18-19,22-23,26-27,30-31");
  CHECK(cpus_of(two_by_two, "pu:even") == "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30");
}

TEST_CASE("type names follow hwloc's, in any case, socket meaning package", "[affinity][cpus]") {
  CHECK(cpus_of(two_by_two, "socket:1") == "16-31");
  CHECK(cpus_of(two_by_two, "Package:1") == "16-31");
  CHECK(cpus_of(two_by_two, "NUMANode:2") == "16-23");
  CHECK(cpus_of(two_by_two, "node:2") == "16-23");
  CHECK(cpus_of(two_by_two, "CORE:0") == "0-1");
  CHECK(cpus_of(caches, "L3Cache:1") == "8-15");
}

TEST_CASE("a later step counts inside each object the step before chose", "[affinity][cpus]") {
  CHECK(cpus_of(two_by_two, "core:0-1.pu:0") == "0,2");
  CHECK(cpus_of(two_by_two, "core:0-1.pu:1") == "1,3");
  CHECK(cpus_of(two_by_two, "package:1.core:1") == "18-19");
  CHECK(cpus_of(two_by_two, "package:1.numa:1.core:0-1") == "24-27");
  CHECK(cpus_of(two_by_two, "package:all.core:0") == "0-1,16-17");
  CHECK(cpus_of(two_by_two, "package:1.pu:odd") == "17,19,21,23,25,27,29,31");
}

TEST_CASE("cache levels select the PUs under each cache", "[affinity][cpus]") {
  CHECK(cpus_of(caches, "l3:1") == "8-15");
  CHECK(cpus_of(caches, "l2:3") == "12-15");
  CHECK(cpus_of(caches, "l3:1.l2:1") == "12-15");
  CHECK(cpus_of(caches, "l2:0-1.core:1") == "2-3,6-7");
  CHECK(cpus_of("package:1 l2:2 l1:2 core:1 pu:2", "l1:3") == "6-7");
}

TEST_CASE("locations resolve to OS indexes, not logical ones", "[affinity][cpus]") {
  CHECK(cpus_of(interleaved, "core:1") == "1,5");
  CHECK(cpus_of(interleaved, "package:1") == "2-3,6-7");
  CHECK(cpus_of(interleaved, "core:all.pu:0") == "0-3");
  CHECK(cpus_of(interleaved, "pu:1") == "4");
  // A kernel list is OS indexes already.
  CHECK(cpus_of(interleaved, "1") == "1");
}

TEST_CASE("words separated by spaces are united, lists and locations alike", "[affinity][cpus]") {
  CHECK(cpus_of(two_by_two, "numa:0 core:7") == "0-7,14-15");
  CHECK(cpus_of(two_by_two, "  core:0\tcore:15 ") == "0-1,30-31");
  CHECK(cpus_of(two_by_two, "0-3 core:7") == "0-3,14-15");
  CHECK(cpus_of(two_by_two, "numa:0 numa:0") == "0-7");
}

TEST_CASE("an index beyond the objects that exist names what exists", "[affinity][cpus]") {
  CHECK(resolve_error(two_by_two, "numa:4") ==
        "numa:4: the topology (synthetic: package:2 numa:2 core:4 pu:2) has NUMA nodes 0-3");
  CHECK(resolve_error(two_by_two, "core:14-20").find("has cores 0-15") != std::string::npos);
  CHECK(resolve_error(two_by_two, "core:16-").find("has cores 0-15") != std::string::npos);
  CHECK(resolve_error(two_by_two, "core:16:2").find("has cores 0-15") != std::string::npos);
  CHECK(resolve_error(two_by_two, "machine:1").find("has machine 0") != std::string::npos);
  CHECK(resolve_error(two_by_two, "package:1.core:8") == "package:1.core:8: package 1 has cores 0-7");
  CHECK(resolve_error(two_by_two, "core:3.pu:2") == "core:3.pu:2: core 3 has PUs 0-1");
}

TEST_CASE("a level the topology lacks, or a step that goes up, is an error", "[affinity][cpus]") {
  CHECK(resolve_error(two_by_two, "l3:0")
            .find("l3:0: the topology (synthetic: package:2 numa:2 core:4 pu:2) has "
                  "no L3 cache") != std::string::npos);
  CHECK(resolve_error(two_by_two, "core:0.numa:0") == "core:0.numa:0: core 0 contains no NUMA node");
  CHECK(resolve_error(two_by_two, "core:2.package:0") == "core:2.package:0: core 2 contains no package");
}

TEST_CASE("a location that names objects but no PU is an error", "[affinity][cpus]") {
  CHECK(resolve_error("package:1 core:1 pu:1", "pu:odd").find("pu:odd names no PU") != std::string::npos);
}

TEST_CASE("malformed words are errors naming the word and the form expected", "[affinity][cpus]") {
  CHECK(parse_error("").find("no CPUs given") != std::string::npos);
  CHECK(parse_error("  ").find("no CPUs given") != std::string::npos);
  CHECK(parse_error("cpu:0").find("unknown object type 'cpu'") != std::string::npos);
  CHECK(parse_error("cpu:0").find("use pu, core, l1, l2, l3, numa, package (or socket) or machine") !=
        std::string::npos);
  CHECK(parse_error("core:").find("bad index '' in 'core:'") != std::string::npos);
  CHECK(parse_error("core:x").find("bad index 'x'") != std::string::npos);
  CHECK(parse_error("core:3-1").find("bad index '3-1'") != std::string::npos);
  CHECK(parse_error("core:0-3:2").find("bad index '0-3:2'") != std::string::npos);
  CHECK(parse_error("core:2:0").find("bad index '2:0'") != std::string::npos);
  CHECK(parse_error("core:-1").find("bad index '-1'") != std::string::npos);
  CHECK(parse_error("core:1,,2").find("bad index ''") != std::string::npos);
  CHECK(parse_error("core:99999").find("bad index '99999'") != std::string::npos);
  CHECK(parse_error("core:0.").find("empty step") != std::string::npos);
  CHECK(parse_error("core:0.pu").find("'pu' in 'core:0.pu' has no indexes") != std::string::npos);
  CHECK(parse_error(":0").find("stride without a range") != std::string::npos);
}

TEST_CASE("a CPU list and a location in one word are refused with the spaced form", "[affinity][cpus]") {
  CHECK(parse_error("0-3,core:4").find("mixes a CPU list and a location") != std::string::npos);
  CHECK(parse_error("0-3,core:4").find("separate them with a space: \"0-3 core:4\"") != std::string::npos);
  CHECK(parse_error("8,0-3,numa:1,2").find("\"8,0-3 numa:1,2\"") != std::string::npos);
}

TEST_CASE("a word that is neither a list nor a location says how a location is written", "[affinity][cpus]") {
  const std::string message = parse_error("zero");
  CHECK(message.find("bad CPU number 'zero'") != std::string::npos);
  CHECK(message.find("TYPE:INDEXES") != std::string::npos);
  CHECK(parse_error("core").find("such as core:0-3") != std::string::npos);
}

TEST_CASE("object type names parse and print in the short form", "[affinity][cpus]") {
  CHECK(*parse_object_type("socket") == ObjectType::package);
  CHECK(*parse_object_type("L2") == ObjectType::l2);
  CHECK(to_string(ObjectType::numa) == "numa");
  CHECK(to_string(ObjectType::package) == "package");
  CHECK_FALSE(parse_object_type("group").ok());
}
