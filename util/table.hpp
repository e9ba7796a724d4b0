// Text tables from column rows: each column's title, width, alignment and
// number format are written once, and the header and every row are laid out
// from them (as htop's Process_fields[] are), so a column cannot drift from
// its title.
//   const Table table({{"RANK", 4}, {"CPUS", 16, Align::left}, {"WALL S", 8, Align::right, ".2f"}});
//   table.header()          == "RANK  CPUS                WALL S\n"
//   table.row(0, "0-7", 1.5) == "   0  0-7                   1.50\n"
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

namespace mptrain {

// Where a cell sits in its column's width.
enum class Align { left, right };

// One column of a Table.
struct Column {
  std::string_view title;        // a literal, or text that outlives the table
  int width = 0;                 // the cell's least width; 0: the cell as it is, unpadded
  Align align = Align::right;    // numbers right, words left
  std::string_view format = {};  // the cells' format after width ("" or ".2f"), not applied to the title
};

// A text table: a header of titles and rows of cells, each line starting
// with `indent` and its cells separated by `gap`.
class Table {
 public:
  // The table of `columns` (at least one).
  explicit Table(std::vector<Column> columns, std::string_view indent = {}, std::string_view gap = "  ");

  // The line of the columns' titles, newline-terminated.
  std::string header() const;
  // The line of `cells`, one per column in order, each formatted by its
  // column; newline-terminated. Throws fmt::format_error when a cell does
  // not fit its column's format or a column has no cell.
  template <class... Cells>
  std::string row(const Cells&... cells) const {
    return fmt::format(fmt::runtime(row_format_), cells...);
  }
  // The line of `cells`, one text per column in order, for a table whose
  // columns are chosen at run time; throws fmt::format_error as row() does
  // (a column with a number format takes no text).
  std::string row_of(const std::vector<std::string>& cells) const;

 private:
  std::vector<Column> columns_;
  std::string header_format_;
  std::string row_format_;
};

}  // namespace mptrain
