// The one runtime table: the variables the launcher sets come from it in its
// order, and every setter belongs to a runtime of it.
#include "util/runtime_table.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace mptrain;

TEST_CASE("the launcher's variables are the table's, each once, OpenMP's first") {
  const std::vector<std::string_view> names(thread_count_variables.begin(), thread_count_variables.end());
  CHECK(names == std::vector<std::string_view>{"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                               "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
                                               "NUMBA_NUM_THREADS", "GOMAXPROCS", "RAYON_NUM_THREADS",
                                               "POLARS_MAX_THREADS", "JULIA_NUM_THREADS", "TF_NUM_INTRAOP_THREADS",
                                               "TF_NUM_INTEROP_THREADS", "PYTHON_CPU_COUNT"});
  CHECK(openmp_variable == "OMP_NUM_THREADS");
  for (const auto& row : runtime_rows) {
    INFO(row.id);
    CHECK(!row.name.empty());
    CHECK(!row.source.empty());
    // A runtime no variable sizes names the knob that does.
    CHECK((!row.variable.empty() || !row.knob.empty()));
    if (!row.variable.empty()) CHECK(std::count(names.begin(), names.end(), row.variable) == 1);
  }
}

TEST_CASE("every setter the placement library caps belongs to a runtime of the table, each symbol once") {
  std::vector<std::string_view> symbols;
  for (const auto& setter : setter_rows) {
    INFO(setter.symbol);
    CHECK(std::any_of(runtime_rows.begin(), runtime_rows.end(),
                      [&](const auto& row) { return row.id == setter.runtime; }));
    CHECK(std::find(symbols.begin(), symbols.end(), setter.symbol) == symbols.end());
    symbols.push_back(setter.symbol);
  }
  CHECK(runtime_row("pytorch").knob == "torch.set_num_threads");
}
