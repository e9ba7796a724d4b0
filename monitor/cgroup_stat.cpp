// Linux cgroup v1/v2 CPU-controller reading (see cgroup_stat.hpp).
#include "monitor/cgroup_stat.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

// True when the comma-separated `controllers` include `name`.
bool has_controller(std::string_view controllers, std::string_view name) {
  for (const auto controller : split(controllers, ',')) {
    if (controller == name) return true;
  }
  return false;
}

// `text` (trimmed) as an unsigned integer, or nullopt.
std::optional<std::uint64_t> to_u64(std::string_view text) {
  auto value = parse_int(text);
  if (!value.ok() || *value < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

// The first of `candidates` (hierarchy mount points) holding `path` under `root`.
std::optional<std::string> find_stat_dir(const FsRoot& root, const std::vector<std::string>& candidates,
                                         const std::string& path) {
  for (const auto& mount : candidates) {
    const std::string dir = path == "/" ? mount : mount + path;
    std::error_code ec;
    if (std::filesystem::exists(root.path(dir + "/cpu.stat"), ec)) return dir;
  }
  return std::nullopt;
}

// The mount points where the v1 "cpu" hierarchy may be, for `controllers` such as "cpu,cpuacct".
std::vector<std::string> v1_mounts(std::string_view controllers) {
  return {"/sys/fs/cgroup/" + std::string(controllers), "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"};
}

// A cgroup line: the group and, for v1, its hierarchy's controllers ("cpu,cpuacct").
struct CgroupLine {
  CgroupRef group;
  std::string controllers;
};

// The v1 line whose controllers include "cpu", else the v2 "0::" line.
std::optional<CgroupLine> find_cpu_line(std::string_view text) {
  std::optional<CgroupLine> v2;
  for (const auto line : split(text, '\n')) {
    const auto first = line.find(':');
    const auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const auto controllers = line.substr(first + 1, second - first - 1);
    const std::string path(trim(line.substr(second + 1)));
    if (has_controller(controllers, "cpu")) return CgroupLine{CgroupRef{1, path, {}}, std::string(controllers)};
    if (line.substr(0, first) == "0" && controllers.empty()) v2 = CgroupLine{CgroupRef{2, path, {}}, {}};
  }
  return v2;
}

}  // namespace

std::string CgroupRef::key() const { return fmt::format("v{}:{}", version, path); }

std::optional<CgroupRef> parse_cpu_cgroup(std::string_view proc_cgroup_text) {
  auto found = find_cpu_line(proc_cgroup_text);
  if (!found) return std::nullopt;
  return found->group;
}

CpuStat parse_cpu_stat(std::string_view text) {
  CpuStat stat;
  for (const auto line : split(text, '\n')) {
    const auto words = split_words(line);
    if (words.size() != 2) continue;
    const auto value = to_u64(words[1]).value_or(0);
    if (words[0] == "nr_periods") stat.nr_periods = value;
    if (words[0] == "nr_throttled") stat.nr_throttled = value;
    if (words[0] == "throttled_time") stat.throttled_ns = value;
    if (words[0] == "throttled_usec") stat.throttled_ns = value * 1000;
  }
  return stat;
}

Result<CpuQuota> parse_cpu_max(std::string_view text) {
  const auto words = split_words(text);
  const auto period = words.size() == 2 ? to_u64(words[1]) : std::nullopt;
  if (!period || *period == 0) return Error{"malformed cpu.max: '" + std::string(trim(text)) + "'"};
  CpuQuota quota;
  quota.period_us = *period;
  if (words[0] == "max") return quota;
  const auto limit = to_u64(words[0]);
  if (!limit) return Error{"malformed cpu.max: '" + std::string(trim(text)) + "'"};
  quota.quota_us = *limit;
  quota.cpus = static_cast<double>(*limit) / static_cast<double>(*period);
  return quota;
}

Result<CpuQuota> parse_cfs_quota(std::string_view quota_text, std::string_view period_text) {
  auto limit = parse_int(quota_text);
  const auto period = to_u64(period_text);
  if (!limit.ok() || !period || *period == 0) return Error{"malformed cpu.cfs_quota_us / cpu.cfs_period_us"};
  CpuQuota quota;
  quota.period_us = *period;
  if (*limit < 0) return quota;
  quota.quota_us = static_cast<std::uint64_t>(*limit);
  quota.cpus = static_cast<double>(*limit) / static_cast<double>(*period);
  return quota;
}

Result<CgroupRef> read_cpu_cgroup(const FsRoot& root, pid_t pid) {
  const std::string file = "/proc/" + std::to_string(pid) + "/cgroup";
  auto text = root.read(file);
  if (!text.ok()) return text.error();
  auto line = find_cpu_line(*text);
  if (!line) return Error{file + " names no cpu cgroup"};
  CgroupRef group = line->group;
  const auto dir = group.version == 1 ? find_stat_dir(root, v1_mounts(line->controllers), group.path)
                                      : find_stat_dir(root, {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}, group.path);
  if (!dir) return Error{"no cpu.stat for cgroup " + group.path + " under /sys/fs/cgroup"};
  group.stat_dir = *dir;
  return group;
}

std::vector<CgroupRef> with_ancestors(const CgroupRef& group) {
  std::vector<CgroupRef> groups;
  CgroupRef current = group;
  while (current.path != "/" && !current.path.empty()) {
    groups.push_back(current);
    const auto cut = current.path.rfind('/');
    const auto dir_cut = current.stat_dir.rfind('/');
    if (cut == std::string::npos || dir_cut == std::string::npos) break;
    current.path = cut == 0 ? "/" : current.path.substr(0, cut);
    current.stat_dir = current.stat_dir.substr(0, dir_cut);
  }
  return groups;
}

Result<CpuStat> read_cpu_stat(const FsRoot& root, const CgroupRef& group) {
  auto text = root.read(group.stat_dir + "/cpu.stat");
  if (!text.ok()) return text.error();
  return parse_cpu_stat(*text);
}

Result<CpuQuota> read_cpu_quota(const FsRoot& root, const CgroupRef& group) {
  if (group.version == 2) {
    auto text = root.read(group.stat_dir + "/cpu.max");
    if (!text.ok()) return text.error();
    return parse_cpu_max(*text);
  }
  auto quota = root.read(group.stat_dir + "/cpu.cfs_quota_us");
  if (!quota.ok()) return quota.error();
  auto period = root.read(group.stat_dir + "/cpu.cfs_period_us");
  if (!period.ok()) return period.error();
  return parse_cfs_quota(*quota, *period);
}

}  // namespace mptrain::monitor
