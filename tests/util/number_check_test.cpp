#include "util/number_check.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace mptrain;

namespace {

bool non_negative(double value) { return value >= 0; }

template <class T>
std::string refusal(const Result<T>& result) {
  REQUIRE_FALSE(result.ok());
  return result.error().message;
}

}  // namespace

TEST_CASE("a bounded number is read in decimal and checked against its bounds", "[util][number_check]") {
  CHECK(*checked_number("0.5", "at least 0", non_negative) == 0.5);
  CHECK(*checked_number("+2", "at least 0", non_negative) == 2);
  CHECK(refusal(checked_number("-1", "at least 0", non_negative)) == "-1 is not at least 0");
  CHECK(refusal(checked_number("abc", "at least 0", non_negative)) == "abc is not a number");
  CHECK(refusal(checked_number("inf", "at least 0", non_negative)) == "inf is not a finite number");
}

TEST_CASE("a number beyond the largest double says so, and what to give", "[util][number_check]") {
  CHECK(refusal(checked_number("1e400", "at least 0", non_negative)) ==
        "1e400 is too large (beyond the largest number, about 1.8e308); give one at least 0");
  CHECK(refusal(checked_number("-1e400", "at least 0", non_negative)).starts_with("-1e400 is too far below zero"));
}

TEST_CASE("a whole number's bounds are written as a person writes them", "[util][number_check]") {
  CHECK(whole_number_bounds(0) == "at least 0");
  CHECK(whole_number_bounds(1, 65535) == "from 1 to 65535");
}

TEST_CASE("a whole number is read in decimal digits only", "[util][number_check]") {
  CHECK(*checked_whole_number("010", 0) == 10);
  CHECK(*checked_whole_number("+3", 1, 8) == 3);
  CHECK(refusal(checked_whole_number("1.5", 1)) == "1.5 is not a whole number");
  CHECK(refusal(checked_whole_number("0x10", 1)) == "0x10 is not a whole number");
  CHECK(refusal(checked_whole_number("1e3", 1)) == "1e3 is not written as a whole number; write 1000");
}

TEST_CASE("a whole number out of bounds names the bounds or the most accepted", "[util][number_check]") {
  CHECK(refusal(checked_whole_number("0", 1, 65535)) == "0 is not from 1 to 65535");
  CHECK(refusal(checked_whole_number("-2", 0)) == "-2 is not at least 0");
  CHECK(refusal(checked_whole_number("99999999999", 1)) == "99999999999 is too large: the most accepted is 2147483647");
  CHECK(refusal(checked_whole_number("1e400", 1)) == "1e400 is too large: the most accepted is 2147483647");
}

TEST_CASE("a duration is seconds, bare or with ms or s", "[util][number_check]") {
  CHECK(*checked_seconds("0.5", 0.001, 60, "from 1ms to 60s") == 0.5);
  CHECK(*checked_seconds("250ms", 0.001, 60, "from 1ms to 60s") == 0.25);
  CHECK(*checked_seconds("2s", 0.001, 60, "from 1ms to 60s") == 2);
  CHECK(refusal(checked_seconds("soon", 0.001, 60, "b")) == "soon is not a duration such as 0.5, 250ms or 1s");
  CHECK(refusal(checked_seconds("61", 0.001, 60, "from 1ms to 60s")) == "61 is not from 1ms to 60s");
}
