// The doctor's thresholds in one table (monitor/thresholds.hpp): every
// member of Thresholds has one row, its default is the row's value, and
// each row names its option once with a help text and a reason.
#include "monitor/thresholds.hpp"

#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <set>
#include <string>

using namespace mptrain::monitor;

TEST_CASE("every threshold has one row, and its default is the row's value") {
  const Thresholds defaults;
  std::set<std::string> options;
  for (const ThresholdRow& row : threshold_table()) {
    INFO(row.option);
    CHECK(defaults.*row.member == row.value);
    CHECK(options.insert(std::string(row.option)).second);
    CHECK_FALSE(row.option.empty());
    CHECK(row.option.substr(0, 1) != "-");
    CHECK_FALSE(row.help.empty());
    CHECK_FALSE(row.reason.empty());
    CHECK(row.value >= 0);
  }
  // Thresholds holds only doubles, one per row: the table covers the struct.
  CHECK(threshold_table().size() * sizeof(double) == sizeof(Thresholds));
}

// (With the size check above, one changed field per row means no two rows share a member.)
TEST_CASE("a threshold changed through its row changes that member alone") {
  for (const ThresholdRow& row : threshold_table()) {
    INFO(row.option);
    Thresholds changed;
    changed.*row.member = row.value + 1;
    CHECK(changed.*row.member == row.value + 1);
    const Thresholds defaults;
    int differing = 0;
    for (const ThresholdRow& other : threshold_table()) differing += changed.*other.member != defaults.*other.member;
    CHECK(differing == 1);
  }
}

TEST_CASE("each threshold a row may not exceed is a row, and each pair is checked", "[monitor]") {
  int pairs = 0;
  for (const ThresholdRow& row : threshold_table()) {
    if (row.at_most.empty()) continue;
    INFO(row.option);
    const ThresholdRow* limit = threshold_row(row.at_most);
    REQUIRE(limit != nullptr);
    CHECK(row.value <= limit->value);
    Thresholds above;
    above.*row.member = above.*limit->member + 1;
    const auto refused = check_thresholds(above);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message == fmt::format("--{} {:g} is above --{} {:g}; give a warning threshold at most the "
                                                 "maximum",
                                                 row.option, above.*row.member, limit->option, above.*limit->member));
    ++pairs;
  }
  CHECK(pairs == 3);
  CHECK(check_thresholds(Thresholds()).ok());
  CHECK(threshold_row("no-such-threshold") == nullptr);
}

TEST_CASE("the --help-thresholds text lists every row with its default and help", "[monitor]") {
  const std::string help = thresholds_help();
  CHECK_THAT(help, Catch::StartsWith("The doctor's thresholds (mptrain doctor --OPTION VALUE;"));
  for (const ThresholdRow& row : threshold_table()) {
    CHECK_THAT(help, Catch::Contains(fmt::format("  --{:<28} {:<8g} {}\n", row.option, row.value, row.help)));
  }
}
