#include "affinity/usable_cpus.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace mptrain;
using namespace mptrain::affinity;

namespace {

FsRoot recorded(const std::string& name) { return FsRoot(std::string(MPTRAIN_TEST_DATA) + "/" + name); }

UsableCpus usable_in(const std::string& name) {
  auto usable = read_usable_cpus(recorded(name));
  INFO((usable.ok() ? std::string() : usable.error().message));
  REQUIRE(usable.ok());
  return std::move(usable).value();
}

}  // namespace

TEST_CASE("v1: cpu.cfs_quota_us of 1.5 CPUs caps N at 1", "[affinity][cgroup]") {
  const UsableCpus usable = usable_in("cgroup-v1-quota");
  CHECK(usable.cgroup.version == CgroupVersion::v1);
  CHECK(usable.cgroup.path == "/job");
  REQUIRE(usable.cgroup.quota_cpus.has_value());
  CHECK(*usable.cgroup.quota_cpus == Approx(1.5));
  CHECK(usable.cgroup.quota_file == "/sys/fs/cgroup/cpu/job/cpu.cfs_quota_us");
  CHECK(usable.cpus.to_string() == "0-3");
  CHECK(usable.count == 1);
  CHECK(usable.limited_by == LimitedBy::quota);
}

TEST_CASE("v1: a restricted cpuset limits N and a quota of -1 is no limit", "[affinity][cgroup]") {
  const UsableCpus usable = usable_in("cgroup-v1-cpuset");
  CHECK(usable.cgroup.version == CgroupVersion::v1);
  REQUIRE(usable.cgroup.cpuset.has_value());
  CHECK(usable.cgroup.cpuset->to_string() == "0-1,4");
  CHECK(usable.cgroup.cpuset_file == "/sys/fs/cgroup/cpuset/batch/job7/cpuset.cpus");
  CHECK_FALSE(usable.cgroup.quota_cpus.has_value());
  CHECK(usable.count == 3);
  CHECK(usable.limited_by == LimitedBy::cpuset);
}

TEST_CASE("v1: a container's mount root maps its cgroup to the mount point", "[affinity][cgroup]") {
  const UsableCpus usable = usable_in("cgroup-v1-container");
  CHECK(usable.cgroup.path == "/docker/0123abcd");
  REQUIRE(usable.cgroup.quota_cpus.has_value());
  CHECK(*usable.cgroup.quota_cpus == Approx(4.0));
  CHECK(usable.count == 4);
  CHECK(usable.limited_by == LimitedBy::quota);
}

TEST_CASE("v2: cpu.max of 2.5 CPUs caps N at 2", "[affinity][cgroup]") {
  const UsableCpus usable = usable_in("cgroup-v2-quota");
  CHECK(usable.cgroup.version == CgroupVersion::v2);
  CHECK(usable.cgroup.path == "/system.slice/train.service");
  REQUIRE(usable.cgroup.quota_cpus.has_value());
  CHECK(*usable.cgroup.quota_cpus == Approx(2.5));
  CHECK(usable.cgroup.cpuset->to_string() == "0-7");
  CHECK(usable.count == 2);
  CHECK(usable.limited_by == LimitedBy::quota);
}

TEST_CASE("v2: cpu.max max is no limit - the affinity mask limits N", "[affinity][cgroup]") {
  const UsableCpus usable = usable_in("cgroup-v2-nolimit");
  CHECK_FALSE(usable.cgroup.quota_cpus.has_value());
  CHECK(usable.affinity.to_string() == "0-2");
  CHECK(usable.count == 3);
  CHECK(usable.limited_by == LimitedBy::affinity);
}

TEST_CASE("v2 nested: the quota and cpuset of ancestors apply", "[affinity][cgroup]") {
  const UsableCpus usable = usable_in("cgroup-v2-nested");
  CHECK(usable.cgroup.path == "/jobs/team/run42");
  REQUIRE(usable.cgroup.quota_cpus.has_value());
  CHECK(*usable.cgroup.quota_cpus == Approx(3.0));
  CHECK(usable.cgroup.quota_file == "/sys/fs/cgroup/jobs/cpu.max");
  CHECK(usable.cgroup.cpuset_file == "/sys/fs/cgroup/jobs/team/cpuset.cpus.effective");
  CHECK(usable.cpus.to_string() == "2-5");
  CHECK(usable.count == 3);
  CHECK(usable.limited_by == LimitedBy::quota);
}

TEST_CASE("a recorded tree without /proc/self/cgroup is an error naming the file", "[affinity][cgroup]") {
  auto usable = read_usable_cpus(recorded("affinity"));
  REQUIRE_FALSE(usable.ok());
  CHECK(usable.error().message.find("/sys/devices/system/cpu/online") != std::string::npos);
}

TEST_CASE("a quota rounds down and never below one CPU", "[affinity][cgroup]") {
  CHECK(quota_cap(1.5) == 1);
  CHECK(quota_cap(0.2) == 1);
  CHECK(quota_cap(3.0) == 3);
  CHECK(quota_cap(2.9999999999) == 3);
}

TEST_CASE("an empty intersection is an error", "[affinity][cgroup]") {
  CgroupCpuLimits cgroup;
  cgroup.cpuset = CpuSet::range(4, 5);
  auto usable = combine_usable_cpus(CpuSet::range(0, 3), CpuSet::range(0, 3), cgroup);
  REQUIRE_FALSE(usable.ok());
  CHECK(usable.error().message.find("no usable CPU") != std::string::npos);
}

TEST_CASE("this machine has at least one usable CPU, all within its affinity", "[affinity][cgroup]") {
  auto usable = read_usable_cpus(FsRoot());
  REQUIRE(usable.ok());
  CHECK(usable->count >= 1);
  CHECK(usable->cpus.minus(usable->affinity).empty());
}

TEST_CASE("v2: a strided cpuset is explained in the short form", "[affinity][cgroup]") {
  const UsableCpus usable = usable_in("cgroup-v2-strided");
  CHECK(usable.limited_by == LimitedBy::cpuset);
  CHECK(usable.count == 8);
  CHECK(explain(usable) ==
        "N = 8: the cgroup v2 cpuset 8000-8014:2 (/sys/fs/cgroup/jobs/run7/cpuset.cpus.effective) leaves CPUs "
        "8000-8014:2");
}
