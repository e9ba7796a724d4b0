#include "procmgr/environment.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace mptrain;
using namespace mptrain::procmgr;

namespace {

bool contains(const std::vector<std::string>& entries, const std::string& entry) {
  return std::find(entries.begin(), entries.end(), entry) != entries.end();
}

WorldInfo world_of_four() {
  WorldInfo world;
  world.world_size = 4;
  world.threads = 2;
  world.master_addr = "10.0.0.1";
  world.master_port = 12345;
  return world;
}

}  // namespace

TEST_CASE("a worker's environment has torchrun's variables, its CPUs and thread counts") {
  const auto env = worker_environment(1, CpuSet::parse("2-3").value(), world_of_four(), UserThreadEnv::override, {});
  for (const char* entry :
       {"RANK=1", "LOCAL_RANK=1", "WORLD_SIZE=4", "LOCAL_WORLD_SIZE=4", "MASTER_ADDR=10.0.0.1", "MASTER_PORT=12345",
        "MPTRAIN_CPUS=2-3", "OMP_NUM_THREADS=2", "MKL_NUM_THREADS=2", "OPENBLAS_NUM_THREADS=2"}) {
    INFO(entry);
    CHECK(contains(env, entry));
  }
}

TEST_CASE("thread variables the user set are found") {
  const std::vector<std::string> user = {"PATH=/bin", "OMP_NUM_THREADS=8", "MKL_NUM_THREADS="};
  CHECK(thread_variables_set(user) == std::vector<std::string>{"OMP_NUM_THREADS", "MKL_NUM_THREADS"});
  std::string value;
  CHECK(find_variable(user, "OMP_NUM_THREADS", &value));
  CHECK(value == "8");
  CHECK_FALSE(find_variable(user, "OMP", &value));
}

TEST_CASE("keep leaves the user's thread variables out, override replaces them") {
  const std::vector<std::string> user = {"OMP_NUM_THREADS=8"};
  const auto kept = worker_environment(0, CpuSet({0}), world_of_four(), UserThreadEnv::keep, user);
  CHECK_FALSE(std::any_of(kept.begin(), kept.end(), [](const std::string& e) { return e.rfind("OMP_NUM_", 0) == 0; }));
  CHECK(contains(kept, "MKL_NUM_THREADS=2"));
  const auto merged =
      merge_environment(user, worker_environment(0, CpuSet({0}), world_of_four(), UserThreadEnv::override, user));
  CHECK(contains(merged, "OMP_NUM_THREADS=2"));
  CHECK_FALSE(contains(merged, "OMP_NUM_THREADS=8"));
}

TEST_CASE("merging replaces a variable in place and appends new ones") {
  const auto merged = merge_environment({"A=1", "B=2", "AB=3"}, {"B=20", "C=4"});
  CHECK(merged == std::vector<std::string>{"A=1", "B=20", "AB=3", "C=4"});
}

TEST_CASE("the current environment is read") {
  ::setenv("MPTRAIN_TEST_VARIABLE", "yes", 1);
  CHECK(contains(current_environment(), "MPTRAIN_TEST_VARIABLE=yes"));
}
