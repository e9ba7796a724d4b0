// What a launch request decides, without a process: the --children refusal
// and its --allow-oversubscribe bypass, a required against a warned
// placement library, spreading on and off, refusals' exit codes and the
// front end's spellings in them.
#include "launch/decide.hpp"

#include <catch2/catch.hpp>

#include "procmgr/environment.hpp"

using namespace mptrain;
using namespace mptrain::launch;

namespace {

// M workers of T threads on N usable CPUs, pinned one set per worker.
affinity::Plan plan_of(int workers, int threads, int usable, affinity::Bind bind = affinity::Bind::core) {
  affinity::Plan plan;
  plan.num_processes = workers;
  plan.threads_per_process = threads;
  plan.usable_cpus = usable;
  plan.bind = bind;
  plan.oversubscribed = workers * threads > usable;
  return plan;
}

// Facts of a machine where everything is found.
Facts found() {
  Facts facts;
  facts.place_library = std::string("/opt/mptrain/libmptrain_place.so");
  facts.numa_nodes = CpuSet({0});
  facts.launcher = 42;
  return facts;
}

bool warned(const Decision& decision, std::string_view part) {
  for (const auto& warning : decision.warnings) {
    if (warning.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("more working children than a worker's CPUs are refused with what would fit") {
  CHECK(children_refusal(2, 2, 4, 2).empty());
  CHECK(children_refusal(3, 2, 2, 1) ==
        "--children 3: each worker has 2 CPUs (2 usable CPUs, 1 worker) and each working child needs one of its own; "
        "use --children 2 or fewer, or --allow-oversubscribe");
  CHECK(children_refusal(4, 2, 8, 2).ends_with(", -t 4 (the usable CPUs leave room for it), or --allow-oversubscribe"));
  CHECK(children_refusal(4, 2, 8, 4)
            .ends_with(", fewer workers (-n 2) so that each gets 4 CPUs, or "
                       "--allow-oversubscribe"));
  // torchrun's spellings: its -t is --tee.
  CHECK(children_refusal(4, 2, 8, 2, torchrun_spellings)
            .ends_with(", --threads-per-process 4 (the usable CPUs leave "
                       "room for it), or --allow-oversubscribe"));
  CHECK_THAT(children_refusal(4, 2, 8, 4, torchrun_spellings), Catch::Contains("(--nproc-per-node 2)"));
}

TEST_CASE("working children beyond a worker's CPUs are a usage refusal, unless oversubscription is allowed") {
  Request request;
  request.children = 3;
  auto decision = decide(request, plan_of(2, 1, 2), found(), {});
  REQUIRE(decision.refusal);
  CHECK(decision.refusal->exit_code == 2);
  CHECK_THAT(decision.refusal->message, Catch::StartsWith("--children 3: each worker has 1 CPU"));
  request.allow_oversubscribe = true;
  decision = decide(request, plan_of(2, 1, 2), found(), {});
  REQUIRE_FALSE(decision.refusal);
  CHECK(decision.settings.children == 3);
  CHECK(decision.settings.place_library == "/opt/mptrain/libmptrain_place.so");
  CHECK(decision.settings.passive_wait);  // 3 children on 1 CPU: their pools wait passively
}

TEST_CASE("the wait policy: auto waits passively only where pools may exceed their CPUs and the others always") {
  Request request;
  auto decision = decide(request, plan_of(2, 1, 2), found(), {});
  CHECK_FALSE(decision.settings.passive_wait);
  CHECK_FALSE(decision.settings.active_wait);
  request.wait_policy = procmgr::WaitPolicy::passive;
  decision = decide(request, plan_of(2, 1, 2), found(), {});
  CHECK(decision.settings.passive_wait);
  CHECK_FALSE(decision.settings.active_wait);
  request.wait_policy = procmgr::WaitPolicy::active;
  decision = decide(request, plan_of(2, 1, 2), found(), {});
  CHECK_FALSE(decision.settings.passive_wait);
  CHECK(decision.settings.active_wait);
  CHECK(procmgr::active_wait_environment({}) == std::vector<std::string>{"OMP_WAIT_POLICY=active"});
  CHECK(procmgr::active_wait_environment({"OMP_WAIT_POLICY=passive"}).empty());  // the user's own wins
}

TEST_CASE("a missing placement library: refused when --children needs it, a warning when only wanted") {
  auto facts = found();
  facts.place_library = Error{"the placement library libmptrain_place.so is neither in /a nor in /b"};
  Request request;
  request.children = 2;
  auto decision = decide(request, plan_of(1, 2, 2), facts, {});
  REQUIRE(decision.refusal);
  CHECK(decision.refusal->exit_code == 1);
  CHECK_THAT(decision.refusal->message, Catch::StartsWith("the placement library libmptrain_place.so is neither"));
  request.children = 0;
  decision = decide(request, plan_of(1, 2, 2), facts, {});
  REQUIRE_FALSE(decision.refusal);
  CHECK(decision.settings.place_library.empty());
  CHECK(warned(decision, "the processes the workers start keep the CPUs they inherit"));
  // Nothing pinned: nothing to place, but the programs' own sizing calls go uncapped.
  decision = decide(request, plan_of(1, 2, 2, affinity::Bind::none), facts, {});
  CHECK(decision.settings.place_library.empty());
  REQUIRE(decision.warnings.size() == 1);
  CHECK(warned(decision, "the pools the programs size themselves are not capped to the plan's threads"));
  // Found, it is used unpinned too: it caps those calls to the plan's threads.
  decision = decide(request, plan_of(1, 2, 2, affinity::Bind::none), found(), {});
  CHECK(decision.settings.place_library == "/opt/mptrain/libmptrain_place.so");
  // --children with --descendants leave contradict each other.
  request.children = 2;
  request.descendants = procmgr::Descendants::leave;
  decision = decide(request, plan_of(1, 2, 2), found(), {});
  REQUIRE(decision.refusal);
  CHECK(decision.refusal->exit_code == 2);
}

TEST_CASE("the program the library cannot reach is named only where the library is used") {
  auto facts = found();
  facts.program_reach = "/bin/x is statically linked, so mptrain's placement library cannot run inside it";
  CHECK(warned(decide({}, plan_of(1, 2, 2), facts, {}), "statically linked"));
  CHECK_FALSE(warned(decide({}, plan_of(1, 2, 2, affinity::Bind::none), facts, {}), "statically linked"));
}

TEST_CASE("busy threads are spread only on pinned workers whose OpenMP threads are placed") {
  Request request;
  CHECK(decide(request, plan_of(2, 1, 2), found(), {}).spread);
  CHECK_FALSE(decide(request, plan_of(2, 1, 2, affinity::Bind::none), found(), {}).spread);
  request.omp_bind = procmgr::OmpBind::none;
  CHECK_FALSE(decide(request, plan_of(2, 1, 2), found(), {}).spread);
  request.omp_bind = procmgr::OmpBind::close;
  request.spread_threads = monitor::SpreadThreads::off;
  CHECK_FALSE(decide(request, plan_of(2, 1, 2), found(), {}).spread);
}

TEST_CASE("the user's thread variables are named, and kept with --keep-env") {
  Request request;
  const std::vector<std::string> environment{"OMP_NUM_THREADS=8"};
  auto decision = decide(request, plan_of(2, 1, 2), found(), environment);
  CHECK(decision.settings.thread_counts == procmgr::UserThreadEnv::override);
  CHECK(warned(decision, "OMP_NUM_THREADS=8 is set; the workers get OMP_NUM_THREADS=1"));
  request.keep_env = true;
  decision = decide(request, plan_of(2, 1, 2), found(), environment);
  CHECK(decision.settings.thread_counts == procmgr::UserThreadEnv::keep);
  CHECK_FALSE(warned(decision, "OMP_NUM_THREADS"));
}

TEST_CASE("output, memory and allocator choices that cannot be met are refused with their exit codes") {
  Request request;
  request.tee = "5:3";  // rank 5 of 2
  request.log_dir = "/tmp/x";
  auto decision = decide(request, plan_of(2, 1, 2), found(), {});
  REQUIRE(decision.refusal);
  CHECK(decision.refusal->exit_code == 2);
  Request memory;
  memory.membind = std::string(1, '3');  // the machine has node 0 only
  decision = decide(memory, plan_of(2, 1, 2), found(), {});
  REQUIRE(decision.refusal);
  CHECK(decision.refusal->exit_code == 2);
  auto facts = found();
  facts.numa_nodes = Error{"cannot read /sys/devices/system/node/online"};
  decision = decide(memory, plan_of(2, 1, 2), facts, {});
  REQUIRE(decision.refusal);
  CHECK(decision.refusal->exit_code == 1);
  request = Request();
  request.allocator = procmgr::Allocator::jemalloc;
  facts = found();
  facts.allocator = Error{"jemalloc is not installed: apt-get install libjemalloc2"};
  decision = decide(request, plan_of(2, 1, 2), facts, {});
  REQUIRE(decision.refusal);
  CHECK(decision.refusal->exit_code == 1);
  facts.allocator = std::string("/usr/lib/libjemalloc.so.2");
  decision = decide(request, plan_of(2, 1, 2), facts, {});
  REQUIRE_FALSE(decision.refusal);
  CHECK(decision.settings.preload == "/usr/lib/libjemalloc.so.2");
  CHECK_THAT(decision.settings.allocator_settings, Catch::StartsWith("MALLOC_CONF="));
}

TEST_CASE("the group's output and stopping follow the request") {
  Request request;
  auto group = decide(request, plan_of(2, 1, 2), found(), {}).group;
  CHECK(group.output == procmgr::Output::tagged);
  CHECK(group.rank_tag == procmgr::RankTag::on);
  CHECK(group.tagged_stdout == procmgr::TaggedStdout::to_stdout);
  request.json = true;
  request.no_tag_output = true;
  request.grace_seconds = 0.25;
  request.max_restarts = 2;
  request.log_dir = "/tmp/logs";
  group = decide(request, plan_of(2, 1, 2), found(), {}).group;
  CHECK(group.output == procmgr::Output::log_dir);
  CHECK(group.tagged_stdout == procmgr::TaggedStdout::to_stderr);
  CHECK(group.rank_tag == procmgr::RankTag::off);
  CHECK(group.grace == std::chrono::milliseconds(250));
  CHECK(group.max_restarts == 2);
}
