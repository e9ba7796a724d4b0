// The doctor's thresholds in one table (monitor/detector.hpp): every
// member of Thresholds has one row, its default is the row's value, and
// each row names its option once with a help text and a reason.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "monitor/detector.hpp"

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
