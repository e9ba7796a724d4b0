#include "util/table.hpp"

#include <fmt/args.h>

namespace mptrain {

namespace {

// The replacement field of `column`: "{:>8.2f}", "{:<16}", "{}"; `format`
// false leaves the number format out (for the title, a word).
std::string field(const Column& column, bool format) {
  std::string spec;
  if (column.width > 0) spec = fmt::format("{}{}", column.align == Align::left ? '<' : '>', column.width);
  if (format) spec += column.format;
  return spec.empty() ? "{}" : "{:" + spec + "}";
}

// `text` as literal text of a format string: its braces doubled.
std::string literal(std::string_view text) {
  std::string out;
  for (const char c : text) {
    out += c;
    if (c == '{' || c == '}') out += c;
  }
  return out;
}

// The format of a whole line: `indent`, each column's field joined by `gap`, a newline.
std::string line_format(const std::vector<Column>& columns, std::string_view indent, std::string_view gap,
                        bool format) {
  std::string out = literal(indent);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += literal(gap);
    out += field(columns[i], format);
  }
  return out + "\n";
}

}  // namespace

Table::Table(std::vector<Column> columns, std::string_view indent, std::string_view gap)
    : columns_(std::move(columns)),
      header_format_(line_format(columns_, indent, gap, false)),
      row_format_(line_format(columns_, indent, gap, true)) {}

std::string Table::header() const {
  fmt::dynamic_format_arg_store<fmt::format_context> titles;
  for (const auto& column : columns_) titles.push_back(column.title);
  return fmt::vformat(header_format_, titles);
}

std::string Table::row_of(const std::vector<std::string>& cells) const {
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (const auto& cell : cells) args.push_back(cell);
  return fmt::vformat(row_format_, args);
}

}  // namespace mptrain
