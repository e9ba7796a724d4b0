// Temporary directories for the unit tests: one way to make them, one to remove them.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <system_error>

namespace mptrain::test {

// A new, empty directory $TMPDIR/mptrain-`name`.XXXXXX (/tmp without TMPDIR) that the caller
// removes; fails the test case when none can be made.
inline std::filesystem::path make_temp_dir(const std::string& name = "test") {
  std::string pattern = (std::filesystem::temp_directory_path() / ("mptrain-" + name + ".XXXXXX")).string();
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

// A new, empty directory for one test case (make_temp_dir), removed with all it holds when it ends.
struct TempDir {
  explicit TempDir(const std::string& name = "test") : path(make_temp_dir(name)) {}
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::filesystem::path path;
};

}  // namespace mptrain::test
