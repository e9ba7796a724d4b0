// Finding this process's cgroup (v1, v2 or a hybrid of both) through
// /proc/self/cgroup and /proc/self/mountinfo, and reading its cpuset and CPU
// quota, walking up nested cgroups.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "affinity/usable_cpus.hpp"
#include "util/text.hpp"

namespace mptrain::affinity {

namespace {

// One line of /proc/self/cgroup: "ID:CONTROLLERS:PATH".
struct Membership {
  std::string hierarchy;
  std::vector<std::string> controllers;  // empty for the v2 line "0::/path"
  std::string path;
};

// One cgroup or cgroup2 line of /proc/self/mountinfo.
struct Mount {
  std::string root;        // the cgroup shown at the mount point
  std::string mountpoint;  // where it is mounted
  bool v2 = false;
  std::vector<std::string> options;  // super options, naming v1 controllers
};

// Where a controller's files are: the process's cgroup directory and the
// mount point above which the walk up stops.
struct ControllerDir {
  CgroupVersion version = CgroupVersion::none;
  std::string cgroup_path;
  std::vector<std::string> dirs;  // kernel paths from the leaf up to the mount point
};

std::vector<std::string> to_strings(const std::vector<std::string_view>& views) { return {views.begin(), views.end()}; }

std::vector<Membership> parse_memberships(std::string_view text) {
  std::vector<Membership> out;
  for (std::string_view line : split(text, '\n')) {
    const auto first = line.find(':');
    const auto second = line.find(':', first == std::string_view::npos ? first : first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos) continue;
    Membership m;
    m.hierarchy = std::string(line.substr(0, first));
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    if (!controllers.empty()) m.controllers = to_strings(split(controllers, ','));
    m.path = std::string(trim(line.substr(second + 1)));
    out.push_back(std::move(m));
  }
  return out;
}

// Undoes mountinfo's octal escapes ("\040" for a space).
std::string unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 3 < text.size()) {
      const std::string_view digits = text.substr(i + 1, 3);
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out += static_cast<char>((digits[0] - '0') * 64 + (digits[1] - '0') * 8 + (digits[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::optional<Mount> parse_mount(std::string_view line) {
  const auto words = split_words(line);
  const auto dash = std::find(words.begin(), words.end(), "-");
  if (words.size() < 5 || dash == words.end() || words.end() - dash < 4) return std::nullopt;
  const std::string_view fstype = *(dash + 1);
  if (fstype != "cgroup" && fstype != "cgroup2") return std::nullopt;
  Mount mount;
  mount.root = unescape(words[3]);
  mount.mountpoint = unescape(words[4]);
  mount.v2 = fstype == "cgroup2";
  mount.options = to_strings(split(*(dash + 3), ','));
  return mount;
}

std::vector<Mount> parse_mounts(std::string_view text) {
  std::vector<Mount> out;
  for (std::string_view line : split(text, '\n')) {
    if (auto mount = parse_mount(line)) out.push_back(std::move(*mount));
  }
  return out;
}

bool has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// `path` relative to the mount's root, or `path` itself when the mount shows another subtree.
std::string relative_to(const std::string& path, const std::string& root) {
  if (root == "/") return path;
  if (path.compare(0, root.size(), root) == 0 && (path.size() == root.size() || path[root.size()] == '/')) {
    const std::string rest = path.substr(root.size());
    return rest.empty() ? "/" : rest;
  }
  return path;
}

// The directories from `mountpoint` + `relative` up to `mountpoint`.
std::vector<std::string> dirs_up(const std::string& mountpoint, const std::string& relative) {
  std::vector<std::string> parts;
  for (std::string_view part : split(relative, '/')) {
    if (!part.empty() && part != "." && part != "..") parts.emplace_back(part);
  }
  std::vector<std::string> out;
  for (std::size_t n = parts.size() + 1; n-- > 0;) {
    std::string dir = mountpoint;
    for (std::size_t i = 0; i < n; ++i) dir += "/" + parts[i];
    out.push_back(std::move(dir));
  }
  return out;
}

ControllerDir make_dir(CgroupVersion version, const Membership& member, const Mount& mount) {
  ControllerDir dir;
  dir.version = version;
  dir.cgroup_path = member.path;
  dir.dirs = dirs_up(mount.mountpoint, relative_to(member.path, mount.root));
  return dir;
}

// The mount among `mounts` matching `fits`, preferring one whose root holds `path`.
template <class Fits>
const Mount* find_mount(const std::vector<Mount>& mounts, const std::string& path, Fits fits) {
  const Mount* fallback = nullptr;
  for (const Mount& mount : mounts) {
    if (!fits(mount)) continue;
    if (relative_to(path, mount.root) != path || mount.root == "/") return &mount;
    if (fallback == nullptr) fallback = &mount;
  }
  return fallback;
}

// Where `controller`'s files are: its v1 hierarchy when it has one, else the v2 hierarchy.
std::optional<ControllerDir> find_controller(const std::vector<Membership>& members, const std::vector<Mount>& mounts,
                                             std::string_view controller) {
  for (const Membership& member : members) {
    if (!has(member.controllers, controller)) continue;
    const Mount* mount =
        find_mount(mounts, member.path, [&](const Mount& m) { return !m.v2 && has(m.options, controller); });
    if (mount != nullptr) return make_dir(CgroupVersion::v1, member, *mount);
  }
  for (const Membership& member : members) {
    if (member.hierarchy != "0" || !member.controllers.empty()) continue;
    const Mount* mount = find_mount(mounts, member.path, [](const Mount& m) { return m.v2; });
    if (mount != nullptr) return make_dir(CgroupVersion::v2, member, *mount);
  }
  return std::nullopt;
}

// A quota in CPUs read from one directory, or nullopt when it sets none.
std::optional<double> quota_in(const FsRoot& root, const ControllerDir& where, const std::string& dir,
                               std::string* file) {
  if (where.version == CgroupVersion::v2) {
    *file = dir + "/cpu.max";
    auto text = root.read(*file);
    if (!text.ok()) return std::nullopt;
    const auto words = split_words(*text);
    if (words.size() != 2 || words[0] == "max") return std::nullopt;
    auto quota = parse_int(words[0]);
    auto period = parse_int(words[1]);
    if (!quota.ok() || !period.ok() || *quota <= 0 || *period <= 0) return std::nullopt;
    return static_cast<double>(*quota) / static_cast<double>(*period);
  }
  *file = dir + "/cpu.cfs_quota_us";
  auto quota = root.read(*file);
  auto period = root.read(dir + "/cpu.cfs_period_us");
  if (!quota.ok() || !period.ok()) return std::nullopt;
  auto quota_us = parse_int(*quota);
  auto period_us = parse_int(*period);
  if (!quota_us.ok() || !period_us.ok() || *quota_us <= 0 || *period_us <= 0) return std::nullopt;
  return static_cast<double>(*quota_us) / static_cast<double>(*period_us);
}

// The smallest quota from the leaf up: a parent's quota bounds all of its children.
void read_quota(const FsRoot& root, const ControllerDir& where, CgroupCpuLimits& out) {
  for (const std::string& dir : where.dirs) {
    std::string file;
    const auto quota = quota_in(root, where, dir, &file);
    if (quota && (!out.quota_cpus || *quota < *out.quota_cpus)) {
      out.quota_cpus = quota;
      out.quota_file = file;
    }
  }
}

// The nearest cpuset from the leaf up (a child's cpuset is always inside its parent's).
void read_cpuset(const FsRoot& root, const ControllerDir& where, CgroupCpuLimits& out) {
  const std::vector<std::string> names = where.version == CgroupVersion::v2
                                             ? std::vector<std::string>{"cpuset.cpus.effective"}
                                             : std::vector<std::string>{"cpuset.effective_cpus", "cpuset.cpus"};
  for (const std::string& dir : where.dirs) {
    for (const std::string& name : names) {
      auto text = root.read(dir + "/" + name);
      if (!text.ok() || trim(*text).empty()) continue;
      auto cpus = CpuSet::parse(*text);
      if (!cpus.ok()) continue;
      out.cpuset = std::move(cpus).value();
      out.cpuset_file = dir + "/" + name;
      return;
    }
  }
}

}  // namespace

Result<CgroupCpuLimits> read_cgroup_limits(const FsRoot& root) {
  auto cgroup_text = root.read("/proc/self/cgroup");
  if (!cgroup_text.ok()) return cgroup_text.error();
  auto mount_text = root.read("/proc/self/mountinfo");
  if (!mount_text.ok()) return mount_text.error();
  const auto members = parse_memberships(*cgroup_text);
  const auto mounts = parse_mounts(*mount_text);
  CgroupCpuLimits out;
  const auto cpu = find_controller(members, mounts, "cpu");
  const auto cpuset = find_controller(members, mounts, "cpuset");
  if (cpu) {
    out.version = cpu->version;
    out.path = cpu->cgroup_path;
    read_quota(root, *cpu, out);
  }
  if (cpuset) {
    if (!cpu) out.version = cpuset->version;
    if (!cpu) out.path = cpuset->cgroup_path;
    read_cpuset(root, *cpuset, out);
  }
  return out;
}

}  // namespace mptrain::affinity
