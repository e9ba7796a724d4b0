#include "util/text.hpp"

#include <catch2/catch.hpp>
#include <cerrno>

using namespace mptrain;

TEST_CASE("integers parse only when the whole text is a number", "[util]") {
  CHECK(*parse_int(" 42\n") == 42);
  CHECK(*parse_int("-7") == -7);
  CHECK_FALSE(parse_int("4x").ok());
  CHECK_FALSE(parse_int("").ok());
}

TEST_CASE("doubles parse only when the whole text is a number", "[util]") {
  CHECK(*parse_double("1.5") == 1.5);
  CHECK_FALSE(parse_double("1.5.2").ok());
}

TEST_CASE("one number grammar: a leading '+' is read as people write it, by integers and doubles alike", "[util]") {
  CHECK(*parse_int("+2") == 2);
  CHECK(*parse_double("+0.2") == 0.2);
  CHECK(*parse_double("+.5") == 0.5);
  CHECK_FALSE(parse_int("+").ok());
  CHECK_FALSE(parse_int("++2").ok());
  CHECK_FALSE(parse_int("+-2").ok());
  CHECK_FALSE(parse_double("+").ok());
}

TEST_CASE("a double beyond the largest is an ERANGE error and one too small reads as zero", "[util]") {
  CHECK(parse_double("1e400").error().code == ERANGE);
  CHECK(parse_double("-1e400").error().code == ERANGE);
  CHECK(parse_double("1e400x").error().code == 0);
  CHECK(*parse_double("1e-400") == 0);
  CHECK(*parse_double("-1e-400") == 0);
}

TEST_CASE("split keeps empty pieces and split_words drops whitespace", "[util]") {
  CHECK(split("a,,b", ',').size() == 3);
  const auto words = split_words("  cpu  12 34\n");
  REQUIRE(words.size() == 3);
  CHECK(words[0] == "cpu");
  CHECK(words[2] == "34");
}

TEST_CASE("shell_quote leaves plain words alone and single-quotes the rest", "[util]") {
  CHECK(shell_quote("/usr/bin/python3") == "/usr/bin/python3");
  CHECK(shell_quote("OMP_PLACES={0},{1}") == "'OMP_PLACES={0},{1}'");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("$HOME;rm") == "'$HOME;rm'");
}

TEST_CASE("shell_quote writes a word with control characters in $'…' with hex escapes, safe on a terminal") {
  CHECK(shell_quote("a\x1b[2Jb") == "$'a\\x1b[2Jb'");
  CHECK(shell_quote("it's\x1b") == "$'it\\'s\\x1b'");
  CHECK(shell_quote("back\\slash\x07\t\n") == "$'back\\\\slash\\x07\\t\\n'");
  // Tab and newline alone stay in single quotes, as POSIX sh reads them.
  CHECK(shell_quote("a\tb\nc") == "'a\tb\nc'");
  CHECK(shell_quote("c1\xc2\x9b"
                    "31m") == "$'c1\\xc2\\x9b31m'");
  CHECK(shell_quote("caf\xc3\xa9") == "'caf\xc3\xa9'");  // UTF-8 text is no control
}

TEST_CASE("printable shows control characters as hex escapes and leaves text, tabs and UTF-8 alone") {
  CHECK(printable("plain text\twith a tab") == "plain text\twith a tab");
  CHECK(printable("\x1b[2J\x1b]0;title\x07") == "\\x1b[2J\\x1b]0;title\\x07");
  CHECK(printable("cr\rnl\nnul") == "cr\\x0dnl\\x0anul");
  CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable("del\x7f") == "del\\x7f");
  CHECK(printable("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");
  CHECK(printable("c1 \xc2\x9b"
                  "31m") == "c1 \\x9b31m");
}

TEST_CASE("percent writes a fraction as a whole percentage", "[util]") {
  CHECK(percent(0) == "0%");
  CHECK(percent(0.254) == "25%");
  CHECK(percent(0.756) == "76%");
  CHECK(percent(1) == "100%");
}

TEST_CASE("an amount takes the singular only when it is exactly one", "[util]") {
  CHECK(counted_amount(1, "CPU") == "1 CPU");
  CHECK(counted_amount(1.5, "CPU") == "1.5 CPUs");
  CHECK(counted_amount(0.5, "CPU") == "0.5 CPUs");
  CHECK(counted_amount(2, "process") == "2 processes");
}

TEST_CASE("a list is joined with commas and a last word", "[util]") {
  CHECK(joined_list({}, "or").empty());
  CHECK(joined_list({"a"}, "or") == "a");
  CHECK(joined_list({"a", "b"}, "and") == "a and b");
  CHECK(joined_list({"a", "b", "c"}, "or") == "a, b or c");
}

TEST_CASE("a list of words is one shell command line, each word quoted where it must be") {
  CHECK(mptrain::shell_command({"python3", "my script.py", "--lr", "0.1"}) == "python3 'my script.py' --lr 0.1");
  CHECK(mptrain::shell_command({}).empty());
}
