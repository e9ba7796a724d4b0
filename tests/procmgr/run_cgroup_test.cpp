#include "procmgr/run_cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

using namespace mptrain;
using namespace mptrain::procmgr;

TEST_CASE("MPTRAIN_RUN_CGROUP chooses the hierarchy, and another value is an error naming it") {
  ::unsetenv("MPTRAIN_RUN_CGROUP");
  CHECK(*run_cgroup_choice_from_env() == RunCgroupChoice::automatic);
  ::setenv("MPTRAIN_RUN_CGROUP", "v1", 1);
  CHECK(*run_cgroup_choice_from_env() == RunCgroupChoice::v1);
  ::setenv("MPTRAIN_RUN_CGROUP", "off", 1);
  CHECK(*run_cgroup_choice_from_env() == RunCgroupChoice::off);
  CHECK_FALSE(RunCgroup::create(RunCgroupChoice::off).ok());
  ::setenv("MPTRAIN_RUN_CGROUP", "yes", 1);
  const auto bad = run_cgroup_choice_from_env();
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "MPTRAIN_RUN_CGROUP=yes: give auto, v2, v1 or off (or unset it)");
  ::unsetenv("MPTRAIN_RUN_CGROUP");
}

TEST_CASE("a process that joins the run's cgroup is a member, and killing the cgroup ends it and removes it") {
  for (auto choice : {RunCgroupChoice::v2, RunCgroupChoice::v1}) {
    auto cgroup = RunCgroup::create(choice);
    if (!cgroup) {
      WARN("no cgroup of this kind can be made here");
      continue;
    }
    const int join = cgroup->join_fd();
    const pid_t child = ::fork();
    if (child == 0) {
      if (!join_cgroup(join)) ::_exit(1);
      for (;;) ::pause();
    }
    REQUIRE(child > 0);
    std::vector<pid_t> members;
    for (int i = 0; i < 500 && members.empty(); ++i) {
      members = cgroup->members();
      if (members.empty()) ::usleep(10 * 1000);
    }
    CHECK(members == std::vector<pid_t>{child});
    const auto files = cgroup->files();
    kill_cgroup_and_remove(files);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGKILL);
    CHECK_FALSE(std::filesystem::exists(files.dir));
  }
}

TEST_CASE("the planned cgroup is the one create makes, and killing one that does not exist does nothing") {
  CHECK(RunCgroup::planned(RunCgroupChoice::off).empty());
  for (auto choice : {RunCgroupChoice::v2, RunCgroupChoice::v1}) {
    const auto planned = RunCgroup::planned(choice);
    auto cgroup = RunCgroup::create(choice);
    if (!cgroup) {
      WARN("no cgroup of this kind can be made here");
      continue;
    }
    REQUIRE(planned.size() == 1);
    CHECK(planned.front().dir == cgroup->files().dir);
    CHECK(planned.front().procs == cgroup->files().procs);
    CHECK(planned.front().freeze == cgroup->files().freeze);
  }
  CgroupFiles missing{"/sys/fs/cgroup/mptrain-no-such-cgroup", "/sys/fs/cgroup/mptrain-no-such-cgroup/cgroup.procs", "",
                      ""};
  kill_cgroup_and_remove(missing);
  CHECK_FALSE(std::filesystem::exists(missing.dir));
}

TEST_CASE("killing the run's cgroup also ends what the job moved into cgroups of its own and removes them") {
  for (auto choice : {RunCgroupChoice::v2, RunCgroupChoice::v1}) {
    auto cgroup = RunCgroup::create(choice);
    if (!cgroup) {
      WARN("no cgroup of this kind can be made here");
      continue;
    }
    const auto files = cgroup->files();
    const std::string inner = files.dir + "/job/deeper";
    std::error_code error;
    if (!std::filesystem::create_directories(inner, error)) {
      WARN("no cgroup can be made inside the run's here");
      kill_cgroup_and_remove(files);
      continue;
    }
    const pid_t child = ::fork();
    if (child == 0) {
      const int fd = ::open((inner + "/cgroup.procs").c_str(), O_WRONLY);
      if (fd < 0 || ::write(fd, "0", 1) != 1) ::_exit(1);
      for (;;) ::pause();
    }
    REQUIRE(child > 0);
    ::usleep(100 * 1000);
    kill_cgroup_and_remove(files);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status));
    CHECK_FALSE(std::filesystem::exists(files.dir + "/job"));
    CHECK_FALSE(std::filesystem::exists(files.dir));
  }
}
