#include "procmgr/spawn.hpp"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using mptrain::procmgr::resolve_program;

namespace {

std::filesystem::path make_temp_dir() {
  char pattern[] = "/tmp/mptrain-spawn-test.XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  return pattern;
}

void write_file(const std::filesystem::path& path, const char* text, mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

}  // namespace

TEST_CASE("a command is found in PATH") {
  auto path = resolve_program("sh", "/nonexistent:/bin:/usr/bin");
  REQUIRE(path.ok());
  CHECK(*path == "/bin/sh");
}

TEST_CASE("a missing command is reported as not found in PATH") {
  auto path = resolve_program("mptrain-no-such-command", "/bin:/usr/bin");
  REQUIRE_FALSE(path.ok());
  CHECK(path.error().message ==
        "cannot run 'mptrain-no-such-command': not found in PATH; check the name or give its path");
}

TEST_CASE("a path that does not exist, a directory and a non-executable file are refused") {
  const auto dir = make_temp_dir();
  write_file(dir / "plain", "echo hi\n", 0644);
  CHECK(resolve_program((dir / "missing").string(), "").error().message.find("no such file") != std::string::npos);
  CHECK(resolve_program(dir.string() + "/", "").error().message.find("is a directory") != std::string::npos);
  CHECK(resolve_program((dir / "plain").string(), "").error().message.find("not executable") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a non-executable file in PATH is named") {
  const auto dir = make_temp_dir();
  write_file(dir / "tool", "echo hi\n", 0644);
  auto path = resolve_program("tool", dir.string());
  REQUIRE_FALSE(path.ok());
  CHECK(path.error().message.find("is not executable") != std::string::npos);
  std::filesystem::remove_all(dir);
}
