#include "util/table.hpp"

#include <catch2/catch.hpp>

using namespace mptrain;

TEST_CASE("a table's header and rows share each column's width and alignment", "[util]") {
  const Table table({{"RANK", 4}, {"CPUS", 6, Align::left}, {"THREADS", 7}});
  CHECK(table.header() == "RANK  CPUS    THREADS\n");
  CHECK(table.row(0, "0-7", 8) == "   0  0-7           8\n");
  CHECK(table.row(12, "16-23", 16) == "  12  16-23        16\n");
}

TEST_CASE("a column's number format applies to its cells and not to its title", "[util]") {
  const Table table({{"WALL S", 8, Align::right, ".2f"}, {"STATUS", 0, Align::left}});
  CHECK(table.header() == "  WALL S  STATUS\n");
  CHECK(table.row(1.5, "exited with code 0") == "    1.50  exited with code 0\n");
}

TEST_CASE("a cell wider than its column is written whole, pushing the rest right", "[util]") {
  const Table table({{"A", 2}, {"B", 2}});
  CHECK(table.row(12345, 1) == "12345   1\n");
}

TEST_CASE("a table's indent and gap are written as given, braces included", "[util]") {
  const Table table({{"X", 1}, {"Y", 1}}, "  {", " } ");
  CHECK(table.header() == "  {X } Y\n");
  CHECK(table.row(1, 2) == "  {1 } 2\n");
}

TEST_CASE("a row short of a cell is an error, not a line with a hole", "[util]") {
  const Table table({{"A", 2}, {"B", 2}});
  CHECK_THROWS_AS(table.row(1), fmt::format_error);
}

TEST_CASE("a row of texts is laid out as a row of cells", "[util]") {
  const mptrain::Table table({{"RANK", 4}, {"CPUS", 8, mptrain::Align::left}, {"L3", 2}});
  CHECK(table.row_of({"0", "0-6:2", "1"}) == table.row(0, "0-6:2", 1));
  CHECK_THROWS_AS(table.row_of({"0", "0-6:2"}), fmt::format_error);
}
