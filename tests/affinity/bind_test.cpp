#include "affinity/bind.hpp"

#include <catch2/catch.hpp>
#include <thread>

using namespace mptrain;
using namespace mptrain::affinity;

TEST_CASE("binding this thread shows in its affinity", "[affinity][bind]") {
  std::thread([] {
    auto before = current_affinity(0);
    REQUIRE(before.ok());
    const CpuSet one = before->first(1);
    REQUIRE(bind_this_thread(one).ok());
    auto after = current_affinity(0);
    REQUIRE(after.ok());
    CHECK(*after == one);
  }).join();
}

TEST_CASE("binding a thread leaves the other threads alone", "[affinity][bind]") {
  auto before = current_affinity(0);
  REQUIRE(before.ok());
  std::thread([&] { REQUIRE(bind_this_thread(before->first(1)).ok()); }).join();
  CHECK(*current_affinity(0) == *before);
}

TEST_CASE("binding to no CPU or an impossible CPU is an error with errno", "[affinity][bind]") {
  auto empty = bind_this_thread(CpuSet());
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message.find("Invalid argument") != std::string::npos);
  CHECK_FALSE(bind_this_thread(CpuSet({100000})).ok());
}

TEST_CASE("the affinity of a missing process is an error", "[affinity][bind]") {
  CHECK_FALSE(current_affinity(0x7ffffff0).ok());
}
