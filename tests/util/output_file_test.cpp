// An output file's path is refused before the work, with the exit code
// that says whose mistake it is, and the advice after a failed write fits
// its errno.
#include "util/output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/temp_dir.hpp"
#include "util/failure.hpp"

using namespace mptrain;
using mptrain::test::TempDir;

namespace {

constexpr FileKind notes{"an mptrain test file", "NOTES"};

// The Failure check_output_file throws for `file`; REQUIREs that it throws.
Failure refusal(const OutputFile& file) {
  try {
    check_output_file(file);
  } catch (const Failure& failure) {
    return failure;
  }
  FAIL("check_output_file accepted " << file.path);
  return Failure(0, "");
}

}  // namespace

TEST_CASE("an output file may be a new name, an empty file or a file of its kind", "[util]") {
  const TempDir dir("output-ok");
  CHECK_NOTHROW(check_output_file({dir.path / "new.txt", "--out", notes, {}}));
  std::ofstream(dir.path / "empty.txt").flush();
  CHECK_NOTHROW(check_output_file({dir.path / "empty.txt", "--out", notes, {}}));
  std::ofstream(dir.path / "earlier.txt") << "NOTES from before";
  CHECK_NOTHROW(check_output_file({dir.path / "earlier.txt", "--out", notes, {}}));
}

TEST_CASE("an output path that is no regular file is a usage error saying what it is", "[util]") {
  const TempDir dir("output-kind");
  REQUIRE(::mkfifo((dir.path / "fifo").c_str(), 0600) == 0);
  const auto fifo = refusal({dir.path / "fifo", "--out", notes, {}});
  CHECK(fifo.exit_code() == exit_code::usage_error);
  CHECK_THAT(fifo.what(), Catch::Contains("a FIFO"));
  std::filesystem::create_directory(dir.path / "sub");
  const auto directory = refusal({dir.path / "sub", "--out", notes, {}});
  CHECK(directory.exit_code() == exit_code::usage_error);
  CHECK_THAT(directory.what(), Catch::Contains("a directory"));
  std::ofstream(dir.path / "other.txt") << "someone's settings";
  const auto other = refusal({dir.path / "other.txt", "--out", notes, {}});
  CHECK(other.exit_code() == exit_code::usage_error);
  CHECK_THAT(other.what(), Catch::Contains("not an mptrain test file"));
}

TEST_CASE("an output path that is an input of the run is a usage error naming the input", "[util]") {
  const TempDir dir("output-input");
  std::ofstream(dir.path / "data.txt") << "NOTES";
  const auto input = refusal({dir.path / "data.txt", "--out", notes, {{dir.path / "data.txt", "the data (--data)"}}});
  CHECK(input.exit_code() == exit_code::usage_error);
  CHECK_THAT(input.what(), Catch::Contains("the data (--data)"));
}

TEST_CASE("a name too long is a usage error starting with the option", "[util]") {
  const TempDir dir("output-long");
  const auto long_name = refusal({dir.path / std::string(300, 'n'), "--out", notes, {}});
  CHECK(long_name.exit_code() == exit_code::usage_error);
  CHECK_THAT(long_name.what(), Catch::StartsWith("--out: "));
}

TEST_CASE("a missing directory is a runtime failure naming it", "[util]") {
  const TempDir dir("output-missing");
  const auto missing = refusal({dir.path / "gone" / "x.txt", "--out", notes, {}});
  CHECK(missing.exit_code() == exit_code::runtime_failure);
  CHECK_THAT(missing.what(), Catch::StartsWith("--out " + (dir.path / "gone" / "x.txt").string() + ": directory"));
}

TEST_CASE("the advice after a failed write fits its errno", "[util]") {
  const std::string instead = "give another --out path";
  CHECK(write_failure_advice(ENOSPC, instead) == "free some space there or give another --out path");
  CHECK(write_failure_advice(EDQUOT, instead) == "free some space there or give another --out path");
  CHECK(write_failure_advice(EACCES, instead) == "make its directory writable or give another --out path");
  CHECK(write_failure_advice(EROFS, instead) == "make its directory writable or give another --out path");
  CHECK(write_failure_advice(ENOENT, instead) == instead);
}
