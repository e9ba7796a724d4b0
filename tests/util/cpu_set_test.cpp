#include "util/cpu_set.hpp"

#include <catch2/catch.hpp>

using mptrain::CpuSet;

TEST_CASE("a CPU list string parses into its CPUs", "[util]") {
  auto set = CpuSet::parse("0-3,8,10-11\n");
  REQUIRE(set.ok());
  CHECK(set->cpus() == std::vector<int>{0, 1, 2, 3, 8, 10, 11});
  CHECK(set->to_string() == "0-3,8,10-11");
}

TEST_CASE("an empty CPU list is the empty set", "[util]") {
  auto set = CpuSet::parse(" \n");
  REQUIRE(set.ok());
  CHECK(set->empty());
  CHECK(set->to_string().empty());
}

TEST_CASE("a malformed CPU list is an error naming the bad part", "[util]") {
  for (const char* bad : {"a", "1-", "3-1", "1,,2", "-1", "0-x"}) {
    auto set = CpuSet::parse(bad);
    REQUIRE_FALSE(set.ok());
    CHECK(set.error().message.find("CPU list") != std::string::npos);
  }
}

TEST_CASE("set operations keep the order and drop duplicates", "[util]") {
  const CpuSet a({3, 1, 2, 2});
  const CpuSet b = CpuSet::range(2, 5);
  CHECK(a.to_string() == "1-3");
  CHECK(a.intersect(b).to_string() == "2-3");
  CHECK(a.unite(b).to_string() == "1-5");
  CHECK(b.minus(a).to_string() == "4-5");
  CHECK(b.first(2).to_string() == "2-3");
  CHECK(b.contains(5));
  CHECK_FALSE(b.contains(1));
}

TEST_CASE("a CPU number beyond Linux's largest is refused, naming the limit", "[util]") {
  CHECK(CpuSet::parse("8191").ok());
  auto beyond = CpuSet::parse("0-4294967295");
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().message.find("beyond 8191") != std::string::npos);
  CHECK_FALSE(CpuSet::parse("8192").ok());
}
