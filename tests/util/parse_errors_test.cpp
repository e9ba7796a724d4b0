#include "util/parse_errors.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace mptrain;

namespace {

// The names CLI11 lists for -n; any other option has only its own.
std::string names_of(const std::string& name) {
  return name == "--num-processes" ? "-n,--num-processes,--nproc-per-node" : name;
}

std::string in_words(const std::string& what, const std::string& command = "plan") {
  return parse_error_in_words(what, command, names_of);
}

}  // namespace

TEST_CASE("an option given twice is named with all its spellings", "[util][parse_errors]") {
  CHECK(in_words("--num-processes: At Most 1 required but received 2") ==
        "--num-processes was given 2 times; -n, --num-processes, --nproc-per-node are one option: give it once");
  CHECK(in_words("--json: At Most 1 required but received 3") == "--json was given 3 times; give it once");
}

TEST_CASE("an option without its value says it needs one right after it", "[util][parse_errors]") {
  CHECK(in_words("--cpus: 1 required TEXT missing") == "--cpus needs a value (TEXT), right after it");
}

TEST_CASE("words no option took are listed in the order given", "[util][parse_errors]") {
  CHECK(in_words("The following arguments were not expected: words extra") ==
        "mptrain plan does not take: extra words");
  CHECK(in_words("The following argument was not expected: x", "") == "mptrain does not take: x");
  CHECK(in_words("The following argument was not expected: a\x1b", "") == "mptrain does not take: a\\x1b");
}

TEST_CASE("two options that exclude each other ask for only one", "[util][parse_errors]") {
  CHECK(in_words("--topology excludes --topology-synthetic") ==
        "--topology and --topology-synthetic cannot be given together; give only one of them");
}

TEST_CASE("any other message is kept as CLI11 wrote it", "[util][parse_errors]") {
  CHECK(in_words("--bind: 'x' is not one of core, numa, package or none") ==
        "--bind: 'x' is not one of core, numa, package or none");
}

namespace {

// -n takes a value, --json is a flag.
std::optional<OptionShape> shape_of(const std::string& name) {
  if (name == "-n" || name == "--num-processes") return OptionShape{"--num-processes", 1, 1, "INT"};
  if (name == "--json") return OptionShape{"--json", 0, 0, ""};
  return std::nullopt;
}

std::string refusal(const std::vector<std::string>& args) {
  const auto checked = check_option_words(args, shape_of, " (see)");
  return checked.ok() ? std::string() : checked.error().message;
}

}  // namespace

TEST_CASE("check_option_words: the words CLI11 would misread") {
  CHECK(refusal({"-n", "2", "--json", "--", "-n=2"}).empty());
  CHECK(refusal({"-n", "-5"}).empty());
  CHECK(refusal({"--json=abc"}) == "--json takes no value: write --json (see)");
  CHECK(refusal({"-n", "--json"}) ==
        "-n needs a value (INT) right after it, but the next word is the option --json (see)");
  CHECK(refusal({"-n", "--"}) == "-n needs a value (INT) right after it, but the next word is '--' (see)");
  CHECK(refusal({"-n=2"}) == "-n=2: a short option takes its value after a space: -n 2 (or --num-processes=2) (see)");
  CHECK(refusal({"-num-processes"}) ==
        "-num-processes: did you mean --num-processes? A long option starts with two "
        "dashes (see)");
}
