// The machine's layout as a plain struct: every PU (hardware thread) with the
// core, package, NUMA node and L3 cache it belongs to. Loaded through hwloc
// from this machine, an hwloc XML file or a synthetic description; the
// planner only ever sees the plain struct.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "util/cpu_set.hpp"
#include "util/names.hpp"
#include "util/result.hpp"

namespace mptrain::affinity {

// One processing unit (hardware thread) and where it lies.
struct Pu {
  int os_index = 0;   // the CPU number the kernel uses (sched_setaffinity, /proc)
  int core = 0;       // logical index of its core (machine-wide)
  int package = 0;    // logical index of its package (socket)
  int numa_node = 0;  // OS index of its NUMA node (as numactl and set_mempolicy use)
  int l3 = -1;        // logical index of its L3 cache, -1 when there is none
  int l2 = -1;        // logical index of its L2 cache, -1 when there is none
  int kind = -1;      // index of its CPU kind in Topology::kinds, -1 when hwloc knows none
};

// One cache of a level: its size and the PUs that share it.
struct Cache {
  CpuSet cpus;
  long long size_bytes = 0;  // 0 when hwloc does not know it
};

// The caches of one level ("L1d", "L1i", "L2", "L3", "L4"), in logical order.
struct CacheLevel {
  std::string name;
  std::vector<Cache> caches;
};

// What a kind of core is for: the fastest kind of a hybrid CPU, its others, or the only one there is.
enum class KindRole { performance, efficiency, only };

// Its names, as `topo` shows them.
inline constexpr std::array kind_role_names{Named<KindRole>{KindRole::performance, "performance"},
                                            Named<KindRole>{KindRole::efficiency, "efficiency"},
                                            Named<KindRole>{KindRole::only, "only"}};
// "performance", "efficiency" or "only".
std::string_view to_string(KindRole role);

// One kind of core (hwloc's CPU kinds: a hybrid CPU's performance and efficiency cores).
struct CpuKind {
  CpuSet cpus;
  KindRole role = KindRole::only;
  std::string core_type;  // hwloc's CoreType ("IntelCore", "IntelAtom"); "" when unknown
  int max_mhz = 0;        // hwloc's FrequencyMaxMHz; 0 when unknown
};

// The kinds of hwloc object a --cpus location can name (caches are data or unified caches).
enum class ObjectType { machine, package, numa, l3, l2, l1, core, pu };
inline constexpr int object_type_count = 8;

// A machine: its PUs in hwloc's logical order (package, NUMA node, cache,
// core, PU), which keeps neighbours in the list close in the hardware.
struct Topology {
  std::vector<Pu> pus;
  int packages = 0;
  int numa_nodes = 0;
  int cores = 0;
  int l3_caches = 0;
  std::string source;              // "this machine", "synthetic: DESC" or "xml: FILE"
  std::vector<CacheLevel> caches;  // data and unified caches by level, then instruction caches
  std::vector<CpuKind> kinds;      // the fastest kind first; empty when hwloc knows none
  std::vector<std::string> notes;  // how the description was read (a synthetic one without NUMA nodes)
  // For each ObjectType, the PUs (OS indexes) of every object of that type
  // in hwloc's logical order (see objects_of).
  std::array<std::vector<CpuSet>, object_type_count> objects;
};

// This machine's topology, including CPUs this process may not use; an Error
// with hwloc's errno when hwloc cannot discover it.
Result<Topology> load_live_topology();
// The topology described by hwloc XML document `xml` (the content of a file
// written by `lstopo --of xml`) from `source_name`; an Error when hwloc rejects it.
Result<Topology> load_xml_topology(std::string_view xml, std::string_view source_name);
// The most PUs a synthetic description may have: hwloc builds such a
// topology in time that grows faster than its size (4,096 PUs in about
// 0.1 s, 8,192 in 1 s, a million would hang), and 4,096 covers the largest
// machines sold.
inline constexpr long max_synthetic_pus = 4096;

// The topology of hwloc synthetic description `description` such as
// "package:2 core:8 pu:2"; an Error explaining the accepted form otherwise,
// or naming the limit when it has more than max_synthetic_pus PUs.
Result<Topology> load_synthetic_topology(std::string_view description);

// `bytes` in binary units as `topo` shows cache sizes: "48 KiB", "1.25 MiB", "32 MiB".
std::string size_text(long long bytes);
// Each cache level of `topology` in one line as `topo` shows it: the level,
// then each run of caches of one size as "SIZE x COUNT" and the PUs each
// shares ("one per core", or the caches' CPUs separated by " | "):
// "L3: 32 MiB x 2: CPUs 0-7 | 8-15".
std::vector<std::string> cache_lines(const Topology& topology);
// Each kind of core of `topology` in one line, the fastest first:
// "performance: CPUs 0-15 (IntelCore, up to 4900 MHz)".
std::vector<std::string> kind_lines(const Topology& topology);

// The OS indexes of all PUs of `topology` of kind `kind` (an index into `topology.kinds`).
CpuSet kind_cpus(const Topology& topology, int kind);

// The OS indexes of all PUs of `topology`.
CpuSet all_cpus(const Topology& topology);
// The OS indexes of the PUs of `topology` in package `package`.
CpuSet package_cpus(const Topology& topology, int package);
// The OS indexes of the PUs of `topology` in NUMA node `node`.
CpuSet numa_node_cpus(const Topology& topology, int node);
// The distinct NUMA node OS indexes of `topology`, in increasing order.
std::vector<int> numa_node_ids(const Topology& topology);
// The PUs (OS indexes) of each object of `type` in `topology`, in logical
// order (element 2 of objects_of(t, ObjectType::core) is core L#2); empty
// when the topology has no object of that type.
const std::vector<CpuSet>& objects_of(const Topology& topology, ObjectType type);

}  // namespace mptrain::affinity
