#include "procmgr/environment.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "tests/procmgr/helpers.hpp"

using namespace mptrain;
using namespace mptrain::procmgr;
using namespace mptrain::procmgr::testing;

namespace {

WorldInfo world_of_four() {
  WorldInfo world;
  world.local_size = 4;
  world.threads = 2;
  world.master_addr = "10.0.0.1";
  world.master_port = 12345;
  world.max_restarts = 3;
  return world;
}

}  // namespace

TEST_CASE("a worker's environment has torchrun's variables, its CPUs and thread counts") {
  const auto env = worker_environment(1, CpuSet::parse("2-3").value(), world_of_four(), UserThreadEnv::override, {});
  for (const char* entry : {"RANK=1",
                            "LOCAL_RANK=1",
                            "WORLD_SIZE=4",
                            "LOCAL_WORLD_SIZE=4",
                            "GROUP_RANK=0",
                            "GROUP_WORLD_SIZE=1",
                            "ROLE_NAME=default",
                            "ROLE_RANK=1",
                            "ROLE_WORLD_SIZE=4",
                            "TORCHELASTIC_MAX_RESTARTS=3",
                            "MASTER_ADDR=10.0.0.1",
                            "MASTER_PORT=12345",
                            "MPTRAIN_CPUS=2-3",
                            "OMP_NUM_THREADS=2",
                            "MKL_NUM_THREADS=2",
                            "OPENBLAS_NUM_THREADS=2",
                            "BLIS_NUM_THREADS=2",
                            "VECLIB_MAXIMUM_THREADS=2",
                            "NUMEXPR_NUM_THREADS=2",
                            "NUMBA_NUM_THREADS=2",
                            "GOMAXPROCS=2",
                            "RAYON_NUM_THREADS=2",
                            "POLARS_MAX_THREADS=2",
                            "JULIA_NUM_THREADS=2",
                            "TF_NUM_INTRAOP_THREADS=2",
                            "PYTHON_CPU_COUNT=2"}) {
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

TEST_CASE("each attempt tells the workers its restart count, as mptrain and as torchrun") {
  CHECK(attempt_environment(0) == std::vector<std::string>{"MPTRAIN_RESTART_COUNT=0", "TORCHELASTIC_RESTART_COUNT=0"});
  CHECK(attempt_environment(2) == std::vector<std::string>{"MPTRAIN_RESTART_COUNT=2", "TORCHELASTIC_RESTART_COUNT=2"});
}

TEST_CASE("OpenMP threads are placed one per PU of the worker's CPUs, for every runtime") {
  CHECK(openmp_placement(CpuSet::parse("2-3,6").value(), OmpBind::close, {}) ==
        std::vector<std::string>{"OMP_PLACES={2},{3},{6}", "OMP_PROC_BIND=close",
                                 "KMP_AFFINITY=granularity=fine,explicit,proclist=[2,3,6]", "KMP_WARNINGS=0"});
  // The user's KMP_WARNINGS wins.
  const auto warnings_kept = openmp_placement(CpuSet({0}), OmpBind::close, {"KMP_WARNINGS=1"});
  CHECK(warnings_kept.size() == 3);
  CHECK_FALSE(contains(warnings_kept, "KMP_WARNINGS=0"));
}

TEST_CASE("OpenMP threads are left alone when asked, when the worker is not pinned, or when the user places them") {
  CHECK(openmp_placement(CpuSet({0, 1}), OmpBind::none, {}).empty());
  CHECK(openmp_placement(CpuSet(), OmpBind::close, {}).empty());
  for (const char* user :
       {"OMP_PLACES=cores", "OMP_PROC_BIND=spread", "KMP_AFFINITY=compact", "GOMP_CPU_AFFINITY=0-3"}) {
    INFO(user);
    CHECK(openmp_placement(CpuSet({0, 1}), OmpBind::close, {"PATH=/bin", user}).empty());
  }
  CHECK(placement_variables_set({"OMP_PLACES=cores", "KMP_AFFINITY=compact", "OMP_NUM_THREADS=2"}) ==
        std::vector<std::string>{"OMP_PLACES", "KMP_AFFINITY"});
}

TEST_CASE("the allocator is preloaded before the user's own preloads") {
  CHECK(preload_environment("", {"LD_PRELOAD=/x.so"}).empty());
  CHECK(preload_environment("/lib/j.so", {}) == std::vector<std::string>{"LD_PRELOAD=/lib/j.so"});
  CHECK(preload_environment("/lib/j.so", {"LD_PRELOAD="}) == std::vector<std::string>{"LD_PRELOAD=/lib/j.so"});
  CHECK(preload_environment("/lib/j.so", {"LD_PRELOAD=/x.so /y.so"}) ==
        std::vector<std::string>{"LD_PRELOAD=/lib/j.so:/x.so /y.so"});
}

TEST_CASE("ranks are global across nodes: node rank x M + local rank, in a world of K x M") {
  WorldInfo world = world_of_four();
  world.node_rank = 2;
  world.nodes = 3;
  const auto env = worker_environment(1, CpuSet({1}), world, UserThreadEnv::override, {});
  for (const char* entry : {"RANK=9", "LOCAL_RANK=1", "WORLD_SIZE=12", "LOCAL_WORLD_SIZE=4", "GROUP_RANK=2",
                            "GROUP_WORLD_SIZE=3", "ROLE_RANK=9", "ROLE_WORLD_SIZE=12"}) {
    INFO(entry);
    CHECK(contains(env, entry));
  }
}

TEST_CASE("a worker's environment names what mptrain set - a run inside it plans without that") {
  const std::vector<std::string> set = {"OMP_NUM_THREADS=2", "OMP_PLACES={0},{1}",
                                        "LD_PRELOAD=/b/libmptrain_place.so:/u.so"};
  CHECK(set_variables_entry(set) == "MPTRAIN_SET=OMP_NUM_THREADS,OMP_PLACES");
  // What every launch sets goes without saying.
  CHECK(set_variables_entry({"RANK=0", "MPTRAIN_CPUS=0", "MPTRAIN_PLACE_POOL=1", "MALLOC_CONF=x"}) ==
        "MPTRAIN_SET=MALLOC_CONF");
  const std::string library = "libmptrain_place.so";
  CHECK_FALSE(outside_outer_run({"OMP_NUM_THREADS=7", "LD_PRELOAD=/u.so"}, library));  // not inside a run
  const std::vector<std::string> worker = {"HOME=/h",
                                           "OMP_NUM_THREADS=2",
                                           "OMP_PLACES={0},{1}",
                                           "MINE=1",
                                           "LD_PRELOAD=/b/libmptrain_place.so:/u.so",
                                           "RANK=0",
                                           "MPTRAIN_PLACE_TABLE=/proc/1/fd/3",
                                           "MPTRAIN_SET=OMP_NUM_THREADS,OMP_PLACES"};
  CHECK(outside_outer_run(worker, library) == std::vector<std::string>{"HOME=/h", "MINE=1", "LD_PRELOAD=/u.so"});
  // The library alone (a program that preloads it by hand), or named without a folder.
  CHECK(outside_outer_run({"LD_PRELOAD=libmptrain_place.so"}, library) == std::vector<std::string>{});
  // A library of the same name's end is not it.
  CHECK_FALSE(outside_outer_run({"LD_PRELOAD=/x/notlibmptrain_place.so"}, library));
}
