#include "affinity/topology.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "util/fs.hpp"

using namespace mptrain;
using namespace mptrain::affinity;

TEST_CASE("a synthetic description gives packages, cores and PUs", "[affinity][topology]") {
  auto topology = load_synthetic_topology("package:2 core:8 pu:2");
  REQUIRE(topology.ok());
  CHECK(topology->packages == 2);
  CHECK(topology->numa_nodes == 2);  // one NUMA node per package, as a note says
  REQUIRE(topology->notes.size() == 1);
  CHECK(topology->notes[0].find("read as 'package:2 [numa] core:8 pu:2'") != std::string::npos);
  CHECK(topology->cores == 16);
  CHECK(topology->pus.size() == 32);
  CHECK(topology->pus[2].core == 1);
  CHECK(topology->pus[16].package == 1);
  CHECK(package_cpus(*topology, 1).to_string() == "16-31");
  CHECK(topology->source == "synthetic: package:2 core:8 pu:2");
}

TEST_CASE("synthetic NUMA nodes and L3 caches are recorded per PU", "[affinity][topology]") {
  auto topology = load_synthetic_topology("package:2 numa:2 l3:1 core:2 pu:2");
  REQUIRE(topology.ok());
  CHECK(topology->numa_nodes == 4);
  CHECK(topology->l3_caches == 4);
  CHECK(topology->pus[4].numa_node == 1);
  CHECK(topology->pus[4].l3 == 1);
  CHECK(numa_node_ids(*topology) == std::vector<int>{0, 1, 2, 3});
  CHECK(numa_node_cpus(*topology, 3).to_string() == "12-15");
}

TEST_CASE("each object type lists its objects' PUs in logical order", "[affinity][topology]") {
  auto topology = load_synthetic_topology("package:2 numa:2 l3:1 core:2 pu:2");
  REQUIRE(topology.ok());
  CHECK(objects_of(*topology, ObjectType::machine).size() == 1);
  CHECK(objects_of(*topology, ObjectType::machine)[0].to_string() == "0-15");
  CHECK(objects_of(*topology, ObjectType::package)[1].to_string() == "8-15");
  CHECK(objects_of(*topology, ObjectType::numa).size() == 4);
  CHECK(objects_of(*topology, ObjectType::numa)[3].to_string() == "12-15");
  CHECK(objects_of(*topology, ObjectType::l3)[2].to_string() == "8-11");
  CHECK(objects_of(*topology, ObjectType::l2).empty());
  CHECK(objects_of(*topology, ObjectType::core)[5].to_string() == "10-11");
  CHECK(objects_of(*topology, ObjectType::pu)[7].to_string() == "7");
}

TEST_CASE("an object's PUs are their OS indexes", "[affinity][topology]") {
  auto topology = load_synthetic_topology("package:2 core:2 pu:2(indexes=0,4,1,5,2,6,3,7)");
  REQUIRE(topology.ok());
  CHECK(objects_of(*topology, ObjectType::core)[1].to_string() == "1,5");
  CHECK(objects_of(*topology, ObjectType::package)[1].to_string() == "2-3,6-7");
  CHECK(objects_of(*topology, ObjectType::pu)[1].to_string() == "4");
}

TEST_CASE("a bad synthetic description is an error showing the accepted form", "[affinity][topology]") {
  auto topology = load_synthetic_topology("sockets:two");
  REQUIRE_FALSE(topology.ok());
  CHECK(topology.error().message.find("package:2 core:8 pu:2") != std::string::npos);
}

TEST_CASE("a level whose type starts with a digit is refused before hwloc reads it as a huge arity",
          "[affinity][topology]") {
  // hwloc would read "1111111111pu:2" as 1111111111 objects and spend minutes building them (found by fuzzing).
  auto topology = load_synthetic_topology("1111111111pu:2");
  REQUIRE_FALSE(topology.ok());
  CHECK(topology.error().message.find("bad synthetic topology") != std::string::npos);
  CHECK(load_synthetic_topology("package:2 pu:2").ok());
}

TEST_CASE("a synthetic PU numbered beyond the CPUs mptrain plans for is refused before hwloc sizes bitmaps by it",
          "[affinity][topology]") {
  // hwloc took 4.7 GB and 8 s, or crashed under a 1 GiB limit, on this one.
  auto topology = load_synthetic_topology("pu:2(indexes=0,4294967295)");
  REQUIRE_FALSE(topology.ok());
  CHECK(topology.error().message.find("numbers a PU 4294967295, beyond the 8192 CPUs") != std::string::npos);
  CHECK(load_synthetic_topology("pu:2(indexes=1,0)").ok());
}

// `file` of tests/data/affinity with its first `from` replaced by `to`.
std::string edited_fixture(const std::string& file, const std::string& from, const std::string& to) {
  auto xml = read_file(std::string(MPTRAIN_TEST_DATA) + "/affinity/" + file);
  REQUIRE(xml.ok());
  const auto at = xml->find(from);
  REQUIRE(at != std::string::npos);
  return xml->replace(at, from.size(), to);
}

TEST_CASE("a recorded PU numbered beyond the CPUs mptrain plans for is refused, never planned as negative",
          "[affinity][topology]") {
  const auto xml = edited_fixture("two-sockets.xml", R"(type="PU" os_index="0")", R"(type="PU" os_index="4000000000")");
  auto topology = load_xml_topology(xml, "big-index.xml");
  REQUIRE_FALSE(topology.ok());
  CHECK(topology.error().message.find("a PU numbered 4000000000, beyond the 8192 CPUs") != std::string::npos);
}

TEST_CASE("a recorded cache size no cache has is unknown, never a negative size", "[affinity][topology]") {
  const auto xml =
      edited_fixture("hybrid-client.xml", R"(cache_size="26214400")", R"(cache_size="9223372036854775808")");
  auto topology = load_xml_topology(xml, "big-l3.xml");
  REQUIRE(topology.ok());
  for (const auto& level : topology->caches) {
    for (const auto& cache : level.caches) CHECK(cache.size_bytes >= 0);
  }
}

TEST_CASE("an hwloc XML file gives the machine it records", "[affinity][topology]") {
  auto xml = read_file(std::string(MPTRAIN_TEST_DATA) + "/affinity/two-sockets.xml");
  REQUIRE(xml.ok());
  auto topology = load_xml_topology(*xml, "two-sockets.xml");
  REQUIRE(topology.ok());
  CHECK(topology->packages == 2);
  CHECK(topology->pus.size() == 32);
  CHECK(topology->source == "xml: two-sockets.xml");
}

TEST_CASE("a file that is not hwloc XML is an error", "[affinity][topology]") {
  auto xml = read_file(std::string(MPTRAIN_TEST_DATA) + "/affinity/broken.xml");
  REQUIRE(xml.ok());
  auto topology = load_xml_topology(*xml, "broken.xml");
  REQUIRE_FALSE(topology.ok());
  CHECK(topology.error().message.find("broken.xml") != std::string::npos);
}

TEST_CASE("this machine's topology has every online PU", "[affinity][topology]") {
  auto topology = load_live_topology();
  REQUIRE(topology.ok());
  CHECK(topology->packages >= 1);
  CHECK(topology->cores >= 1);
  CHECK(static_cast<int>(topology->pus.size()) >= topology->cores);
  CHECK(topology->source == "this machine");
}
