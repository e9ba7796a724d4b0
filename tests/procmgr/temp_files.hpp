// Files for the procmgr tests: a fresh directory (make_temp_dir), and a file's whole text.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace mptrain::test {

// The whole content of file `path` ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& path) {
  std::ostringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

}  // namespace mptrain::test
