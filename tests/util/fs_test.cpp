#include "util/fs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.hpp"

using namespace mptrain;
using mptrain::test::TempDir;

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
  const TempDir temp("fs");
  const auto& dir = temp.path;
  const auto file = dir / "out.txt";
  REQUIRE(write_file_atomic(file, "first").ok());
  REQUIRE(write_file_atomic(file, "second").ok());
  CHECK(*read_file(file) == "second");
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("an atomic write into a missing directory fails cleanly", "[util]") {
  auto status = write_file_atomic("/nonexistent/dir/file", "x");
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message.find("/nonexistent/dir/file") != std::string::npos);
}

TEST_CASE("check_can_create accepts a new file in a writable directory and names what is wrong otherwise", "[util]") {
  const TempDir temp("create");
  const auto& dir = temp.path;
  CHECK(check_can_create(dir / "new.ckpt").ok());
  auto missing = check_can_create("/nonexistent/dir/file");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("does not exist") != std::string::npos);
}

TEST_CASE("only a new name or a regular file may be replaced", "[util]") {
  const TempDir temp("replace");
  const auto& dir = temp.path;
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
}

TEST_CASE("a bounded read refuses devices, FIFOs and files larger than the bound", "[util]") {
  const TempDir temp("bounded");
  const auto& dir = temp.path;
  REQUIRE(write_file_atomic(dir / "small", "12345").ok());
  CHECK(read_regular_file(dir / "small", 5).value_or("") == "12345");
  auto large = read_regular_file(dir / "small", 4);
  REQUIRE_FALSE(large.ok());
  CHECK(large.error().message.find("is 5 bytes, more than the 4 bytes mptrain reads") != std::string::npos);
  auto zero = read_regular_file("/dev/zero", 1 << 20);
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message.find("a character device, not a regular file") != std::string::npos);
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK_FALSE(read_regular_file(dir / "fifo", 10).ok());  // without a writer: refused, not blocked
}

namespace {

// The permission bits of `path`.
mode_t mode_of(const std::filesystem::path& path) {
  struct stat info {};
  REQUIRE(::stat(path.c_str(), &info) == 0);
  return info.st_mode & 07777;
}

}  // namespace

TEST_CASE("an atomic write of a name of NAME_MAX bytes works: its temporary name is short", "[util]") {
  const TempDir dir("long");
  const auto file = dir.path / std::string(255, 'n');
  CHECK(check_name_fits(file).ok());
  CHECK(check_can_create(file).ok());
  REQUIRE(write_file_atomic(file, "first").ok());
  REQUIRE(write_file_atomic(file, "second").ok());
  CHECK(*read_file(file) == "second");
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("check_name_fits refuses a name over NAME_MAX and a path over PATH_MAX, saying how long", "[util]") {
  const TempDir dir("fits");
  auto name = check_name_fits(dir.path / std::string(256, 'n'));
  REQUIRE_FALSE(name.ok());
  CHECK(name.error().message.find("is 256 bytes") != std::string::npos);
  CHECK(name.error().message.find("NAME_MAX") != std::string::npos);
  auto inner = check_name_fits(dir.path / std::string(300, 'd') / "model.ckpt");
  REQUIRE_FALSE(inner.ok());
  CHECK(inner.error().message.find("is 300 bytes") != std::string::npos);
  std::string deep = dir.path.string();
  while (deep.size() < 4200) deep += "/" + std::string(100, 'd');
  auto path = check_name_fits(deep);
  REQUIRE_FALSE(path.ok());
  CHECK(path.error().message.find("PATH_MAX") != std::string::npos);
  CHECK(check_name_fits(dir.path / "model.ckpt").ok());
}

TEST_CASE("a file of a kind is replaced only when empty or of that kind", "[util]") {
  const TempDir dir("kind");
  const FileKind kind{"a test file", "KIND"};
  CHECK(check_replaceable(dir.path / "new", kind).ok());
  REQUIRE(write_file_atomic(dir.path / "empty", "").ok());
  CHECK(check_replaceable(dir.path / "empty", kind).ok());
  REQUIRE(write_file_atomic(dir.path / "same", "KIND and more").ok());
  CHECK(check_replaceable(dir.path / "same", kind).ok());
  REQUIRE(write_file_atomic(dir.path / "text", "some notes").ok());
  auto text = check_replaceable(dir.path / "text", kind);
  REQUIRE_FALSE(text.ok());
  CHECK(text.error().message.find("it is not a test file") != std::string::npos);
  CHECK_FALSE(write_file_atomic(dir.path / "text", "KIND new", kind).ok());
  CHECK(*read_file(dir.path / "text") == "some notes");
  REQUIRE(write_file_atomic(dir.path / "short", "KI").ok());  // shorter than the signature
  CHECK_FALSE(check_replaceable(dir.path / "short", kind).ok());
}

TEST_CASE("check_not_input finds an input through a hard link and a symbolic link to its directory", "[util]") {
  const TempDir dir("input");
  REQUIRE(write_file_atomic(dir.path / "labels", "data").ok());
  std::filesystem::create_hard_link(dir.path / "labels", dir.path / "hard");
  std::filesystem::create_directory_symlink(dir.path, dir.path / "via");
  const std::vector<RunInput> inputs = {{dir.path / "labels", "the training data"}};
  for (const auto& path : {dir.path / "labels", dir.path / "hard", dir.path / "via" / "labels"}) {
    auto status = check_not_input(path, inputs);
    REQUIRE_FALSE(status.ok());
    CHECK(status.error().message.find("the training data") != std::string::npos);
  }
  CHECK(check_not_input(dir.path / "other", inputs).ok());
  REQUIRE(write_file_atomic(dir.path / "copy", "data").ok());
  CHECK(check_not_input(dir.path / "copy", inputs).ok());  // equal bytes, another file
}

TEST_CASE("an atomic write keeps the mode of the file it replaces, and a new file gets 0666 less the umask", "[util]") {
  const TempDir dir("mode");
  const mode_t mask = ::umask(022);
  REQUIRE(write_file_atomic(dir.path / "new", "x").ok());
  CHECK(mode_of(dir.path / "new") == 0644);
  for (mode_t mode : {0600, 0640, 0444}) {
    REQUIRE(::chmod((dir.path / "new").c_str(), mode) == 0);
    REQUIRE(write_file_atomic(dir.path / "new", "y").ok());
    CHECK(mode_of(dir.path / "new") == mode);
  }
  ::umask(mask);
}

TEST_CASE("an atomic write keeps the owner and group of the file it replaces in its owner's directory (as root)",
          "[util]") {
  if (::geteuid() != 0) {
    WARN("not root: a file cannot be given to another user here, so only the write itself is checked");
  }
  const TempDir dir("owner");
  const auto file = dir.path / "model";
  REQUIRE(write_file_atomic(file, "x").ok());
  if (::geteuid() == 0) {
    REQUIRE(::chown(dir.path.c_str(), 65534, 65534) == 0);
    REQUIRE(::chown(file.c_str(), 65534, 65534) == 0);
    REQUIRE(write_file_atomic(file, "y").ok());
    struct stat info {};
    REQUIRE(::stat(file.c_str(), &info) == 0);
    CHECK(info.st_uid == 65534);
    CHECK(info.st_gid == 65534);
    CHECK(*read_file(file) == "y");
  }
}

TEST_CASE("an atomic write over another user's file planted in a shared directory is this process's own (as root)",
          "[util]") {
  if (::geteuid() != 0) {
    WARN("not root: another user's file cannot be made here, so only the write itself is checked");
  }
  const TempDir dir("planted");
  const auto file = dir.path / "model";
  REQUIRE(write_file_atomic(file, "").ok());
  if (::geteuid() == 0) {
    REQUIRE(::chmod(dir.path.c_str(), 01777) == 0);  // root's, everyone may write: as /tmp
    REQUIRE(::chown(file.c_str(), 65534, 65534) == 0);
    REQUIRE(::chmod(file.c_str(), 0666) == 0);
    const mode_t mask = ::umask(022);
    REQUIRE(write_file_atomic(file, "y").ok());
    ::umask(mask);
    struct stat info {};
    REQUIRE(::stat(file.c_str(), &info) == 0);
    CHECK(info.st_uid == 0);
    CHECK((info.st_mode & 07777) == 0644);
    CHECK(*read_file(file) == "y");
  }
}

TEST_CASE("a failed read names MPTRAIN_FSROOT only when it chose where", "[util]") {
  const char* before = std::getenv("MPTRAIN_FSROOT");
  const std::string saved = before == nullptr ? "" : before;
  ::unsetenv("MPTRAIN_FSROOT");
  CHECK(under_fsroot("cannot read /proc/stat") == "cannot read /proc/stat");
  ::setenv("MPTRAIN_FSROOT", "/tmp/root", 1);
  CHECK(under_fsroot("cannot read /proc/stat") ==
        "MPTRAIN_FSROOT=/tmp/root: cannot read /proc/stat; point MPTRAIN_FSROOT at a directory holding proc/ and "
        "sys/, or unset it");
  if (before == nullptr) {
    ::unsetenv("MPTRAIN_FSROOT");
  } else {
    ::setenv("MPTRAIN_FSROOT", saved.c_str(), 1);
  }
}
