// An enum's names in one small table: its to_string, its parser and the
// "a, b or c" of help texts and messages all read the same rows, so a name
// is written once.
//   constexpr std::array bind_names{Named<Bind>{Bind::core, "core"}, …};
//   name_of(bind_names, Bind::core) == "core"
//   value_named(bind_names, "numa") == Bind::numa
//   names_list(bind_names) == "core, numa, package or none"
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mptrain {

// One value of enum E and its name.
template <class E>
struct Named {
  E value;
  std::string_view name;
};

// The name of `value` in `table`; `fallback` for a value the table lacks
// (a value cast from a number that is no enumerator).
template <class E, std::size_t N>
constexpr std::string_view name_of(const std::array<Named<E>, N>& table, E value,
                                   std::string_view fallback = "unknown") {
  for (const auto& row : table) {
    if (row.value == value) return row.name;
  }
  return fallback;
}

// The value named `name` in `table` (exactly); nullopt when none is.
template <class E, std::size_t N>
constexpr std::optional<E> value_named(const std::array<Named<E>, N>& table, std::string_view name) {
  for (const auto& row : table) {
    if (row.name == name) return row.value;
  }
  return std::nullopt;
}

// The names of `table` in order, as "a, b or c" (`last` joins the last two).
template <class E, std::size_t N>
std::string names_list(const std::array<Named<E>, N>& table, std::string_view last = "or") {
  std::string text;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0 && i + 1 == N) {
      text += ' ';
      text += last;
      text += ' ';
    } else if (i > 0) {
      text += ", ";
    }
    text += table[i].name;
  }
  return text;
}

// The names of `table` in order (for CLI11's IsMember).
template <class E, std::size_t N>
std::vector<std::string> names_of(const std::array<Named<E>, N>& table) {
  std::vector<std::string> names;
  for (const auto& row : table) names.emplace_back(row.name);
  return names;
}

}  // namespace mptrain
