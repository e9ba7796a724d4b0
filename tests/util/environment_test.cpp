#include "util/environment.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>

using namespace mptrain;

TEST_CASE("the current environment is read", "[util]") {
  ::setenv("MPTRAIN_TEST_VARIABLE", "yes", 1);
  const auto environment = current_environment();
  CHECK(std::find(environment.begin(), environment.end(), "MPTRAIN_TEST_VARIABLE=yes") != environment.end());
}

TEST_CASE("a variable is found by its whole name, empty values included", "[util]") {
  const std::vector<std::string> environment = {"PATH=/bin", "OMP_NUM_THREADS=8", "EMPTY=", "NOVALUE"};
  std::string value = "stale";
  CHECK(find_variable(environment, "OMP_NUM_THREADS", &value));
  CHECK(value == "8");
  CHECK(find_variable(environment, "EMPTY", &value));
  CHECK(value.empty());
  CHECK_FALSE(find_variable(environment, "OMP", &value));
  CHECK_FALSE(find_variable(environment, "NOVALUE", &value));
  CHECK(value.empty());
}

TEST_CASE("a variable's name is the part before the first '='", "[util]") {
  CHECK(variable_name("A=b=c") == "A");
  CHECK(variable_name("A") == "A");
}
