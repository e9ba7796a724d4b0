// Files for the procmgr tests: a fresh directory under /tmp, and a file's whole text.
#pragma once

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mptrain::test {

// A new, empty directory /tmp/mptrain-test.XXXXXX (the caller removes it).
inline std::filesystem::path make_temp_dir() {
  char pattern[] = "/tmp/mptrain-test.XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  return pattern;
}

// The whole content of file `path` ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

}  // namespace mptrain::test
