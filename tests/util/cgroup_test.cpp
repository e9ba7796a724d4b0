#include "util/cgroup.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace mptrain;

namespace {

FsRoot recorded(const std::string& name) { return FsRoot(std::string(MPTRAIN_TEST_DATA) + "/" + name); }

// Where `controller` is for this process in recorded tree `name`; fails the test when not found.
CgroupLocation located(const std::string& name, std::string_view controller, pid_t pid = 0) {
  auto locator = CgroupLocator::open(recorded(name));
  INFO((locator.ok() ? std::string() : locator.error().message));
  REQUIRE(locator.ok());
  auto location = locator->locate(pid, controller);
  INFO((location.ok() ? std::string() : location.error().message));
  REQUIRE(location.ok());
  REQUIRE(location->has_value());
  return **location;
}

std::vector<std::string> dirs_of(const CgroupLocation& location) {
  std::vector<std::string> dirs;
  for (const auto& level : location.levels) dirs.push_back(level.dir);
  return dirs;
}

}  // namespace

TEST_CASE("v1: the cpu controller's own hierarchy wins over the v2 line", "[util][cgroup]") {
  const auto cpu = located("cgroup-v1-quota", "cpu");
  CHECK(cpu.version == CgroupVersion::v1);
  CHECK(cpu.key() == "v1:/job");
  CHECK(dirs_of(cpu) == std::vector<std::string>{"/sys/fs/cgroup/cpu/job", "/sys/fs/cgroup/cpu"});
  CHECK(cpu.levels[1].path == "/");
  const auto cpuset = located("cgroup-v1-quota", "cpuset");
  CHECK(cpuset.path() == "/");
  CHECK(cpuset.levels.front().dir == "/sys/fs/cgroup/cpuset");
}

TEST_CASE("v1: a co-mounted cpu,cpuacct hierarchy is found under its mount point", "[util][cgroup]") {
  const auto cpu = located("cgroup-v1-cpuset", "cpu");
  CHECK(cpu.path() == "/batch/job7");
  CHECK(dirs_of(cpu) == std::vector<std::string>{"/sys/fs/cgroup/cpu,cpuacct/batch/job7",
                                                 "/sys/fs/cgroup/cpu,cpuacct/batch", "/sys/fs/cgroup/cpu,cpuacct"});
}

TEST_CASE("v2: a nested cgroup lists every ancestor up to the mount point", "[util][cgroup]") {
  const auto cpu = located("cgroup-v2-nested", "cpu");
  CHECK(cpu.version == CgroupVersion::v2);
  CHECK(cpu.key() == "v2:/jobs/team/run42");
  CHECK(dirs_of(cpu) == std::vector<std::string>{"/sys/fs/cgroup/jobs/team/run42", "/sys/fs/cgroup/jobs/team",
                                                 "/sys/fs/cgroup/jobs", "/sys/fs/cgroup"});
  CHECK(cpu.levels[2].path == "/jobs");
  CHECK(cpu.key_of(cpu.levels[1]) == "v2:/jobs/team");
}

TEST_CASE("container: a mount showing only the container's subtree is its root", "[util][cgroup]") {
  const auto cpu = located("cgroup-v1-container", "cpu");
  CHECK(cpu.path() == "/docker/0123abcd");
  CHECK(dirs_of(cpu) == std::vector<std::string>{"/sys/fs/cgroup/cpu,cpuacct"});
}

TEST_CASE("unusual mount points and a subtree root are followed, not guessed", "[util][cgroup]") {
  const auto cpu = located("cgroup-v1-odd-mounts", "cpu");
  CHECK(cpu.path() == "/kubepods/pod9/ctr1/train");
  CHECK(dirs_of(cpu) == std::vector<std::string>{"/run/cg/cpu/train", "/run/cg/cpu"});
  CHECK(cpu.levels[1].path == "/kubepods/pod9/ctr1");
  // Another process (pid 1) of the same cgroup is located the same way.
  CHECK(dirs_of(located("cgroup-v1-odd-mounts", "cpu", 1)) == dirs_of(cpu));
}

TEST_CASE("mountinfo escapes are undone and other file systems skipped", "[util][cgroup]") {
  const auto mounts = parse_cgroup_mounts(
      "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
      "32 31 0:29 / /cg/my\\040cpu rw,relatime shared:7 - cgroup cgroup rw,cpu,cpuacct\n"
      "garbage line\n");
  REQUIRE(mounts.size() == 1);
  CHECK(mounts[0].mountpoint == "/cg/my cpu");
  CHECK_FALSE(mounts[0].v2);
  CHECK(mounts[0].options == std::vector<std::string>{"rw", "cpu", "cpuacct"});
}

TEST_CASE("a controller that is not mounted is not found", "[util][cgroup]") {
  const auto members = parse_proc_cgroup("2:cpu:/a\n0::/b\n");
  CHECK_FALSE(locate_controller(members, {}, "cpu").has_value());
  const auto mounts = parse_cgroup_mounts("41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
  const auto v2 = locate_controller(members, mounts, "cpu");
  REQUIRE(v2.has_value());
  CHECK(v2->key() == "v2:/b");
}

TEST_CASE("a process whose cgroup file is gone is an error naming it", "[util][cgroup]") {
  auto locator = CgroupLocator::open(recorded("cgroup-v1-quota"));
  REQUIRE(locator.ok());
  auto location = locator->locate(4242, "cpu");
  REQUIRE_FALSE(location.ok());
  CHECK(location.error().message.find("/proc/4242/cgroup") != std::string::npos);
  CHECK_FALSE(CgroupLocator::open(FsRoot("/nonexistent")).ok());
}

TEST_CASE("v1 and v2 quotas and cpu.stat are read from the located directories", "[util][cgroup]") {
  const auto v1 = located("cgroup-v1-odd-mounts", "cpu");
  const FsRoot root = recorded("cgroup-v1-odd-mounts");
  auto quota = read_cpu_quota(root, v1.version, v1.levels.front().dir);
  REQUIRE(quota.ok());
  REQUIRE(quota->cpus.has_value());
  CHECK(*quota->cpus == Approx(0.5));
  CHECK(quota_file(v1.version, v1.levels.front().dir) == "/run/cg/cpu/train/cpu.cfs_quota_us");
  auto stat = read_cpu_stat(root, v1.levels.front().dir);
  REQUIRE(stat.ok());
  CHECK(stat->nr_throttled == 10);
  CHECK(stat->throttled_ns == 200000000ULL);

  const auto v2 = located("cgroup-v2-nested", "cpu");
  auto unlimited = read_cpu_quota(recorded("cgroup-v2-nested"), v2.version, v2.levels[1].dir);
  REQUIRE(unlimited.ok());
  CHECK_FALSE(unlimited->cpus.has_value());
  auto three = read_cpu_quota(recorded("cgroup-v2-nested"), v2.version, v2.levels[2].dir);
  REQUIRE(three.ok());
  REQUIRE(three->cpus.has_value());
  CHECK(*three->cpus == Approx(3.0));
  CHECK(quota_file(v2.version, "/d") == "/d/cpu.max");
}

TEST_CASE("cpu.stat of v2 counts microseconds - quotas unlimited and malformed", "[util][cgroup]") {
  const auto stat = parse_cpu_stat("usage_usec 9\nnr_periods 40\nnr_throttled 10\nthrottled_usec 250000\n");
  CHECK(stat.nr_periods == 40);
  CHECK(stat.nr_throttled == 10);
  CHECK(stat.throttled_ns == 250000000ULL);
  auto unlimited = parse_cpu_max("max 100000\n");
  REQUIRE(unlimited.ok());
  CHECK_FALSE(unlimited->cpus.has_value());
  auto half = parse_cpu_max("50000 100000");
  REQUIRE(half.ok());
  CHECK(*half->cpus == Approx(0.5));
  CHECK_FALSE(parse_cpu_max("50000\n").ok());
  CHECK_FALSE(parse_cpu_max("50000 0\n").ok());
  auto v1 = parse_cfs_quota("-1\n", "100000\n");
  REQUIRE(v1.ok());
  CHECK_FALSE(v1->cpus.has_value());
  CHECK_FALSE(parse_cfs_quota("x", "100000").ok());
  CHECK_FALSE(read_cpu_quota(recorded("cgroup-v1-quota"), CgroupVersion::v1, "/nowhere").ok());
}

TEST_CASE("locate_in finds the unified hierarchy of a hybrid layout, and a v1 controller's only in v1",
          "[util][cgroup]") {
  const auto members = parse_proc_cgroup("6:freezer:/jobs/a\n1:cpu:/\n0::/user.slice/a.scope\n");
  const auto mounts = parse_cgroup_mounts(
      "30 25 0:26 / /sys/fs/cgroup/unified rw,relatime shared:5 - cgroup2 cgroup2 rw\n"
      "31 25 0:27 / /sys/fs/cgroup/freezer rw,relatime shared:6 - cgroup cgroup rw,freezer\n");
  const auto v2 = locate_in(members, mounts, CgroupVersion::v2, "freezer");
  REQUIRE(v2.has_value());
  CHECK(v2->version == CgroupVersion::v2);
  CHECK(v2->levels.front().dir == "/sys/fs/cgroup/unified/user.slice/a.scope");
  const auto v1 = locate_in(members, mounts, CgroupVersion::v1, "freezer");
  REQUIRE(v1.has_value());
  CHECK(v1->levels.front().dir == "/sys/fs/cgroup/freezer/jobs/a");
  CHECK_FALSE(locate_in(members, mounts, CgroupVersion::v1, "cpu").has_value());  // cpu is not mounted
  // locate_controller still prefers v1 and falls back on v2.
  CHECK(locate_controller(members, mounts, "freezer")->version == CgroupVersion::v1);
  CHECK(locate_controller(members, mounts, "cpu")->version == CgroupVersion::v2);
}
