// Loading topologies through hwloc and flattening them into the plain
// Topology struct; the only file that includes hwloc.h.
#include <fmt/format.h>
#include <hwloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <optional>

#include "affinity/topology.hpp"
#include "util/cpu_set.hpp"
#include "util/text.hpp"

namespace mptrain::affinity {

namespace {

// Destroys an hwloc topology on scope exit.
struct HwlocDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};
using HwlocTopology = std::unique_ptr<hwloc_topology, HwlocDeleter>;

// hwloc's plugins, each a shared library with its own dependencies: I/O
// devices (mptrain keeps none) and the libxml2 XML reader (hwloc's built-in
// reader loads the XML that lstopo writes).
constexpr const char* unused_plugins =
    "hwloc_pci,hwloc_opencl,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero,hwloc_gl,hwloc_xml_libxml";

// hwloc_topology_init, without loading the plugins mptrain does not use
// (about a millisecond of every command's start-up, where `bench/launch.sh`
// counts). hwloc reads that list only from its environment, so it is set
// for the call and removed again (a user's own list wins); mptrain is still
// single-threaded here, and its workers never see the variable.
int init_without_unused_plugins(hwloc_topology_t* raw) {
  constexpr const char* variable = "HWLOC_PLUGINS_BLACKLIST";
  const bool users = std::getenv(variable) != nullptr;
  if (!users) ::setenv(variable, unused_plugins, 0);
  const int result = hwloc_topology_init(raw);
  const int error = errno;
  if (!users) ::unsetenv(variable);
  errno = error;
  return result;
}

// What hwloc writes to stderr while this lives, kept out of the user's
// terminal (mptrain is single-threaded while it loads a topology).
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    file_ = ::memfd_create("mptrain-hwloc-stderr", MFD_CLOEXEC);
    if (saved_ < 0 || file_ < 0 || ::dup2(file_, STDERR_FILENO) < 0) restore();
  }
  ~StderrCapture() { restore(); }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;

  // What was written so far as " (hwloc: …)", one line; "" when nothing was.
  std::string as_reason() {
    std::fflush(stderr);
    if (file_ < 0) return {};
    char text[1024];
    const ssize_t n = ::pread(file_, text, sizeof text - 1, 0);
    if (n <= 0) return {};
    std::string said(text, static_cast<std::size_t>(n));
    for (char& c : said) c = (c == '\n' || c == '\t') ? ' ' : c;
    while (!said.empty() && said.back() == ' ') said.pop_back();
    if (said.starts_with("hwloc: ")) said.erase(0, 7);
    return said.empty() ? std::string() : " (hwloc: " + said + ")";
  }

 private:
  void restore() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      ::dup2(saved_, STDERR_FILENO);
      ::close(saved_);
      saved_ = -1;
    }
    if (file_ >= 0) {
      ::close(file_);
      file_ = -1;
    }
  }
  int saved_ = -1;
  int file_ = -1;
};

Result<HwlocTopology> new_topology() {
  hwloc_topology_t raw = nullptr;
  if (init_without_unused_plugins(&raw) != 0) return errno_error("cannot initialise hwloc", "");
  HwlocTopology topology(raw);
  // Keep CPUs this process may not use: `topo` shows the whole machine and
  // the usable set is computed separately (affinity, cgroup, quota).
  hwloc_topology_set_flags(raw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  // Only CPU-side objects matter to the planner.
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  // Instruction caches too, which hwloc leaves out by default: `topo` shows every cache.
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  return topology;
}

int logical_ancestor(hwloc_topology_t topology, hwloc_obj_t pu, hwloc_obj_type_t type, int fallback) {
  hwloc_obj_t ancestor = hwloc_get_ancestor_obj_by_type(topology, type, pu);
  return ancestor != nullptr ? static_cast<int>(ancestor->logical_index) : fallback;
}

int count_of(hwloc_topology_t topology, hwloc_obj_type_t type) {
  return std::max(0, hwloc_get_nbobjs_by_type(topology, type));
}

Pu describe_pu(hwloc_topology_t topology, hwloc_obj_t pu) {
  Pu out;
  out.os_index = static_cast<int>(pu->os_index);
  out.core = logical_ancestor(topology, pu, HWLOC_OBJ_CORE, static_cast<int>(pu->logical_index));
  out.package = logical_ancestor(topology, pu, HWLOC_OBJ_PACKAGE, 0);
  out.numa_node = std::max(0, hwloc_bitmap_first(pu->nodeset));
  out.l3 = logical_ancestor(topology, pu, HWLOC_OBJ_L3CACHE, -1);
  out.l2 = logical_ancestor(topology, pu, HWLOC_OBJ_L2CACHE, -1);
  return out;
}

hwloc_obj_type_t hwloc_type_of(ObjectType type) {
  switch (type) {
    case ObjectType::machine:
      return HWLOC_OBJ_MACHINE;
    case ObjectType::package:
      return HWLOC_OBJ_PACKAGE;
    case ObjectType::numa:
      return HWLOC_OBJ_NUMANODE;
    case ObjectType::l3:
      return HWLOC_OBJ_L3CACHE;
    case ObjectType::l2:
      return HWLOC_OBJ_L2CACHE;
    case ObjectType::l1:
      return HWLOC_OBJ_L1CACHE;
    case ObjectType::core:
      return HWLOC_OBJ_CORE;
    case ObjectType::pu:
      return HWLOC_OBJ_PU;
  }
  return HWLOC_OBJ_PU;
}

// The OS indexes of the PUs in hwloc CPU set `cpuset`.
CpuSet os_cpus(hwloc_const_cpuset_t cpuset) {
  std::vector<int> cpus;
  for (int cpu = hwloc_bitmap_first(cpuset); cpu >= 0; cpu = hwloc_bitmap_next(cpuset, cpu)) cpus.push_back(cpu);
  return CpuSet(std::move(cpus));
}

// The PUs of every object of `type`, in logical order (what --cpus locations index).
std::vector<CpuSet> objects_by_type(hwloc_topology_t topology, ObjectType type) {
  std::vector<CpuSet> objects;
  const hwloc_obj_type_t hwloc_type = hwloc_type_of(type);
  const int count = count_of(topology, hwloc_type);
  for (int i = 0; i < count; ++i) {
    const hwloc_obj_t object = hwloc_get_obj_by_type(topology, hwloc_type, static_cast<unsigned>(i));
    objects.push_back(object != nullptr && object->cpuset != nullptr ? os_cpus(object->cpuset) : CpuSet());
  }
  return objects;
}

// The cache levels `topo` shows, as hwloc names their types.
struct CacheType {
  hwloc_obj_type_t type;
  const char* name;
};
constexpr std::array cache_types{CacheType{HWLOC_OBJ_L1CACHE, "L1d"}, CacheType{HWLOC_OBJ_L2CACHE, "L2"},
                                 CacheType{HWLOC_OBJ_L3CACHE, "L3"},  CacheType{HWLOC_OBJ_L4CACHE, "L4"},
                                 CacheType{HWLOC_OBJ_L5CACHE, "L5"},  CacheType{HWLOC_OBJ_L1ICACHE, "L1i"}};

// The largest cache size taken as known: 1 PiB.
constexpr std::uint64_t largest_cache_bytes = std::uint64_t{1} << 50;

// Every cache level of `topology` that has caches, with each cache's size and PUs.
std::vector<CacheLevel> cache_levels(hwloc_topology_t topology) {
  std::vector<CacheLevel> levels;
  for (const auto& type : cache_types) {
    CacheLevel level{type.name, {}};
    const int count = count_of(topology, type.type);
    for (int i = 0; i < count; ++i) {
      const hwloc_obj_t cache = hwloc_get_obj_by_type(topology, type.type, static_cast<unsigned>(i));
      if (cache == nullptr || cache->cpuset == nullptr) continue;
      // A size no cache has (a recorded file's, beyond 1 PiB) is unknown, never a negative number.
      const auto bytes = cache->attr != nullptr ? cache->attr->cache.size : 0;
      const auto size = bytes > largest_cache_bytes ? 0 : static_cast<long long>(bytes);
      level.caches.push_back({os_cpus(cache->cpuset), size});
    }
    if (!level.caches.empty()) levels.push_back(std::move(level));
  }
  return levels;
}

// The value of info `name` among `infos`, "" when absent.
std::string info_value(const hwloc_info_s* infos, unsigned count, std::string_view name) {
  for (unsigned i = 0; i < count; ++i) {
    if (infos[i].name != nullptr && infos[i].value != nullptr && name == infos[i].name) return infos[i].value;
  }
  return {};
}

// hwloc's CPU kinds of `topology`, fastest first: by hwloc's efficiency
// ranking, or, where hwloc could not rank them, by core type (Intel's
// "IntelCore" before "IntelAtom") and then maximum frequency. A single kind
// is the only one; none when hwloc knows none.
std::vector<CpuKind> cpu_kinds(hwloc_topology_t topology) {
  const int count = hwloc_cpukinds_get_nr(topology, 0);
  std::vector<std::pair<int, CpuKind>> ranked;  // (hwloc's efficiency, kind)
  hwloc_bitmap_t cpuset = hwloc_bitmap_alloc();
  for (int i = 0; i < count && cpuset != nullptr; ++i) {
    int efficiency = -1;
    unsigned infos_count = 0;
    hwloc_info_s* infos = nullptr;
    if (hwloc_cpukinds_get_info(topology, static_cast<unsigned>(i), cpuset, &efficiency, &infos_count, &infos, 0) != 0)
      continue;
    CpuKind kind;
    kind.cpus = os_cpus(cpuset);
    kind.core_type = info_value(infos, infos_count, "CoreType");
    kind.max_mhz = static_cast<int>(parse_int(info_value(infos, infos_count, "FrequencyMaxMHz")).value_or(0));
    ranked.emplace_back(efficiency, std::move(kind));
  }
  hwloc_bitmap_free(cpuset);
  const auto faster = [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    const bool a_core = a.second.core_type == "IntelCore";
    const bool b_core = b.second.core_type == "IntelCore";
    if (a_core != b_core) return a_core;
    return a.second.max_mhz > b.second.max_mhz;
  };
  std::stable_sort(ranked.begin(), ranked.end(), faster);
  std::vector<CpuKind> kinds;
  for (auto& [efficiency, kind] : ranked) {
    kind.role = ranked.size() == 1 ? KindRole::only : kinds.empty() ? KindRole::performance : KindRole::efficiency;
    kinds.push_back(std::move(kind));
  }
  return kinds;
}

// Marks each PU of `out` with the index of its kind.
void mark_kinds(Topology& out) {
  for (Pu& pu : out.pus) {
    for (std::size_t k = 0; k < out.kinds.size(); ++k) {
      if (out.kinds[k].cpus.contains(pu.os_index)) pu.kind = static_cast<int>(k);
    }
  }
}

Topology flatten(hwloc_topology_t topology, std::string source) {
  Topology out;
  const int pus = count_of(topology, HWLOC_OBJ_PU);
  for (int i = 0; i < pus; ++i) {
    out.pus.push_back(describe_pu(topology, hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, static_cast<unsigned>(i))));
  }
  out.packages = std::max(1, count_of(topology, HWLOC_OBJ_PACKAGE));
  out.numa_nodes = std::max(1, count_of(topology, HWLOC_OBJ_NUMANODE));
  out.cores = count_of(topology, HWLOC_OBJ_CORE);
  if (out.cores == 0) out.cores = pus;
  out.l3_caches = count_of(topology, HWLOC_OBJ_L3CACHE);
  for (int type = 0; type < object_type_count; ++type) {
    out.objects[static_cast<std::size_t>(type)] = objects_by_type(topology, static_cast<ObjectType>(type));
  }
  out.caches = cache_levels(topology);
  out.kinds = cpu_kinds(topology);
  mark_kinds(out);
  out.source = std::move(source);
  return out;
}

// The PUs a synthetic description asks for: the product of its levels'
// arities ("core:8" or a bare "8", in decimal; memory levels in brackets
// and attributes in parentheses add none), or nullopt when a level's arity
// is not such a number — then the description is refused before hwloc sees
// it, so nothing hwloc would count differently (a NUL byte, "0x10") slips
// past the bound. Stops counting once past `limit`.
std::optional<long> synthetic_pus(std::string_view description, long limit) {
  if (description.find('\0') != std::string_view::npos) return std::nullopt;
  long product = 1;
  for (std::string_view level : split_words(description)) {
    if (level.starts_with('[')) continue;
    const auto colon = level.find(':');
    // A type must start with a letter: hwloc reads "1111111111pu:2" as a bare arity of 1111111111.
    if (colon != std::string_view::npos && (colon == 0 || !std::isalpha(static_cast<unsigned char>(level[0])))) {
      return std::nullopt;
    }
    std::string_view arity = colon == std::string_view::npos ? level : level.substr(colon + 1);
    const auto digits = arity.find_first_not_of("0123456789");
    if (digits != std::string_view::npos && arity[digits] != '(') return std::nullopt;
    const auto count = parse_u64(arity.substr(0, digits));
    if (!count) return std::nullopt;
    product *= static_cast<long>(std::min<std::uint64_t>(*count, static_cast<std::uint64_t>(limit) + 1));
    if (product > limit) return product;
  }
  return product;
}

// Whether synthetic level `level` ("package:2", "numa:2", "[numa]") is of a
// type starting with one of `prefixes`, as hwloc reads types (case aside).
bool level_is(std::string_view level, std::initializer_list<std::string_view> prefixes) {
  std::string type(level.substr(0, level.find(':')));
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return type.starts_with(p); });
}

// `description` with a NUMA node attached to each package ("[numa]" after
// the package level) when it names packages but no NUMA level, as real
// machines have; nullopt when it needs none.
std::optional<std::string> with_numa_per_package(std::string_view description) {
  const auto levels = split_words(description);
  if (std::any_of(levels.begin(), levels.end(), [](auto level) { return level_is(level, {"[", "nu", "node"}); })) {
    return std::nullopt;
  }
  const auto package = std::find_if(levels.begin(), levels.end(), [](auto level) {
    return level_is(level, {"pa", "so"});
  });
  if (package == levels.end()) return std::nullopt;
  std::string out;
  for (auto it = levels.begin(); it != levels.end(); ++it) {
    if (!out.empty()) out += ' ';
    out += *it;
    if (it == package) out += " [numa]";
  }
  return out;
}

// The OS index of a PU of `topology` that mptrain cannot plan for (max_cpus or beyond), nullopt when none.
std::optional<unsigned> pu_beyond_bounds(hwloc_topology_t topology) {
  const int count = count_of(topology, HWLOC_OBJ_PU);
  for (int i = 0; i < count; ++i) {
    const hwloc_obj_t pu = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, static_cast<unsigned>(i));
    if (pu != nullptr && pu->os_index >= static_cast<unsigned>(max_cpus)) return pu->os_index;
  }
  return std::nullopt;
}

// The largest number in the "indexes=" lists of synthetic `description` (saturating), 0 when none:
// hwloc sizes its bitmaps by them before anything can be checked (4294967295 took 4.7 GB or crashed).
unsigned long long largest_synthetic_index(std::string_view description) {
  unsigned long long largest = 0;
  for (auto at = description.find("indexes="); at != std::string_view::npos;
       at = description.find("indexes=", at + 1)) {
    unsigned long long number = 0;
    for (auto i = at + 8; i < description.size() && description[i] != ')' && description[i] != ' '; ++i) {
      const char c = description[i];
      if (c >= '0' && c <= '9') {
        number = number > 1'000'000'000'000ULL ? number : number * 10 + static_cast<unsigned>(c - '0');
        largest = std::max(largest, number);
      } else {
        number = 0;
      }
    }
  }
  return largest;
}

Result<Topology> load(HwlocTopology topology, std::string source) {
  if (hwloc_topology_load(topology.get()) != 0) return errno_error("hwloc cannot load the topology of", source);
  if (const auto index = pu_beyond_bounds(topology.get())) {
    return Error{fmt::format("the topology of {} has a PU numbered {}, beyond the {} CPUs mptrain plans for", source,
                             *index, max_cpus),
                 ERANGE};
  }
  Topology out = flatten(topology.get(), std::move(source));
  if (out.pus.empty()) return Error{"the topology of " + out.source + " has no PU"};
  return out;
}

}  // namespace

Result<Topology> load_live_topology() {
  auto topology = new_topology();
  if (!topology.ok()) return topology.error();
  return load(std::move(topology).value(), "this machine");
}

Result<Topology> load_xml_topology(std::string_view xml, std::string_view source_name) {
  auto topology = new_topology();
  if (!topology.ok()) return topology.error();
  const std::string buffer(xml);
  const std::string source = "xml: " + std::string(source_name);
  // hwloc says why it refuses a file on stderr; that goes into our message instead.
  StderrCapture hwloc_says;
  if (hwloc_topology_set_xmlbuffer(topology->get(), buffer.c_str(), static_cast<int>(buffer.size() + 1)) != 0) {
    return Error{std::string(source_name) + " is not an hwloc XML topology" + hwloc_says.as_reason() +
                 " (write one with 'lstopo --of xml FILE')"};
  }
  auto loaded = load(std::move(topology).value(), source);
  if (!loaded.ok() && loaded.error().code != ERANGE) {
    return Error{std::string(source_name) + " is not a valid hwloc XML topology" + hwloc_says.as_reason() +
                 " (write one with 'lstopo --of xml FILE')"};
  }
  return loaded;
}

Result<Topology> load_synthetic_topology(std::string_view description) {
  auto topology = new_topology();
  if (!topology.ok()) return topology.error();
  const std::string text(description);
  if (const auto index = largest_synthetic_index(text); index >= static_cast<unsigned long long>(max_cpus)) {
    return Error{fmt::format("synthetic topology '{}' numbers a PU {}, beyond the {} CPUs mptrain plans for", text,
                             index, max_cpus)};
  }
  const auto pus = synthetic_pus(text, max_synthetic_pus);
  if (pus && *pus > max_synthetic_pus) {
    return Error{fmt::format("synthetic topology '{}' has more than {} PUs, the most mptrain plans for", text,
                             max_synthetic_pus)};
  }
  const auto numa = pus ? with_numa_per_package(text) : std::nullopt;
  const std::string& read = numa ? *numa : text;
  if (!pus || text.find_first_not_of(" \t") == std::string::npos ||
      hwloc_topology_set_synthetic(topology->get(), read.c_str()) != 0) {
    return Error{"bad synthetic topology '" + text +
                 "': give levels and counts from the top down, such as \"package:2 core:8 pu:2\" or "
                 "\"package:2 numa:2 l3:1 core:4 pu:2\""};
  }
  auto loaded = load(std::move(topology).value(), "synthetic: " + text);
  if (loaded.ok() && numa) {
    loaded->notes.push_back(
        fmt::format("'{}' names no NUMA level: read as '{}', one NUMA node per package (write "
                    "the NUMA level yourself, such as numa:2 inside a package, for another layout)",
                    text, *numa));
  }
  return loaded;
}

}  // namespace mptrain::affinity
