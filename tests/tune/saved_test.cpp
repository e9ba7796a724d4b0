#include "tune/saved.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace mptrain::tune;

namespace {
SavedResult result_of(std::vector<std::string> command, std::optional<std::vector<std::string>> winner) {
  return SavedResult{std::move(command),
                     {"0-1, N=2", "1 package, 1 NUMA node, 2 cores, 2 PUs: AMD EPYC"},
                     1000,
                     std::move(winner),
                     25.5,
                     "it leads the baseline"};
}
}  // namespace

TEST_CASE("a saved result is named by its command's words, and the built-in training has a name of its own") {
  CHECK(saved_file_name({"python3", "train.py"}) == saved_file_name({"python3", "train.py"}));
  CHECK(saved_file_name({"python3", "train.py"}) != saved_file_name({"python3 train.py"}));
  CHECK(saved_file_name({"a", "bc"}) != saved_file_name({"ab", "c"}));
  CHECK(saved_file_name({}) != saved_file_name({""}));
  CHECK(saved_file_name({}).ends_with(".json"));
  CHECK(saved_directory("/x/cache", "/home/u") == "/x/cache/mptrain/tune");
  CHECK(saved_directory("", "/home/u") == "/home/u/.cache/mptrain/tune");
  CHECK(saved_directory("relative", "/home/u") == "/home/u/.cache/mptrain/tune");  // XDG wants an absolute path
  CHECK(saved_directory("", "").empty());
  // From an environment: XDG_CACHE_HOME first, then HOME; no file without either.
  CHECK(saved_path({"t"}, {"HOME=/home/u", "XDG_CACHE_HOME=/c"}) == "/c/mptrain/tune/" + saved_file_name({"t"}));
  CHECK(saved_path({"t"}, {"HOME=/home/u"}) == "/home/u/.cache/mptrain/tune/" + saved_file_name({"t"}));
  CHECK(saved_path({"t"}, {"PATH=/bin"}).empty());
}

TEST_CASE("a result survives the file: its command, CPUs, topology, winner and speed-up") {
  const auto folder = std::filesystem::temp_directory_path() / ("mptrain-saved-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  const std::string path = (folder / "sub" / "r.json").string();
  REQUIRE(save_result(result_of({"python3", "t.py"}, std::vector<std::string>{"-n", "2"}), path).ok());
  REQUIRE(save_result(result_of({"other"}, std::nullopt), (folder / "sub" / "s.json").string()).ok());
  const auto loaded = load_result(path);
  REQUIRE(loaded.ok());
  CHECK(loaded->command == std::vector<std::string>{"python3", "t.py"});
  CHECK(*loaded->winner == std::vector<std::string>{"-n", "2"});
  CHECK(*loaded->speedup == Approx(25.5));
  CHECK(list_results((folder / "sub").string()).size() == 2);
  std::ofstream(folder / "sub" / "bad.json") << "{\"version\": 99}";
  CHECK_FALSE(load_result((folder / "sub" / "bad.json").string()).ok());
  CHECK(list_results((folder / "sub").string()).size() == 2);  // the unreadable one skipped
  std::filesystem::remove_all(folder);
}

TEST_CASE("run --tuned applies a result only where it was measured - no winner applies the default plan") {
  const SavedResult saved = result_of({"python3", "t.py"}, std::vector<std::string>{"--children", "2"});
  auto options = tuned_options(saved, saved.on);
  REQUIRE(options.ok());
  CHECK(*options == std::vector<std::string>{"--children", "2"});
  auto other_cpus = tuned_options(saved, {"0-3, N=4", saved.on.topology});
  REQUIRE_FALSE(other_cpus.ok());
  CHECK(other_cpus.error().message.find("measured on CPUs 0-1, N=2") != std::string::npos);
  CHECK(other_cpus.error().message.find("mptrain tune -- python3 t.py") != std::string::npos);
  auto other_machine = tuned_options(saved, {saved.on.cpus, "2 packages, 2 NUMA nodes, 64 cores, 128 PUs: Xeon"});
  REQUIRE_FALSE(other_machine.ok());
  CHECK(other_machine.error().message.find("another machine") != std::string::npos);
  auto none = tuned_options(result_of({"python3", "t.py"}, std::nullopt), saved.on);
  REQUIRE(none.ok());
  CHECK(none->empty());
}

TEST_CASE("an age reads in the unit that suits it") {
  CHECK(age_text(100, 140) == "40 s");
  CHECK(age_text(0, 600) == "10 min");
  CHECK(age_text(0, 3 * 3600) == "3 h");
  CHECK(age_text(0, 5 * 86400) == "5 days");
  CHECK(age_text(100, 50) == "0 s");
}
