// torchrun's options as an mptrain launch: typed as run's options, the program,
// the checks of the options mptrain accepts, the run folder.
#include "cluster/torchrun_launch.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace mptrain;
using namespace mptrain::cluster;

namespace {

using Words = std::vector<std::string>;

TorchrunArgs launch_parsed(const Words& words) {
  auto args = parse_torchrun_args(words, {});
  INFO((args.ok() ? "" : args.error().message));
  REQUIRE(args.ok());
  return *args;
}

TorchrunPlacement placed(const Words& words, const std::vector<std::string>& environment = {}) {
  auto placement = torchrun_placement(launch_parsed(words), environment);
  INFO((placement.ok() ? "" : placement.error().message));
  REQUIRE(placement.ok());
  return *placement;
}

std::string refused(const Words& words, const std::vector<std::string>& environment = {}) {
  auto placement = torchrun_placement(launch_parsed(words), environment);
  REQUIRE_FALSE(placement.ok());
  return placement.error().message;
}

}  // namespace

TEST_CASE("torchrun's default is one worker, and a count, auto and cpu are taken as run takes -n", "[cluster]") {
  CHECK(placed({"a.py"}).workers == 1);
  CHECK(placed({"--nproc-per-node", "3", "a.py"}).workers == 3);
  for (const char* word : {"auto", "cpu"}) {
    const auto placement = placed({"--nproc_per_node", word, "a.py"});
    CHECK(placement.one_per_cpu);
    CHECK_FALSE(placement.workers);
  }
  CHECK_THAT(refused({"--nproc_per_node", "gpu", "a.py"}),
             Catch::StartsWith("--nproc_per_node gpu: mptrain runs CPU workers"));
  CHECK_THAT(refused({"--nproc-per-node", "0", "a.py"}), Catch::Contains("not a number of workers"));
}

TEST_CASE("nodes, node rank, endpoint and restarts are typed as run's options take them", "[cluster]") {
  auto placement =
      placed({"--nnodes", "2:2", "--node-rank", "1", "--rdzv-endpoint", "node0:29500", "--max-restarts", "3", "a.py"});
  CHECK(placement.nodes == 2);
  CHECK(placement.node_rank == 1);
  CHECK(placement.master_addr == "node0");
  CHECK(placement.master_port == 29500);
  CHECK(placement.max_restarts == 3);
  // c10d's port defaults to 29400; static's is left to run (0: a free one).
  CHECK(placed({"--rdzv-backend", "c10d", "--rdzv-endpoint", "h", "a.py"}).master_port == 29400);
  placement = placed({"--rdzv-endpoint", "h", "a.py"});
  CHECK(placement.master_addr == "h");
  CHECK(placement.master_port == 0);
  placement = placed({"--master-addr", "h", "--master-port", "1234", "a.py"});
  CHECK(placement.master_addr == "h");
  CHECK(placement.master_port == 1234);
  // Out of range, named as the user spelled it.
  CHECK(refused({"--max_restarts", "x", "a.py"}) == "--max_restarts: x is not a whole number");
  CHECK_THAT(refused({"--master-port", "70000", "a.py"}),
             Catch::StartsWith("--master-port: 70000 is not from 1 to 65535"));
  CHECK_THAT(refused({"--node-rank", "-1", "a.py"}), Catch::StartsWith("--node-rank: -1"));
}

TEST_CASE("a rendezvous mptrain cannot run is refused", "[cluster]") {
  CHECK_THAT(refused({"--rdzv-backend", "etcd", "a.py"}),
             Catch::StartsWith("--rdzv-backend etcd: mptrain's rendezvous is static"));
  CHECK_THAT(refused({"--standalone", "--nnodes", "2", "a.py"}),
             Catch::StartsWith("--standalone runs one node on this host, but --nnodes 2 asks for 2"));
  const Words c10d{"--nnodes", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint", "h:1", "a.py"};
  CHECK_THAT(refused(c10d), Catch::StartsWith("--rdzv-backend c10d across 2 nodes"));
  // A launcher that gives the node rank, or --node-rank, makes it runnable.
  CHECK(torchrun_placement(launch_parsed(c10d), {"SLURM_PROCID=1"}).ok());
  CHECK(torchrun_placement(launch_parsed(c10d), {"PET_NODE_RANK=0"}).ok());
  auto with_rank = c10d;
  with_rank.insert(with_rank.begin(), {"--node-rank", "0"});
  CHECK(torchrun_placement(launch_parsed(with_rank), {}).ok());
}

TEST_CASE("standalone ignores the rendezvous options, and says so", "[cluster]") {
  const auto placement =
      torchrun_placement(launch_parsed({"--standalone", "--rdzv-endpoint", "h:1", "a.py"}), {}).value();
  CHECK(placement.workers == 1);
  CHECK(placement.master_addr.empty());
  REQUIRE(placement.warnings.size() == 1);
  CHECK_THAT(placement.warnings[0], Catch::Contains("the --rdzv options are ignored"));
}

TEST_CASE("options mptrain accepts without using are still checked", "[cluster]") {
  const auto check = [](const Words& words) { return check_accepted_options(launch_parsed(words)); };
  CHECK(check({"--start-method", "fork", "--monitor-interval", "0.5", "--rdzv-conf", "a=1", "-r", "3", "a.py"}).ok());
  CHECK(check({"--start_method", "thread", "a.py"}).error().message ==
        "--start_method thread: torchrun's start methods are spawn, fork and forkserver");
  CHECK_THAT(check({"--monitor-interval", "-1", "a.py"}).error().message, Catch::Contains("not a number of seconds"));
  CHECK_THAT(check({"--rdzv-conf", "timeout", "a.py"}).error().message, Catch::Contains("is not key=value"));
  CHECK_THAT(check({"--redirects", "9", "a.py"}).error().message, Catch::StartsWith("--redirects 9: "));
  CHECK(check({"--role", "", "a.py"}).error().message == "--role needs a name");
  CHECK(check({"--local-addr", "", "a.py"}).error().message == "--local-addr needs an address");
}

TEST_CASE("the program runs as torchrun runs it", "[cluster]") {
  const std::vector<std::string> environment{"MPTRAIN_PYTHON=/opt/py"};
  CHECK(program_words(launch_parsed({"a.py", "--lr", "1"}), {}).value() == Words{"python3", "-u", "a.py", "--lr", "1"});
  CHECK(program_words(launch_parsed({"-m", "pkg", "x"}), environment).value() ==
        Words{"/opt/py", "-u", "-m", "pkg", "x"});
  CHECK(program_words(launch_parsed({"--no-python", "true", "x"}), environment).value() == Words{"true", "x"});
  CHECK_THAT(program_words(launch_parsed({"--run-path", "-m", "pkg"}), {}).error().message,
             Catch::Contains("does not go with -m/--module"));
  CHECK(python_interpreter({"PYTHON_EXEC=/p"}) == "/p");
  CHECK(python_interpreter({"MPTRAIN_PYTHON=", "PYTHON_EXEC=/p"}) == "/p");
}

TEST_CASE("the run id is --rdzv-id unless --standalone, else a fresh one", "[cluster]") {
  CHECK(torchrun_run_id(launch_parsed({"--rdzv-id", "job", "a.py"})) == "job");
  CHECK(torchrun_run_id(launch_parsed({"--rdzv-id", "job", "--standalone", "a.py"})).size() == 32);
  CHECK(fresh_run_id() != fresh_run_id());
}

TEST_CASE("the run folder: under --log-dir by run id, else a temporary one in TMPDIR", "[cluster]") {
  const auto logged =
      plan_run_folder(launch_parsed({"--log-dir", "logs", "--rdzv-id", "a/b", "a.py"}), "a/b", {}, "/w", false);
  CHECK(logged.pattern() == "/w/logs/a_b_XXXXXX");
  CHECK(logged.make_base);
  CHECK_FALSE(logged.temporary);
  CHECK_FALSE(logged.announce);
  const auto temporary = plan_run_folder(launch_parsed({"a.py"}), "id", {"TMPDIR=t"}, "/w", false);
  CHECK(temporary.pattern() == "/w/t/mptrain-torchrun-XXXXXX");
  CHECK(temporary.tmpdir == "t");
  CHECK(temporary.temporary);
  CHECK(plan_run_folder(launch_parsed({"a.py"}), "id", {}, "/w", false).base == "/tmp");
  const auto logs_in_tmp = plan_run_folder(launch_parsed({"--tee", "3", "a.py"}), "id", {}, "/w", false);
  CHECK_FALSE(logs_in_tmp.temporary);  // the logs stay, and where they are is said
  CHECK(logs_in_tmp.announce);
  CHECK_FALSE(plan_run_folder(launch_parsed({"--tee", "3", "a.py"}), "id", {}, "/w", true).announce);
  CHECK_FALSE(plan_run_folder(launch_parsed({"a.py"}), "id", {}, "/w", true).temporary);
  CHECK(check_log_dir(launch_parsed({"--log-dir=", "a.py"})).error().message == "--log-dir needs a directory");
}
