#include "util/fs.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

using namespace mptrain;

TEST_CASE("FsRoot resolves absolute kernel paths under its root", "[util]") {
  const FsRoot root("/tmp/recorded");
  CHECK(root.path("/proc/stat") == std::filesystem::path("/tmp/recorded/proc/stat"));
  CHECK(FsRoot().is_real());
}

TEST_CASE("reading a missing file is an error naming the path and errno", "[util]") {
  auto content = read_file("/nonexistent/mptrain-test");
  REQUIRE_FALSE(content.ok());
  CHECK(content.error().message.find("/nonexistent/mptrain-test") != std::string::npos);
  CHECK(content.error().message.find("No such file") != std::string::npos);
}

TEST_CASE("an atomic write replaces the file and leaves no temporary behind", "[util]") {
  const auto dir = std::filesystem::temp_directory_path() / ("mptrain-fs-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "out.txt";
  REQUIRE(write_file_atomic(file, "first").ok());
  REQUIRE(write_file_atomic(file, "second").ok());
  CHECK(*read_file(file) == "second");
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("an atomic write into a missing directory fails cleanly", "[util]") {
  auto status = write_file_atomic("/nonexistent/dir/file", "x");
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message.find("/nonexistent/dir/file") != std::string::npos);
}

TEST_CASE("check_can_create accepts a new file in a writable directory and names what is wrong otherwise", "[util]") {
  const auto dir = std::filesystem::temp_directory_path() / ("mptrain-create-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  CHECK(check_can_create(dir / "new.ckpt").ok());
  auto missing = check_can_create("/nonexistent/dir/file");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("does not exist") != std::string::npos);
  auto directory = check_can_create(dir);
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().message.find("is a directory") != std::string::npos);
  std::filesystem::remove_all(dir);
}
