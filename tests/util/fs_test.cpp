#include "util/fs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <utility>
#include <vector>

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
  std::filesystem::remove_all(dir);
}

TEST_CASE("only a new name or a regular file may be replaced", "[util]") {
  const auto dir = std::filesystem::temp_directory_path() / ("mptrain-replace-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  CHECK(check_replaceable(dir / "new.ckpt").ok());
  REQUIRE(write_file_atomic(dir / "old.ckpt", "old").ok());
  CHECK(check_replaceable(dir / "old.ckpt").ok());
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  std::filesystem::create_symlink(dir / "old.ckpt", dir / "link");
  const std::vector<std::pair<std::filesystem::path, std::string>> refused = {{dir, "a directory"},
                                                                              {dir / "fifo", "a FIFO"},
                                                                              {dir / "link", "a symbolic link"},
                                                                              {"/dev/null", "a character device"}};
  for (const auto& [path, kind] : refused) {
    auto status = check_replaceable(path);
    REQUIRE_FALSE(status.ok());
    CHECK(status.error().message.find(kind) != std::string::npos);
    // The atomic write refuses it too, and leaves it as it was.
    CHECK_FALSE(write_file_atomic(path, "new").ok());
  }
  CHECK(std::filesystem::is_fifo(dir / "fifo"));
  CHECK(std::filesystem::is_symlink(dir / "link"));
  CHECK(read_file(dir / "old.ckpt").value_or("") == "old");
  CHECK(std::filesystem::is_character_file("/dev/null"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a bounded read refuses devices, FIFOs and files larger than the bound", "[util]") {
  const auto dir = std::filesystem::temp_directory_path() / ("mptrain-bounded-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  REQUIRE(write_file_atomic(dir / "small", "12345").ok());
  CHECK(read_regular_file(dir / "small", 5).value_or("") == "12345");
  auto large = read_regular_file(dir / "small", 4);
  REQUIRE_FALSE(large.ok());
  CHECK(large.error().message.find("larger than the 4 bytes") != std::string::npos);
  auto zero = read_regular_file("/dev/zero", 1 << 20);
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message.find("a character device, not a regular file") != std::string::npos);
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK_FALSE(read_regular_file(dir / "fifo", 10).ok());  // without a writer: refused, not blocked
  std::filesystem::remove_all(dir);
}
