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

TEST_CASE("a strided range takes every S-th CPU from its first to its last", "[util]") {
  CHECK(CpuSet::parse("0-15:2")->to_string() == "0,2,4,6,8,10,12,14");
  CHECK(CpuSet::parse("1-15:4")->to_string() == "1,5,9,13");
  CHECK(CpuSet::parse("0-9:4")->to_string() == "0,4,8");
  CHECK(CpuSet::parse("3-3:5")->to_string() == "3");
  CHECK(CpuSet::parse("0-7:1")->to_string() == "0-7");
  CHECK(CpuSet::parse("0-3:2,8")->to_string() == "0,2,8");
}

TEST_CASE("a used/group stride takes the first USED CPUs of every GROUP, as the kernel does", "[util]") {
  CHECK(CpuSet::parse("0-15:2/4")->to_string() == "0-1,4-5,8-9,12-13");
  CHECK(CpuSet::parse("0-1023:2/256")->to_string() == "0-1,256-257,512-513,768-769");
  // The last group is cut at the range's end.
  CHECK(CpuSet::parse("0-9:3/4")->to_string() == "0-2,4-6,8-9");
  CHECK(CpuSet::parse("0-7:4/4")->to_string() == "0-7");
  CHECK(CpuSet::parse("2-13:1/3")->to_string() == "2,5,8,11");
}

TEST_CASE("a bad stride is an error saying what is wrong", "[util]") {
  const auto message = [](const char* text) {
    auto set = CpuSet::parse(text);
    REQUIRE_FALSE(set.ok());
    return set.error().message;
  };
  CHECK(message("0-15:0").find("bad stride '0'") != std::string::npos);
  CHECK(message("0-15:x").find("bad stride 'x'") != std::string::npos);
  CHECK(message("0-15:").find("bad stride ''") != std::string::npos);
  CHECK(message("0-15:-2").find("bad stride") != std::string::npos);
  CHECK(message("0-15:99999").find("from 1 to 8192") != std::string::npos);
  CHECK(message("0-15:3/2").find("takes 3 CPUs of every group of 2") != std::string::npos);
  CHECK(message("0-15:0/4").find("bad count of CPUs used per group '0'") != std::string::npos);
  CHECK(message("0-15:2/0").find("bad group size '0'") != std::string::npos);
  CHECK(message("0-15:2/").find("bad group size ''") != std::string::npos);
  CHECK(message("4:2").find("stride without a range") != std::string::npos);
  CHECK(message("15-0:2").find("descending range '15-0:2'") != std::string::npos);
  CHECK(message("0-8192:2").find("beyond 8191") != std::string::npos);
  CHECK(message("0-15:2:2").find("bad stride '2:2'") != std::string::npos);
}

TEST_CASE("a strided list prints as plain ranges that parse back to the same set", "[util]") {
  for (const char* text : {"0-15:2", "0-15:2/4", "0-8191:3/7", "5-6:9"}) {
    auto set = CpuSet::parse(text);
    REQUIRE(set.ok());
    auto again = CpuSet::parse(set->to_string());
    REQUIRE(again.ok());
    CHECK(*again == *set);
  }
}

TEST_CASE("the short form writes strides where they are shorter and the plain list is long", "[util]") {
  const auto short_form = [](const char* text) {
    auto set = CpuSet::parse(text);
    REQUIRE(set.ok());
    return set->to_short_string();
  };
  CHECK(short_form("0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42,44,46,48,50,52,54,56,58,60,62") ==
        "0-62:2");
  CHECK(short_form("0-3,8") == "0-3,8");
  CHECK(short_form("0,2") == "0,2");      // "0-2:2" is longer
  CHECK(short_form("0,2,4") == "0,2,4");  // a tie keeps the plain form
  // A plain list a reader takes in at a glance (at most 32 characters) stays plain, shorter strides or not.
  CHECK(short_form("0,1,4,5,8,9,12,13") == "0-1,4-5,8-9,12-13");
  CHECK(short_form("0-3,16-19,32-35,48-51") == "0-3,16-19,32-35,48-51");
  CHECK(short_form("30-31,62-63,94-95,126-127") == "30-31,62-63,94-95,126-127");
  CHECK(short_form("33,37,41") == "33,37,41");
  // Past that, the shortest form.
  CHECK(short_form("0-1,4-5,8-9,12-13,16-17,20-21,24-25") == "0-25:2/4");
  CHECK(short_form("0-3,16-19,32-35,48-51,64-67,80-83") == "0-83:4/16");
  CHECK(short_form("0,2,4,6,8,10,12,14,16,18,20,22,24-33") == "0-24:2,25-33");  // a stride, then a range
  CHECK(short_form("10-15,26-29") == "10-15,26-29");                            // two groups read better as ranges
  CHECK(short_form("") == "");
  CHECK(short_form("7") == "7");
}

TEST_CASE("the short form parses back to the same set", "[util]") {
  std::uint32_t state = 12345;
  const auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  for (int round = 0; round < 300; ++round) {
    std::vector<int> cpus;
    const int span = 1 + static_cast<int>(next() % 300);
    const int density = 1 + static_cast<int>(next() % 4);
    for (int cpu = 0; cpu < span; ++cpu) {
      if (next() % density == 0 || (cpu / 4) % density == 0) cpus.push_back(cpu);
    }
    const CpuSet set(cpus);
    auto again = CpuSet::parse(set.to_short_string());
    REQUIRE(again.ok());
    CHECK(*again == set);
    CHECK(set.to_short_string().size() <= set.to_string().size());
  }
  const auto all = CpuSet::range(0, mptrain::max_cpus - 1);
  CHECK(all.to_short_string() == "0-8191");
}

TEST_CASE("a kernel list string is printed in the short form, or as read when it does not parse", "[util]") {
  CHECK(mptrain::short_cpu_list("0,2,4,6,8,10\n") == "0,2,4,6,8,10");
  CHECK(mptrain::short_cpu_list("0,2,4,6,8,10,12,14,16,18,20,22,24\n") == "0-24:2");
  CHECK(mptrain::short_cpu_list("0-3,8") == "0-3,8");
  CHECK(mptrain::short_cpu_list("") == "");
  CHECK(mptrain::short_cpu_list("0-x") == "0-x");
}
