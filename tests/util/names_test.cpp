// util/names.hpp: one name table gives an enum's to_string, its parser and
// its "a, b or c" list.
#include "util/names.hpp"

#include <catch2/catch.hpp>

using namespace mptrain;

namespace {

enum class Colour { red, green, blue };
constexpr std::array colour_names{Named<Colour>{Colour::red, "red"}, Named<Colour>{Colour::green, "green"},
                                  Named<Colour>{Colour::blue, "blue"}};

}  // namespace

TEST_CASE("a name table names each value, and a value it lacks by the fallback") {
  CHECK(name_of(colour_names, Colour::green) == "green");
  CHECK(name_of(colour_names, static_cast<Colour>(7)) == "unknown");
  CHECK(name_of(colour_names, static_cast<Colour>(7), "none") == "none");
  static_assert(name_of(colour_names, Colour::blue) == "blue", "usable at compile time");
}

TEST_CASE("a name table parses exact names only") {
  CHECK(value_named(colour_names, "red") == Colour::red);
  CHECK(value_named(colour_names, "blue") == Colour::blue);
  CHECK_FALSE(value_named(colour_names, "Red").has_value());
  CHECK_FALSE(value_named(colour_names, "").has_value());
  CHECK_FALSE(value_named(colour_names, "re").has_value());
}

TEST_CASE("a name table lists its names in order, as words and for a check") {
  CHECK(names_list(colour_names) == "red, green or blue");
  CHECK(names_list(colour_names, "and") == "red, green and blue");
  CHECK(names_of(colour_names) == std::vector<std::string>{"red", "green", "blue"});
  constexpr std::array one{Named<Colour>{Colour::red, "red"}};
  CHECK(names_list(one) == "red");
  constexpr std::array two{Named<Colour>{Colour::red, "red"}, Named<Colour>{Colour::blue, "blue"}};
  CHECK(names_list(two) == "red or blue");
}
