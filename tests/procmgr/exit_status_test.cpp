#include <catch2/catch.hpp>
#include <csignal>

#include "procmgr/group.hpp"

using mptrain::procmgr::ExitStatus;
using mptrain::procmgr::GroupResult;

TEST_CASE("an exit with code 0 is success and shell code 0") {
  const ExitStatus status{ExitStatus::Kind::exited, 0};
  CHECK(status.success());
  CHECK(status.shell_code() == 0);
  CHECK(status.describe() == "exited with code 0");
}

TEST_CASE("a non-zero exit keeps its code") {
  const ExitStatus status{ExitStatus::Kind::exited, 7};
  CHECK_FALSE(status.success());
  CHECK(status.shell_code() == 7);
  CHECK(status.describe() == "exited with code 7");
}

TEST_CASE("a signal gives 128 plus the signal and names it") {
  const ExitStatus status{ExitStatus::Kind::signaled, SIGKILL};
  CHECK_FALSE(status.success());
  CHECK(status.shell_code() == 137);
  CHECK(status.describe() == "killed by SIGKILL");
}

TEST_CASE("a signal without a name is described by number") {
  CHECK(mptrain::procmgr::signal_name(SIGTERM) == "SIGTERM");
  CHECK(mptrain::procmgr::signal_name(200) == "signal 200");
}

TEST_CASE("a group's exit code is its first failing worker's shell code") {
  GroupResult result;
  result.workers.resize(3);
  CHECK(result.exit_code() == 0);
  result.workers[2].status = ExitStatus{ExitStatus::Kind::signaled, SIGSEGV};
  result.failed_rank = 2;
  CHECK(result.exit_code() == 128 + SIGSEGV);
}
