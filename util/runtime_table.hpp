// The threading runtimes mptrain knows (util/runtime_table.def, the one
// table) as constexpr rows, and what is derived from them: the variables
// the launcher sets for each worker.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace mptrain {

// One runtime: how it is named, recognised and sized.
struct RuntimeRow {
  std::string_view id;                        // "gnu_openmp"
  std::string_view name;                      // "GNU OpenMP"
  std::string_view variable;                  // what sizes its pool at start-up; "": none
  std::string_view knob;                      // what a fix names when the variable does not size it; "": the variable
  bool barriers;                              // its pool meets at barriers, waiters spinning before they sleep
  std::array<std::string_view, 3> libraries;  // in /proc/PID/maps: NAME exactly, NAME* a prefix; "": unused
  std::string_view source;                    // where what it reads is documented
};

// One call that sizes a runtime's pool, capped by the placement library.
struct SetterRow {
  std::string_view runtime;  // its RuntimeRow's id
  std::string_view symbol;   // "openblas_set_num_threads"
  std::string_view call;     // its name in the pools report
};

#define RUNTIME(id, name, variable, knob, barriers, lib1, lib2, lib3, source) \
  RuntimeRow{#id, name, variable, knob, (barriers) != 0, {lib1, lib2, lib3}, source},
#define SETTER(runtime, symbol, call, kind)
// Every runtime, in the table's order.
inline constexpr std::array runtime_rows{
#include "util/runtime_table.def"
};
#undef RUNTIME
#undef SETTER

#define RUNTIME(id, name, variable, knob, barriers, lib1, lib2, lib3, source)
#define SETTER(runtime, symbol, call, kind) SetterRow{#runtime, #symbol, call},
// Every setter the placement library caps.
inline constexpr std::array setter_rows{
#include "util/runtime_table.def"
};
#undef RUNTIME
#undef SETTER

// The row whose id is `id` (a compile error in a constant expression when there is none).
constexpr const RuntimeRow& runtime_row(std::string_view id) {
  for (const auto& row : runtime_rows) {
    if (row.id == id) return row;
  }
  throw "no such runtime";  // not a constant expression: a typo fails the build
}

namespace detail {

// How many distinct variables the rows name.
constexpr std::size_t distinct_variables() {
  std::size_t count = 0;
  for (std::size_t i = 0; i < runtime_rows.size(); ++i) {
    bool first = !runtime_rows[i].variable.empty();
    for (std::size_t j = 0; j < i && first; ++j) first = runtime_rows[j].variable != runtime_rows[i].variable;
    count += first ? 1 : 0;
  }
  return count;
}

}  // namespace detail

// The variables that size the runtimes' pools, each once, in the table's
// order (OpenMP's first: fixes name it as the one to set): `run -- CMD`
// sets each to the plan's thread count.
inline constexpr auto thread_count_variables = [] {
  std::array<std::string_view, detail::distinct_variables()> names{};
  std::size_t count = 0;
  for (const auto& row : runtime_rows) {
    bool first = !row.variable.empty();
    for (std::size_t j = 0; j < count && first; ++j) first = names[j] != row.variable;
    if (first) names[count++] = row.variable;
  }
  return names;
}();

// OpenMP's variable, the one a fix names when no runtime says which.
inline constexpr std::string_view openmp_variable = runtime_row("gnu_openmp").variable;

}  // namespace mptrain
