#include <catch2/catch.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>

#include "procmgr/group.hpp"
#include "temp_files.hpp"

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

TEST_CASE("processes SIGKILL did not end are named with their state and the ps command that shows why") {
  const auto root = mptrain::test::make_temp_dir();
  std::filesystem::create_directories(root / "proc/4242");
  std::ofstream(root / "proc/4242/stat")
      << "4242 (dd (copy)) D 1 4242 4242 0 -1 4194560 0 0 0 0 7 3 0 0 20 0 1 0 900 0 0 "
         "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
  const auto text = mptrain::procmgr::unkilled_warning({4242, 4243}, mptrain::FsRoot(root));
  CHECK(text ==
        "processes left by the workers did not end after SIGKILL: 4242 (state D), 4243 (gone or unreadable); a "
        "process in state D is blocked in the kernel (uninterruptible sleep: a hung NFS mount, a device or a "
        "driver) and ends only when that call returns; see `ps -o pid,stat,wchan -p 4242,4243`; they are left "
        "running");
  const auto one = mptrain::procmgr::unkilled_warning({4242}, mptrain::FsRoot(root));
  CHECK(one.starts_with("a process left by the workers did not end after SIGKILL: 4242 (state D);"));
  CHECK(one.ends_with("it is left running"));
  std::filesystem::remove_all(root);
}

TEST_CASE("128 + the signal is written once: a shell exit code names its signal, and back") {
  CHECK(mptrain::exit_code::of_signal(SIGTERM) == 143);
  CHECK(mptrain::exit_code::signal_of(143) == SIGTERM);
  CHECK(mptrain::exit_code::signal_of(137) == SIGKILL);
  CHECK(mptrain::exit_code::signal_of(128) == 0);
  CHECK(mptrain::exit_code::signal_of(3) == 0);
  CHECK(mptrain::exit_code::signal_of(255) == 0);
  CHECK(ExitStatus{ExitStatus::Kind::signaled, SIGINT}.shell_code() == mptrain::exit_code::of_signal(SIGINT));
}
