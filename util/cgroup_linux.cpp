// Locating cgroups through /proc/PID/cgroup and /proc/self/mountinfo, and
// reading the CPU controller's files (see cgroup.hpp).
#include <fmt/format.h>

#include <algorithm>

#include "util/cgroup.hpp"
#include "util/text.hpp"

namespace mptrain {

namespace {

std::vector<std::string> to_strings(const std::vector<std::string_view>& views) { return {views.begin(), views.end()}; }

bool has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
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

// One mountinfo line: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [TAGS…] - FSTYPE SOURCE SUPER_OPTIONS".
std::optional<CgroupMount> parse_mount(std::string_view line) {
  const auto words = split_words(line);
  const auto dash = std::find(words.begin(), words.end(), "-");
  if (words.size() < 5 || dash == words.end() || words.end() - dash < 4) return std::nullopt;
  const std::string_view fstype = *(dash + 1);
  if (fstype != "cgroup" && fstype != "cgroup2") return std::nullopt;
  CgroupMount mount;
  mount.root = unescape(words[3]);
  mount.mountpoint = unescape(words[4]);
  mount.v2 = fstype == "cgroup2";
  mount.options = to_strings(split(*(dash + 3), ','));
  return mount;
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

// The path components of `path` ("/a/b" → {"a", "b"}).
std::vector<std::string> components(std::string_view path) {
  std::vector<std::string> parts;
  for (std::string_view part : split(path, '/')) {
    if (!part.empty() && part != "." && part != "..") parts.emplace_back(part);
  }
  return parts;
}

// "/" + the first `n` of `parts` joined by '/'.
std::string join(std::string_view prefix, const std::vector<std::string>& parts, std::size_t n) {
  std::string out(prefix);
  for (std::size_t i = 0; i < n; ++i) out += "/" + parts[i];
  return out;
}

// The levels from `member`'s cgroup up to what `mount` shows at its mount point.
CgroupLocation make_location(CgroupVersion version, const CgroupMembership& member, const CgroupMount& mount) {
  const std::vector<std::string> below_mount = components(relative_to(member.path, mount.root));
  const std::vector<std::string> whole = components(member.path);
  CgroupLocation location;
  location.version = version;
  for (std::size_t n = below_mount.size() + 1; n-- > 0;) {
    // The cgroup path keeps the components above the mount's root (a container's "/docker/ID").
    const std::size_t depth = whole.size() >= below_mount.size() ? whole.size() - below_mount.size() + n : n;
    std::string path = join("", whole, std::min(depth, whole.size()));
    location.levels.push_back(CgroupLevel{path.empty() ? "/" : path, join(mount.mountpoint, below_mount, n)});
  }
  return location;
}

// The mount among `mounts` matching `fits`, preferring one whose root holds `path`.
template <class Fits>
const CgroupMount* find_mount(const std::vector<CgroupMount>& mounts, const std::string& path, Fits fits) {
  const CgroupMount* fallback = nullptr;
  for (const CgroupMount& mount : mounts) {
    if (!fits(mount)) continue;
    if (relative_to(path, mount.root) != path || mount.root == "/") return &mount;
    if (fallback == nullptr) fallback = &mount;
  }
  return fallback;
}

Result<std::string> read_trimmed(const FsRoot& root, const std::string& file) {
  auto text = root.read(file);
  if (!text.ok()) return text.error();
  return std::string(trim(*text));
}

}  // namespace

int version_number(CgroupVersion version) {
  switch (version) {
    case CgroupVersion::v1:
      return 1;
    case CgroupVersion::v2:
      return 2;
    case CgroupVersion::none:
      break;
  }
  return 0;
}

std::string CgroupLocation::path() const { return levels.empty() ? std::string() : levels.front().path; }

std::string CgroupLocation::key() const { return levels.empty() ? std::string() : key_of(levels.front()); }

std::string CgroupLocation::key_of(const CgroupLevel& level) const {
  return fmt::format("v{}:{}", version_number(version), level.path);
}

std::vector<CgroupMembership> parse_proc_cgroup(std::string_view text) {
  std::vector<CgroupMembership> out;
  for (std::string_view line : split(text, '\n')) {
    const auto first = line.find(':');
    const auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    CgroupMembership member;
    member.hierarchy = std::string(line.substr(0, first));
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    if (!controllers.empty()) member.controllers = to_strings(split(controllers, ','));
    member.path = std::string(trim(line.substr(second + 1)));
    out.push_back(std::move(member));
  }
  return out;
}

std::vector<CgroupMount> parse_cgroup_mounts(std::string_view mountinfo) {
  std::vector<CgroupMount> out;
  for (std::string_view line : split(mountinfo, '\n')) {
    if (auto mount = parse_mount(line)) out.push_back(std::move(*mount));
  }
  return out;
}

std::optional<CgroupLocation> locate_in(const std::vector<CgroupMembership>& memberships,
                                        const std::vector<CgroupMount>& mounts, CgroupVersion version,
                                        std::string_view controller) {
  if (version == CgroupVersion::v1) {
    for (const CgroupMembership& member : memberships) {
      if (!has(member.controllers, controller)) continue;
      const CgroupMount* mount =
          find_mount(mounts, member.path, [&](const CgroupMount& m) { return !m.v2 && has(m.options, controller); });
      if (mount != nullptr) return make_location(CgroupVersion::v1, member, *mount);
    }
  }
  if (version == CgroupVersion::v2) {
    for (const CgroupMembership& member : memberships) {
      if (member.hierarchy != "0" || !member.controllers.empty()) continue;
      const CgroupMount* mount = find_mount(mounts, member.path, [](const CgroupMount& m) { return m.v2; });
      if (mount != nullptr) return make_location(CgroupVersion::v2, member, *mount);
    }
  }
  return std::nullopt;
}

std::optional<CgroupLocation> locate_controller(const std::vector<CgroupMembership>& memberships,
                                                const std::vector<CgroupMount>& mounts, std::string_view controller) {
  if (auto v1 = locate_in(memberships, mounts, CgroupVersion::v1, controller)) return v1;
  return locate_in(memberships, mounts, CgroupVersion::v2, controller);
}

Result<CgroupLocator> CgroupLocator::open(const FsRoot& root) {
  auto text = root.read("/proc/self/mountinfo");
  if (!text.ok()) return text.error();
  return CgroupLocator(root, parse_cgroup_mounts(*text));
}

Result<std::optional<CgroupLocation>> CgroupLocator::locate(pid_t pid, std::string_view controller) const {
  const std::string file = pid == 0 ? "/proc/self/cgroup" : fmt::format("/proc/{}/cgroup", pid);
  auto text = root_.read(file);
  if (!text.ok()) return text.error();
  return locate_controller(parse_proc_cgroup(*text), mounts_, controller);
}

Result<std::optional<CgroupLocation>> CgroupLocator::locate_in(pid_t pid, CgroupVersion version,
                                                               std::string_view controller) const {
  const std::string file = pid == 0 ? "/proc/self/cgroup" : fmt::format("/proc/{}/cgroup", pid);
  auto text = root_.read(file);
  if (!text.ok()) return text.error();
  return mptrain::locate_in(parse_proc_cgroup(*text), mounts_, version, controller);
}

CpuStat parse_cpu_stat(std::string_view text) {
  CpuStat stat;
  for (const auto line : split(text, '\n')) {
    const auto words = split_words(line);
    if (words.size() != 2) continue;
    const auto value = parse_u64(words[1]).value_or(0);
    if (words[0] == "nr_periods") stat.nr_periods = value;
    if (words[0] == "nr_throttled") stat.nr_throttled = value;
    if (words[0] == "throttled_time") stat.throttled_ns = value;
    if (words[0] == "throttled_usec") stat.throttled_ns = value * 1000;
  }
  return stat;
}

Result<CpuQuota> parse_cpu_max(std::string_view text) {
  const auto words = split_words(text);
  const auto period = words.size() == 2 ? parse_u64(words[1]) : std::nullopt;
  if (!period || *period == 0) return Error{"malformed cpu.max: '" + std::string(trim(text)) + "'"};
  CpuQuota quota;
  quota.period_us = *period;
  if (words[0] == "max") return quota;
  const auto limit = parse_u64(words[0]);
  if (!limit || *limit == 0) return Error{"malformed cpu.max: '" + std::string(trim(text)) + "'"};
  quota.quota_us = *limit;
  quota.cpus = static_cast<double>(*limit) / static_cast<double>(*period);
  return quota;
}

Result<CpuQuota> parse_cfs_quota(std::string_view quota_text, std::string_view period_text) {
  auto limit = parse_int(quota_text);
  const auto period = parse_u64(trim(period_text));
  if (!limit.ok() || !period || *period == 0 || *limit == 0) {
    return Error{"malformed cpu.cfs_quota_us / cpu.cfs_period_us"};
  }
  CpuQuota quota;
  quota.period_us = *period;
  if (*limit < 0) return quota;
  quota.quota_us = static_cast<std::uint64_t>(*limit);
  quota.cpus = static_cast<double>(*limit) / static_cast<double>(*period);
  return quota;
}

std::string quota_file(CgroupVersion version, std::string_view dir) {
  return std::string(dir) + (version == CgroupVersion::v2 ? "/cpu.max" : "/cpu.cfs_quota_us");
}

Result<CpuQuota> read_cpu_quota(const FsRoot& root, CgroupVersion version, std::string_view dir) {
  const std::string file = quota_file(version, dir);
  auto text = read_trimmed(root, file);
  if (!text.ok()) return text.error();
  Result<CpuQuota> quota = Error{};
  if (version == CgroupVersion::v2) {
    quota = parse_cpu_max(*text);
  } else {
    auto period = read_trimmed(root, std::string(dir) + "/cpu.cfs_period_us");
    if (!period.ok()) return period.error();
    quota = parse_cfs_quota(*text, *period);
  }
  if (!quota.ok()) return Error{root.path(file).string() + ": " + quota.error().message};
  return quota;
}

Result<CpuStat> read_cpu_stat(const FsRoot& root, std::string_view dir) {
  auto text = root.read(std::string(dir) + "/cpu.stat");
  if (!text.ok()) return text.error();
  return parse_cpu_stat(*text);
}

}  // namespace mptrain
