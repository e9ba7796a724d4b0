// torchrun's option table: one row per option, and what is derived from it
// (help, PET_ variables, the names beside mptrain's own).
#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cluster/torchrun.hpp"
#include "util/launcher_variables.hpp"

using namespace mptrain;
using namespace mptrain::cluster;

TEST_CASE("each torchrun row takes a value exactly when it stores one, and names are unique", "[cluster]") {
  std::set<std::string_view> names;
  for (const auto& option : torchrun_options()) {
    INFO(option.name);
    CHECK(option.name.starts_with("--"));
    CHECK(option.takes_value == (option.value != nullptr));
    CHECK((option.value == nullptr) != (option.flag == nullptr));
    CHECK_FALSE(option.mptrain());
    CHECK_FALSE(option.help.empty());
    CHECK(names.insert(option.name).second);
    if (!option.alias.empty()) CHECK(names.insert(option.alias).second);
  }
}

TEST_CASE("mptrain's own options torchrun takes clash with none of torchrun's", "[cluster]") {
  for (const auto mine : torchrun_mptrain_option_names()) {
    INFO(mine);
    CHECK(mine.starts_with("--"));
    CHECK(mptrain_option(mine, false, "").mptrain());
    for (const auto& theirs : torchrun_options()) {
      CHECK_FALSE(theirs.name.starts_with(mine));
      CHECK_FALSE(mine.starts_with(theirs.name));
    }
  }
}

TEST_CASE("torchrun's PET_ variables are the ones the node identity reads", "[cluster]") {
  CHECK(pet_variable("--nnodes") == launcher_variables::pet_nnodes);
  CHECK(pet_variable("--node-rank") == launcher_variables::pet_node_rank);
  CHECK(pet_variable("--master-addr") == launcher_variables::pet_master_addr);
  CHECK(pet_variable("--master-port") == launcher_variables::pet_master_port);
  CHECK(pet_variable("--nproc-per-node") == "PET_NPROC_PER_NODE");
}

TEST_CASE("an alias reads as its option, and messages name it as written", "[cluster]") {
  const std::vector<std::string> words{"-r", "1", "-r", "2", "a.py"};
  auto args = parse_torchrun_args(words, {});
  REQUIRE_FALSE(args.ok());
  CHECK(args.error().message == "-r was given twice (-r and -r); give it once");
  const std::vector<std::string> module{"-m", "pkg"};
  CHECK(parse_torchrun_args(module, {}).value().entry == TorchrunEntry::module);
  const std::vector<std::string> attached{"-m3", "pkg"};
  CHECK(parse_torchrun_args(attached, {}).error().message == "-m3 takes no value: write -m");
}

TEST_CASE("help keeps two spaces between every option and its text", "[cluster]") {
  const std::vector<TorchrunOption> mine{mptrain_option("--threads-per-process", true, "Threads per worker"),
                                         mptrain_option("--json", false, "JSON")};
  const auto help = torchrun_help(mine);
  CHECK_THAT(help, Catch::Contains("--local-ranks-filter V  ") && Catch::Contains("--threads-per-process V  "));
  CHECK_THAT(help, Catch::Contains("--redirects V, -r V ") && Catch::Contains("--nproc-per-node V "));
  CHECK_THAT(help, Catch::Contains("-t is --tee here"));
  std::istringstream lines(help);
  std::size_t column = 0;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("  -")) continue;
    const auto gap = line.find("  ", 2);
    REQUIRE(gap != std::string::npos);
    const auto text = line.find_first_not_of(' ', gap);
    if (column == 0) column = text;
    CHECK(text == column);  // one column for every row, torchrun's and mptrain's
  }
  CHECK(column > 0);
}
