#include "monitor/cgroup_stat.hpp"

#include <catch2/catch.hpp>

#include "recorded_trees.hpp"

using namespace mptrain;
using namespace mptrain::monitor;

using namespace mptrain::monitor::testing;

TEST_CASE("the v1 cpu controller line wins over the v2 line", "[monitor]") {
  auto group = parse_cpu_cgroup("9:name=systemd:/\n1:cpu,cpuacct:/jobs/a\n0::/user.slice\n");
  REQUIRE(group.has_value());
  CHECK(group->version == 1);
  CHECK(group->path == "/jobs/a");
  CHECK(group->key() == "v1:/jobs/a");
}

TEST_CASE("a v2-only /proc/PID/cgroup names the unified group", "[monitor]") {
  auto group = parse_cpu_cgroup("0::/ci/job-7\n");
  REQUIRE(group.has_value());
  CHECK(group->version == 2);
  CHECK(group->path == "/ci/job-7");
  CHECK_FALSE(parse_cpu_cgroup("3:cpuset:/\n").has_value());
}

TEST_CASE("v1 cpu.stat throttling is read from a recorded tree", "[monitor]") {
  auto group = read_cpu_cgroup(v1_tree, 100);
  REQUIRE(group.ok());
  CHECK(group->stat_dir == "/sys/fs/cgroup/cpu,cpuacct/jobs/train");
  auto stat = read_cpu_stat(v1_tree, *group);
  REQUIRE(stat.ok());
  CHECK(stat->nr_periods == 120);
  CHECK(stat->nr_throttled == 90);
  CHECK(stat->throttled_ns == 4500000000ULL);
  auto quota = read_cpu_quota(v1_tree, *group);
  REQUIRE(quota.ok());
  REQUIRE(quota->cpus.has_value());
  CHECK(*quota->cpus == Approx(0.5));
}

TEST_CASE("v2 cpu.stat throttled_usec is converted to nanoseconds", "[monitor]") {
  auto group = read_cpu_cgroup(v2_tree, 200);
  REQUIRE(group.ok());
  CHECK(group->version == 2);
  CHECK(group->stat_dir == "/sys/fs/cgroup/ci/job-7");
  auto stat = read_cpu_stat(v2_tree, *group);
  REQUIRE(stat.ok());
  CHECK(stat->nr_periods == 40);
  CHECK(stat->nr_throttled == 10);
  CHECK(stat->throttled_ns == 250000000ULL);
  auto quota = read_cpu_quota(v2_tree, *group);
  REQUIRE(quota.ok());
  CHECK(*quota->cpus == Approx(1.5));
}

TEST_CASE("quotas: unlimited and malformed", "[monitor]") {
  auto unlimited = parse_cpu_max("max 100000\n");
  REQUIRE(unlimited.ok());
  CHECK_FALSE(unlimited->cpus.has_value());
  CHECK_FALSE(parse_cpu_max("50000\n").ok());
  auto v1 = parse_cfs_quota("-1\n", "100000\n");
  REQUIRE(v1.ok());
  CHECK_FALSE(v1->cpus.has_value());
  CHECK_FALSE(parse_cfs_quota("x", "100000").ok());
}

TEST_CASE("a cgroup's ancestors are listed innermost first, without the root", "[monitor]") {
  CgroupRef group{1, "/jobs/train", "/sys/fs/cgroup/cpu/jobs/train"};
  auto levels = with_ancestors(group);
  REQUIRE(levels.size() == 2);
  CHECK(levels[1].path == "/jobs");
  CHECK(levels[1].stat_dir == "/sys/fs/cgroup/cpu/jobs");
  CHECK(with_ancestors(CgroupRef{2, "/", "/sys/fs/cgroup"}).empty());
}

TEST_CASE("a process whose cgroup file is gone is an error", "[monitor]") {
  CHECK_FALSE(read_cpu_cgroup(v1_tree, 4242).ok());
}
