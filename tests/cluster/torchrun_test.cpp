#include "cluster/torchrun.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cluster/python.hpp"

using namespace mptrain;
using namespace mptrain::cluster;

namespace {

using Words = std::vector<std::string>;

TorchrunArgs parsed(const Words& words, const std::vector<std::string>& environment = {}) {
  auto args = parse_torchrun_args(words, environment);
  INFO((args.ok() ? "" : args.error().message));
  REQUIRE(args.ok());
  return *args;
}

std::string refusal(const Words& words) {
  auto args = parse_torchrun_args(words, {});
  REQUIRE_FALSE(args.ok());
  return args.error().message;
}

}  // namespace

TEST_CASE("torchrun options are read in both spellings, with = or a separate value") {
  const auto dashed = parsed({"--nproc-per-node", "2", "--master-port=29600", "train.py", "--lr", "0.1"});
  const auto underscored = parsed({"--nproc_per_node=2", "--master_port", "29600", "train.py", "--lr", "0.1"});
  for (const auto& args : {dashed, underscored}) {
    REQUIRE(args.nproc_per_node);
    CHECK(args.nproc_per_node->value == "2");
    CHECK(args.master_port->value == "29600");
    CHECK(args.entry == TorchrunEntry::script);
    CHECK(args.program == "train.py");
    CHECK(args.program_args == Words{"--lr", "0.1"});
  }
  CHECK(dashed.nproc_per_node->spelled == "--nproc-per-node");
  CHECK(underscored.nproc_per_node->spelled == "--nproc_per_node");
}

TEST_CASE("the program's own words are never read as options") {
  const auto args = parsed({"-m", "pkg.train", "--nproc-per-node", "4", "--", "--help"});
  CHECK(args.entry == TorchrunEntry::module);
  CHECK_FALSE(args.nproc_per_node);
  CHECK_FALSE(args.help);
  CHECK(args.program_args == Words{"--nproc-per-node", "4", "--", "--help"});
  const auto after_dashes = parsed({"--no-python", "--", "-weird-program", "x"});
  CHECK(after_dashes.entry == TorchrunEntry::program);
  CHECK(after_dashes.program == "-weird-program");
}

TEST_CASE("an option of mptrain's that torchrun was not told about is unknown") {
  CHECK_THAT(refusal({"--json", "a.py"}), Catch::Contains("torchrun has no option --json"));
}

TEST_CASE("short options take attached or separate values, and a unique prefix names a long option") {
  const auto args = parsed({"-r3", "-t", "0:1,1:2", "--nproc", "2", "--stand", "x.py"});
  CHECK(args.redirects->value == "3");
  CHECK(args.tee->value == "0:1,1:2");
  CHECK(args.nproc_per_node->value == "2");
  CHECK(args.standalone);
  CHECK_THAT(refusal({"--rdzv", "x", "a.py"}), Catch::Contains("ambiguous") && Catch::Contains("--rdzv-endpoint"));
  CHECK_THAT(refusal({"--frobnicate", "a.py"}), Catch::Contains("torchrun has no option --frobnicate"));
}

TEST_CASE("mptrain's own options pass through in order, with their values") {
  const std::vector<TorchrunOption> mptrain{mptrain_option("--json", false, "JSON"),
                                            mptrain_option("--cpus", true, "CPUs"),
                                            mptrain_option("--children", true, "children")};
  const Words words{"--json", "--cpus", "0-1", "--nproc-per-node", "2", "--children=2", "a.py"};
  const auto args = parse_torchrun_args(words, {}, mptrain).value();
  CHECK(args.mptrain_args == Words{"--json", "--cpus", "0-1", "--children", "2"});
  CHECK(args.nproc_per_node->value == "2");
}

TEST_CASE("PET_ variables stand for options not given, and the command line wins") {
  const std::vector<std::string> environment{"PET_NPROC_PER_NODE=3", "PET_RDZV_ID=job9", "PET_MAX_RESTARTS=2"};
  const auto args = parsed({"--max-restarts", "1", "a.py"}, environment);
  CHECK(args.nproc_per_node->value == "3");
  CHECK(args.nproc_per_node->spelled == "PET_NPROC_PER_NODE");
  CHECK(args.rdzv_id->value == "job9");
  CHECK(args.max_restarts->value == "1");
}

TEST_CASE("torchrun command lines that cannot run are refused with the reason") {
  CHECK_THAT(refusal({"--nproc-per-node", "2"}), Catch::Contains("needs a script to run"));
  CHECK_THAT(refusal({"-m"}), Catch::Contains("needs a module to run"));
  CHECK_THAT(refusal({"--no-python"}), Catch::Contains("needs a program to run"));
  CHECK_THAT(refusal({"-m", "--no-python", "x"}), Catch::Contains("drop one of them"));
  CHECK_THAT(refusal({"--nnodes"}), Catch::Contains("--nnodes needs a value"));
  CHECK_THAT(refusal({"--nnodes", "1", "--nnodes", "2", "a.py"}), Catch::Contains("given twice"));
  CHECK_THAT(refusal({"--standalone=yes", "a.py"}), Catch::Contains("takes no value"));
  CHECK_THAT(refusal({"", "a.py"}), Catch::Contains("empty word"));
  CHECK_THAT(refusal({"--no-python", ""}), Catch::Contains("empty word"));
}

TEST_CASE("help is asked for before the program") {
  CHECK(parsed({"--help"}).help);
  CHECK(parsed({"-h", "--bogus-later"}).help);   // answered at once, as argparse does
  CHECK_FALSE(parsed({"a.py", "--help"}).help);  // the script's own
}

TEST_CASE("a node count is N or N:N, and an elastic range is refused") {
  CHECK(parse_torchrun_nnodes("2").value() == 2);
  CHECK(parse_torchrun_nnodes("3:3").value() == 3);
  CHECK_THAT(parse_torchrun_nnodes("1:4").error().message, Catch::Contains("elastic range"));
  CHECK_FALSE(parse_torchrun_nnodes("0").ok());
  CHECK_FALSE(parse_torchrun_nnodes("2:1").ok());
  CHECK_FALSE(parse_torchrun_nnodes("x").ok());
  CHECK_FALSE(parse_torchrun_nnodes("").ok());
  CHECK_FALSE(parse_torchrun_nnodes("99999999999999999999").ok());
}

TEST_CASE("a rendezvous endpoint is HOST[:PORT], IPv6 in brackets") {
  auto endpoint = parse_endpoint("node0:29400");
  REQUIRE(endpoint.ok());
  CHECK(endpoint->host == "node0");
  CHECK(endpoint->port == 29400);
  endpoint = parse_endpoint("node0");
  REQUIRE(endpoint.ok());
  CHECK_FALSE(endpoint->port);
  endpoint = parse_endpoint("[::1]:29500");
  REQUIRE(endpoint.ok());
  CHECK(endpoint->host == "::1");
  CHECK(endpoint->port == 29500);
  endpoint = parse_endpoint("localhost:0");
  REQUIRE(endpoint.ok());
  CHECK(endpoint->port == 0);
  CHECK(parse_endpoint("fe80::1").value().host == "fe80::1");
  CHECK_FALSE(parse_endpoint(":29400").ok());
  CHECK_FALSE(parse_endpoint("h:70000").ok());
  CHECK_FALSE(parse_endpoint("h:x").ok());
  CHECK_FALSE(parse_endpoint("[::1").ok());
}

TEST_CASE("the rendezvous config and the local ranks filter are checked") {
  const auto conf = parse_rdzv_conf("timeout=900, join_timeout = 60");
  REQUIRE(conf.ok());
  CHECK(conf->size() == 2);
  CHECK(conf->at(1).first == "join_timeout");
  CHECK(conf->at(1).second == "60");
  CHECK(parse_rdzv_conf("").value().empty());
  CHECK_FALSE(parse_rdzv_conf("timeout").ok());
  CHECK_FALSE(parse_rdzv_conf("=1").ok());
  CHECK(parse_local_ranks("1,0,1", 2).value() == std::vector<int>{1, 0});
  CHECK_THAT(parse_local_ranks("2", 2).error().message, Catch::Contains("they are 0 to 1"));
  CHECK_FALSE(parse_local_ranks("", 2).ok());
  CHECK_FALSE(parse_local_ranks("-1", 2).ok());
}

TEST_CASE("error files of @record are read in both of torch's forms") {
  const auto nested = parse_error_file(
      R"({"message": {"message": "ValueError: bad", "extraInfo": {"py_callstack": "Traceback ...\n", "timestamp": "1700000123"}}})");
  REQUIRE(nested.ok());
  CHECK(nested->message == "ValueError: bad");
  CHECK(nested->traceback == "Traceback ...\n");
  CHECK(nested->timestamp == 1700000123);
  const auto plain = parse_error_file(R"({"message": "RuntimeError: x"})");
  REQUIRE(plain.ok());
  CHECK(plain->message == "RuntimeError: x");
  CHECK_FALSE(plain->timestamp);
  CHECK_FALSE(parse_error_file("{not json").ok());
  CHECK_FALSE(parse_error_file("[]").ok());
  CHECK_FALSE(parse_error_file(R"({"message": 3})").ok());
  CHECK_FALSE(parse_error_file(R"({"other": "x"})").ok());
}

TEST_CASE("a run id becomes one file name inside --log-dir", "[cluster]") {
  using mptrain::cluster::run_folder_name;
  CHECK(run_folder_name("job-42_a.b") == "job-42_a.b");
  CHECK(run_folder_name("../esc") == ".._esc");
  CHECK(run_folder_name("a/b") == "a_b");
  CHECK(run_folder_name("..") == "run");
  CHECK(run_folder_name("") == "run");
  CHECK(run_folder_name(std::string(300, 'x')).size() == 64);
}

TEST_CASE("a traceback's missing module is read from its last ModuleNotFoundError", "[cluster]") {
  using mptrain::cluster::missing_python_module;
  CHECK(missing_python_module("Traceback ...\nModuleNotFoundError: No module named 'torch'\n") == "torch");
  CHECK(missing_python_module("ModuleNotFoundError: No module named 'torch.distributed'") == "torch");
  CHECK_FALSE(missing_python_module("ValueError: bad batch").has_value());
  CHECK_FALSE(missing_python_module("No module named ''").has_value());
}
