#include "util/file_lock.hpp"

#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>

#include "tests/support/temp_dir.hpp"
#include "util/fs.hpp"

using namespace mptrain;
using mptrain::test::TempDir;

TEST_CASE("a second lock on the same target is refused naming the holder's pid", "[util]") {
  const TempDir temp("lock");
  const auto& dir = temp.path;
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
}

TEST_CASE("the lock file name has a fixed length, so a target of NAME_MAX bytes can be locked", "[util]") {
  const TempDir temp("lock-long");
  const auto& dir = temp.path;
  const auto target = dir / std::string(255, 'n');
  CHECK(FileLock::lock_path(target).filename().string().size() == 30);
  CHECK(FileLock::lock_path(target).parent_path() == dir);
  CHECK(FileLock::acquire(target, "--trace").ok());
}

TEST_CASE("a lock file left by a run that died is taken over", "[util]") {
  const TempDir temp("lock-stale");
  const auto& dir = temp.path;
  const auto target = dir / "t.json";
  REQUIRE(write_file_atomic(FileLock::lock_path(target), "999999\n").ok());
  auto lock = FileLock::acquire(target, "--trace");
  REQUIRE(lock.ok());
  CHECK(read_file(FileLock::lock_path(target)).value_or("") == std::to_string(::getpid()) + "\n");
}

TEST_CASE("a lock file that cannot be created is refused with the cause, not the retry's ENOENT", "[util]") {
  // As a user who may not write the directory: the read-write create fails with EACCES, and the
  // read-only retry (without O_CREAT) with ENOENT, which must not replace it.
  if (::geteuid() != 0) {
    WARN("not root: cannot become another user to try a directory it may not write");
    return;
  }
  const TempDir temp("lock-denied");
  const auto& dir = temp.path;
  std::filesystem::permissions(dir, std::filesystem::perms(0755));
  const auto target = dir / "model.ckpt";
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    if (::setresgid(65534, 65534, 65534) != 0 || ::setresuid(65534, 65534, 65534) != 0) ::_exit(2);
    auto lock = FileLock::acquire(target, "--save-model");
    const std::string message = lock.ok() ? "locked" : lock.error().message;
    (void)!::write(pipe_fds[1], message.data(), message.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    message.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(message == "--save-model " + target.string() + ": cannot create its lock file in " + dir.string() + " (" +
                       FileLock::lock_path(target).filename().string() +
                       "): Permission denied; give a path in a directory you can write to");
}

TEST_CASE("a lock file holds nothing or a pid line, and anything else is a user's file", "[util]") {
  CHECK(is_lock_content(""));
  CHECK(is_lock_content("1234\n"));
  CHECK(is_lock_content("1234"));
  CHECK_FALSE(is_lock_content("1234\nmore"));
  CHECK_FALSE(is_lock_content("MPTRAIN checkpoint"));
  CHECK_FALSE(is_lock_content("\n"));
  CHECK_FALSE(is_lock_content("12345678901\n"));
}

TEST_CASE("a user's file with the lock file's name is refused, kept and never removed", "[util]") {
  const TempDir temp("lock-user");
  const auto& dir = temp.path;
  const auto target = dir / "model.ckpt";
  const auto lock_file = FileLock::lock_path(target);
  REQUIRE(write_file_atomic(lock_file, "my own notes\n").ok());
  {
    auto lock = FileLock::acquire(target, "--save-model");
    REQUIRE_FALSE(lock.ok());
    CHECK(lock.error().message.find("not an mptrain lock file") != std::string::npos);
  }
  auto content = read_file(lock_file);
  REQUIRE(content.ok());
  CHECK(*content == "my own notes\n");
}
