#include "util/parse_errors.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace mptrain;

namespace {

// The names CLI11 lists for -n; any other option has only its own.
std::string names_of(const std::string& name) {
  return name == "--num-processes" ? "-n,--num-processes,--nproc-per-node" : name;
}

// Some of `mptrain run`'s long option names.
const std::vector<std::string> run_names = {"--num-processes", "--nproc-per-node", "--children",    "--json",
                                            "--max-restarts",  "--master-port",    "--master-addr", "--help"};

std::string in_words(const std::string& what, const std::string& command = "plan") {
  return parse_error_in_words(what, command, names_of, run_names);
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

TEST_CASE("a mistyped long option among the words gets the near name", "[util][parse_errors]") {
  CHECK(in_words("The following arguments were not expected: -- --childern", "run") ==
        "mptrain run does not take: --childern --; did you mean --children?");
  CHECK(in_words("The following argument was not expected: --childern=2", "run") ==
        "mptrain run does not take: --childern=2; did you mean --children?");
  CHECK(in_words("The following arguments were not expected: --jsn x", "run") ==
        "mptrain run does not take: x --jsn; did you mean --json?");
  CHECK(in_words("The following arguments were not expected: --bogus -x", "run") ==
        "mptrain run does not take: -x --bogus");
}

TEST_CASE("nearest_names: a swap, a missing or extra letter, a wrong one", "[util][parse_errors]") {
  using Names = std::vector<std::string>;
  CHECK(nearest_names("--childern", run_names) == Names{"--children"});
  CHECK(nearest_names("--chilren", run_names) == Names{"--children"});
  CHECK(nearest_names("--childrens", run_names) == Names{"--children"});
  CHECK(nearest_names("--nproc-per-nodes", run_names) == Names{"--nproc-per-node"});
  CHECK(nearest_names("--nproc_per_node", run_names) == Names{"--nproc-per-node"});
  CHECK(nearest_names("--jsno", run_names) == Names{"--json"});
  CHECK(nearest_names("--hepl", run_names) == Names{"--help"});
  CHECK(nearest_names("--chldrn", run_names) == Names{"--children"});  // 2 edits in 6 letters: a third
}

TEST_CASE("nearest_names: the names a word of 3 letters or more begins", "[util][parse_errors]") {
  using Names = std::vector<std::string>;
  CHECK(nearest_names("--nproc-per-nod", run_names) == Names{"--nproc-per-node"});
  CHECK(nearest_names("--master", run_names) == Names{"--master-port", "--master-addr"});
  CHECK(nearest_names("--ma", run_names).empty());
}

TEST_CASE("nearest_names: the nearest only, and ties in the order given", "[util][parse_errors]") {
  using Names = std::vector<std::string>;
  CHECK(nearest_names("--master-adr", run_names) == Names{"--master-addr"});
  CHECK(nearest_names("--master-part", run_names) == Names{"--master-port"});
  CHECK(nearest_names("--ab", {"--ac", "--bb", "--abc"}) == Names{"--ac", "--bb", "--abc"});
}

TEST_CASE("nearest_names: nothing for a word far from every name, or a name itself", "[util][parse_errors]") {
  CHECK(nearest_names("--bogus", run_names).empty());
  CHECK(nearest_names("--xyz", run_names).empty());
  CHECK(nearest_names("--jsnx", run_names).empty());  // 2 edits in 4 letters: more than a third
  CHECK(nearest_names("--json", run_names).empty());
  CHECK(nearest_names("--", run_names).empty());
  CHECK(nearest_names("--children", {}).empty());
  CHECK(nearest_names("--" + std::string(100000, 'c'), run_names).empty());
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

std::string parse_refusal(const std::vector<std::string>& args) {
  const auto checked = check_option_words(args, shape_of, " (see)");
  return checked.ok() ? std::string() : checked.error().message;
}

}  // namespace

TEST_CASE("check_option_words: the words CLI11 would misread") {
  CHECK(parse_refusal({"-n", "2", "--json", "--", "-n=2"}).empty());
  CHECK(parse_refusal({"-n", "-5"}).empty());
  CHECK(parse_refusal({"--json=abc"}) == "--json takes no value: write --json (see)");
  CHECK(parse_refusal({"-n", "--json"}) ==
        "-n needs a value (INT) right after it, but the next word is the option --json (see)");
  CHECK(parse_refusal({"-n", "--"}) == "-n needs a value (INT) right after it, but the next word is '--' (see)");
  CHECK(parse_refusal({"-n=2"}) ==
        "-n=2: a short option takes its value after a space: -n 2 (or --num-processes=2) (see)");
  CHECK(parse_refusal({"-num-processes"}) ==
        "-num-processes: did you mean --num-processes? A long option starts with two "
        "dashes (see)");
}
