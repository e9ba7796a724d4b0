#include "util/file_lock.hpp"

#include <sys/file.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>

#include "util/fs.hpp"

using namespace mptrain;

namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("a second lock on the same target is refused naming the holder's pid", "[util]") {
  const auto dir = fresh_dir("mptrain-lock");
  const auto target = dir / "model.ckpt";
  {
    auto first = FileLock::acquire(target, "--save-model");
    REQUIRE(first.ok());
    CHECK(std::filesystem::exists(FileLock::lock_path(target)));
    // Another open file description, as another process would have: refused, never waiting.
    const auto spelled = dir / "." / "model.ckpt";
    auto second = FileLock::acquire(spelled, "--save-model");
    REQUIRE_FALSE(second.ok());
    CHECK(second.error().code == EWOULDBLOCK);
    CHECK(second.error().message == "--save-model " + spelled.string() +
                                        " is being written by another mptrain run (pid " + std::to_string(::getpid()) +
                                        "); wait for it to end, or give another --save-model path");
    CHECK(FileLock::acquire(dir / "other.ckpt", "--save-model").ok());  // another name, another lock
  }
  // Let go: the lock file is gone, and the target can be locked again.
  CHECK_FALSE(std::filesystem::exists(FileLock::lock_path(target)));
  CHECK(FileLock::acquire(target, "--save-model").ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("the lock file name has a fixed length, so a target of NAME_MAX bytes can be locked", "[util]") {
  const auto dir = fresh_dir("mptrain-lock-long");
  const auto target = dir / std::string(255, 'n');
  CHECK(FileLock::lock_path(target).filename().string().size() == 30);
  CHECK(FileLock::lock_path(target).parent_path() == dir);
  CHECK(FileLock::acquire(target, "--trace").ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("a lock file left by a run that died is taken over", "[util]") {
  const auto dir = fresh_dir("mptrain-lock-stale");
  const auto target = dir / "t.json";
  REQUIRE(write_file_atomic(FileLock::lock_path(target), "999999\n").ok());
  auto lock = FileLock::acquire(target, "--trace");
  REQUIRE(lock.ok());
  CHECK(read_file(FileLock::lock_path(target)).value_or("") == std::to_string(::getpid()) + "\n");
  std::filesystem::remove_all(dir);
}
