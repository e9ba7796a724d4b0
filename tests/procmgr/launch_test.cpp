// The launch builder of `run -- CMD` (pure): each worker's variables,
// LD_PRELOAD order, memory policy, the warnings and refusals, the dry run's
// command line.
#include "procmgr/launch.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "procmgr/allocator.hpp"
#include "tests/procmgr/helpers.hpp"

using namespace mptrain;
using namespace mptrain::procmgr;
using namespace mptrain::procmgr::testing;

namespace {

// The value of variable `name` in `env`; "" when not there.
std::string value_of(const std::vector<std::string>& env, const std::string& name) {
  std::string value;
  find_variable(env, name, &value);
  return value;
}

// Two workers of 2 CPUs each, on NUMA nodes 0 and 1 of a two-node machine.
LaunchLayout two_workers() {
  LaunchLayout layout;
  layout.workers = {{0, cpus("0-1"), 0, {}}, {1, cpus("2-3"), 1, {}}};
  layout.online_nodes = cpus("0-1");
  return layout;
}

WorldInfo world_of_two() {
  WorldInfo world;
  world.local_size = 2;
  world.threads = 2;
  return world;
}

}  // namespace

TEST_CASE("pinned workers are bound to their CPUs and their NUMA node's memory", "[procmgr]") {
  const auto specs = pinned_specs(two_workers());
  REQUIRE(specs.size() == 2);
  CHECK(specs[1].rank == 1);
  CHECK(specs[1].cpus == cpus("2-3"));
  CHECK(to_string(specs[1].memory) == "membind 1");
  auto one_node = two_workers();
  one_node.online_nodes = cpus("0");
  CHECK(to_string(pinned_specs(one_node)[1].memory) == "default");
}

TEST_CASE("workers of a plan that binds nothing are neither pinned nor memory-bound", "[procmgr]") {
  auto layout = two_workers();
  layout.pinned = false;
  const auto specs = launch_specs(layout, world_of_two(), WorkerSettings{}, {});
  CHECK(specs[0].cpus.empty());
  CHECK(to_string(specs[0].memory) == "default");
  CHECK(value_of(specs[0].env, "MPTRAIN_CPUS") == "0-1");  // the plan's CPUs all the same
  CHECK(value_of(specs[0].env, "OMP_PLACES").empty());     // nothing to place the threads on
}

TEST_CASE("a worker gets torchrun's variables, its thread counts and its OpenMP placement", "[procmgr]") {
  const auto specs = launch_specs(two_workers(), world_of_two(), WorkerSettings{}, {});
  const auto& env = specs[1].env;
  CHECK(contains(env, "RANK=1"));
  CHECK(contains(env, "WORLD_SIZE=2"));
  CHECK(contains(env, "OMP_NUM_THREADS=2"));
  CHECK(contains(env, "OMP_PLACES={2},{3}"));
  CHECK(contains(env, "OMP_PROC_BIND=close"));
  CHECK(value_of(env, "LD_PRELOAD").empty());
  CHECK(value_of(env, "OMP_WAIT_POLICY").empty());
}

TEST_CASE("LD_PRELOAD holds the allocator, then the placement library, then the user's own", "[procmgr]") {
  WorkerSettings settings;
  settings.preload = "/lib/libjemalloc.so.2";
  settings.place_library = "/opt/libmptrain_place.so";
  settings.tables = {"/proc/1/fd/5", "/proc/1/fd/6"};
  settings.table_fds = {5, 6};
  settings.launcher = 1;
  const auto specs = launch_specs(two_workers(), world_of_two(), settings, {"LD_PRELOAD=/usr/lib/libmine.so"});
  CHECK(value_of(specs[0].env, "LD_PRELOAD") == "/lib/libjemalloc.so.2:/opt/libmptrain_place.so:/usr/lib/libmine.so");
  CHECK(value_of(specs[1].env, "MPTRAIN_PLACE_TABLE") == "/proc/1/fd/6");
  CHECK(value_of(specs[1].env, "MPTRAIN_PLACE_CPUS") == "2-3");
  CHECK(specs[1].inherit_fds == std::vector<int>{6});
}

TEST_CASE("with --children the tree gets each child's threads, placed by the library in its slice", "[procmgr]") {
  WorkerSettings settings;
  settings.children = 2;
  settings.place_library = "/opt/libmptrain_place.so";
  settings.tables = {"/t0", "/t1"};
  settings.table_fds = {5, 6};
  const auto specs = launch_specs(two_workers(), world_of_two(), settings, {});
  CHECK(contains(specs[0].env, "OMP_NUM_THREADS=1"));
  CHECK(value_of(specs[0].env, "OMP_PLACES").empty());
  CHECK(child_slices_of(specs[0]) == std::vector<std::string>{"0", "1"});
  CHECK(child_slices_of(pinned_specs(two_workers())[0]).empty());
}

TEST_CASE("a passive wait and a memory policy asked for reach every worker", "[procmgr]") {
  WorkerSettings settings;
  settings.passive_wait = true;
  settings.memory = requested_memory(MemoryMode::interleave, "all", cpus("0-1")).value();
  const auto specs = launch_specs(two_workers(), world_of_two(), settings, {});
  CHECK(contains(specs[1].env, "OMP_WAIT_POLICY=passive"));
  CHECK(to_string(specs[1].memory) == "interleave 0-1");
  CHECK(specs[1].memory.refusal == MemoryRefusal::fail);
}

TEST_CASE("reserved CPUs go to oneCCL and Intel MPI, and OpenMP's places leave them out", "[procmgr]") {
  LaunchLayout layout;
  layout.workers = {{0, cpus("0-11"), 0, cpus("0")}, {1, cpus("12-23"), 1, cpus("12")}};
  const auto specs = launch_specs(layout, world_of_two(), WorkerSettings{}, {});
  for (const auto& spec : specs) {
    CHECK(value_of(spec.env, "CCL_WORKER_COUNT") == "1");
    CHECK(value_of(spec.env, "CCL_WORKER_AFFINITY") == "0,12");
    CHECK(value_of(spec.env, "I_MPI_PIN_DOMAIN") == "[0xffe,0xffe000]");
  }
  CHECK(value_of(specs[1].env, "OMP_PLACES").starts_with("{13},{14},"));
  CHECK(value_of(specs[1].env, "MPTRAIN_CPUS") == "12-23");
  // The user's own wins, with a warning; nothing without a reserve or a pinned plan.
  const std::vector<std::string> own = {"CCL_WORKER_AFFINITY=auto"};
  const auto kept = communication_environment(layout, own);
  CHECK(kept == std::vector<std::string>{"CCL_WORKER_COUNT=1", "I_MPI_PIN_DOMAIN=[0xffe,0xffe000]"});
  const auto warnings = environment_warnings(own, WorkerSettings{}, 11, true, true);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].starts_with("CCL_WORKER_AFFINITY=auto is set"));
  CHECK(communication_environment(two_workers(), {}).empty());
  layout.pinned = false;
  CHECK(communication_environment(layout, {}).empty());
}

TEST_CASE("jemalloc gets run_cpu's MALLOC_CONF unless the user set one", "[procmgr]") {
  WorkerSettings settings;
  settings.preload = "/usr/lib/libjemalloc.so.2";
  settings.allocator_settings = allocator_settings(Allocator::jemalloc);
  auto specs = launch_specs(two_workers(), world_of_two(), settings, {});
  CHECK(value_of(specs[0].env, "MALLOC_CONF") == "oversize_threshold:1,background_thread:true,metadata_thp:auto");
  const std::vector<std::string> own = {"MALLOC_CONF=narenas:2"};
  specs = launch_specs(two_workers(), world_of_two(), settings, own);
  CHECK(value_of(specs[0].env, "MALLOC_CONF").empty());  // the inherited one stays
  REQUIRE(environment_warnings(own, settings, 2, true).size() == 1);
  CHECK(allocator_settings(Allocator::tcmalloc).empty());
}

TEST_CASE("the memory policy asked for takes node lists of this machine, or all", "[procmgr]") {
  CHECK(to_string(requested_memory(MemoryMode::bind, "1", cpus("0-1")).value()) == "membind 1");
  CHECK(to_string(requested_memory(MemoryMode::bind, "all", cpus("0-3")).value()) == "membind 0-3");
  const auto outside = requested_memory(MemoryMode::bind, "2-3", cpus("0-1"));
  REQUIRE_FALSE(outside.ok());
  CHECK(outside.error().message == "--membind 2-3: this machine's NUMA nodes are 0-1");
  const auto words = requested_memory(MemoryMode::interleave, "first", cpus("0-1"));
  REQUIRE_FALSE(words.ok());
  CHECK(words.error().message == "--interleave first: not a list of NUMA nodes such as 0-1, or all");
  CHECK(numa_unreadable(MemoryMode::bind, Error{"no file"}).starts_with("--membind: cannot read"));
}

TEST_CASE("the environment's own thread counts, placement and wait policy are warned about", "[procmgr]") {
  const std::vector<std::string> env = {"OMP_NUM_THREADS=8", "OMP_PLACES=cores", "KMP_BLOCKTIME=1"};
  WorkerSettings settings;
  CHECK(environment_warnings(env, settings, 4, true).size() == 2);  // no passive wait: its policy is no matter
  settings.passive_wait = true;
  settings.children = 2;
  const auto warnings = environment_warnings(env, settings, 4, true);
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0].starts_with("KMP_BLOCKTIME=1 is set, so mptrain leaves the OpenMP runtimes' waiting"));
  CHECK(warnings[1] == "OMP_NUM_THREADS=8 is set; the workers get OMP_NUM_THREADS=2 (use --keep-env to keep yours)");
  CHECK(warnings[2].starts_with("OMP_PLACES=cores is set, so mptrain leaves the placement"));
  settings.thread_counts = UserThreadEnv::keep;
  settings.omp_bind = OmpBind::none;
  CHECK(environment_warnings(env, settings, 4, true).size() == 1);
  settings.omp_bind = OmpBind::close;
  CHECK(environment_warnings(env, settings, 4, false).size() == 1);  // nothing pinned: nothing replaced
}

TEST_CASE("the placement library is wanted pinned or not (it caps pools to the plan), required with --children",
          "[procmgr]") {
  CHECK(place_need(0, Descendants::place).value() == PlaceNeed::wanted);
  CHECK(place_need(0, Descendants::leave).value() == PlaceNeed::none);
  CHECK(place_need(2, Descendants::place).value() == PlaceNeed::required);
  CHECK_FALSE(place_need(2, Descendants::leave).ok());
  CHECK(value_named(descendants_names, "leave") == Descendants::leave);
}

TEST_CASE("a static or set-user-ID program is out of the library's reach", "[procmgr]") {
  CHECK(unreachable_warning("/bin/x", PreloadReach::reaches, 0).empty());
  CHECK(unreachable_warning("/bin/x", PreloadReach::static_binary, 0)
            .starts_with("/bin/x is statically linked, so mptrain's placement library cannot run inside it"));
  const auto set_id = unreachable_warning("/bin/x", PreloadReach::set_id, 2);
  CHECK(set_id.starts_with("/bin/x is set-user-ID or set-group-ID"));
  CHECK(set_id.ends_with("; --children 2 gives its children no slices: they float over the worker's CPUs"));
}

TEST_CASE("a stream choice may name only the group's ranks", "[procmgr]") {
  CHECK(stream_choice_for("--tee", "", Streams::all, 2).value().every_rank == Streams::all);
  CHECK(stream_choice_for("--tee", "0:3,1:err", Streams::none, 2).ok());
  const auto beyond = stream_choice_for("--tee", "0:3,5:err", Streams::none, 2);
  REQUIRE_FALSE(beyond.ok());
  CHECK(beyond.error().message == "--tee 0:3,5:err names rank 5, but the ranks are 0 to 1; name only those");
  CHECK(stream_choice_for("--tee", "1:3", Streams::none, 1)
            .error()
            .message.ends_with("but the only rank is 0; name "
                               "only those"));
}

TEST_CASE("a dry run's command line binds, sets the variables and runs the program", "[procmgr]") {
  auto spec = pinned_specs(two_workers())[0];
  spec.env = {"RANK=0", "MPTRAIN_PLACE_LAUNCHER=12", "A=b c"};
  spec = dry_run_specs({spec})[0];
  CHECK(command_line(spec, {"python3", "x.py"}, {"OMPI_X"}) ==
        "numactl --physcpubind=0-1 --membind=0 env -u OMPI_X RANK=0 'A=b c' MPTRAIN_RESTART_COUNT=0 "
        "TORCHELASTIC_RESTART_COUNT=0 python3 x.py");
  spec.memory = {};
  CHECK(command_line(spec, {"true"}, {}).starts_with("taskset -c 0-1 env RANK=0"));
  spec.cpus = {};
  CHECK(command_line(spec, {"true"}, {}).starts_with("env RANK=0"));
}

TEST_CASE("a dry run's command line gives numactl and taskset the plain CPU list they read", "[procmgr]") {
  auto spec = pinned_specs(two_workers())[0];
  spec.cpus = CpuSet::parse("0,2,4,6").value();
  spec.memory.nodes = CpuSet::parse("0,2,4,6").value();
  CHECK(command_line(spec, {"true"}, {}).starts_with("numactl --physcpubind=0,2,4,6 --membind=0,2,4,6 env"));
  CHECK(to_string(spec.memory) == "membind 0,2,4,6");  // for people: plain while short
  spec.memory.nodes = CpuSet::parse("0-62:2").value();
  CHECK(to_string(spec.memory) == "membind 0-62:2");  // … and strided when long
  spec.memory.nodes = CpuSet::parse("0,2,4,6").value();
  spec.memory = {};
  CHECK(command_line(spec, {"true"}, {}).starts_with("taskset -c 0,2,4,6 env"));
}

TEST_CASE("a worker's child slices are shown as people read them: plain while short, else strided", "[procmgr]") {
  WorkerSpec spec;
  spec.env = {
      "MPTRAIN_PLACE_SLICES=0,2,4,6;64,66,68,70,72,74,76,78,80,82,84,86,88,90,92,94,96,98,100,102,104,106,108,110,112,"
      "114,116,118,120,122,124,126"};
  const auto slices = child_slices_of(spec);
  REQUIRE(slices.size() == 2);
  CHECK(slices[0] == "0,2,4,6");
  CHECK(slices[1].find(':') != std::string::npos);
}
