// What `--cpus` selects: kernel CPU lists ("0-3,8", "0-15:2") and hwloc
// locations ("core:0-3", "numa:1", "core:0-1.pu:0") as hwloc-calc writes
// them, parsed without a topology and resolved against one to the OS indexes
// of their PUs.
//
// A selection is words separated by whitespace, united. A word that starts
// with a digit is a kernel CPU list (util/cpu_set.hpp); a word that starts
// with a letter is a location: TYPE:INDEXES, optionally followed by
// .TYPE:INDEXES steps that choose inside each object the step before chose.
// TYPE is pu, core, l1, l2, l3, numa, package (socket) or machine (hwloc's
// longer names such as numanode and l3cache too, in any case). INDEXES are
// hwloc logical indexes, counted over the whole topology that `mptrain topo`
// shows (disallowed PUs included, as `hwloc-calc --disallowed` counts), and
// relative to the parent object in later steps: comma-separated items, each
// X, X-Y, X- (X to the last), X:N (N objects from X, wrapping around), all,
// odd or even.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "affinity/topology.hpp"
#include "util/cpu_set.hpp"
#include "util/result.hpp"

namespace mptrain::affinity {

// How one index item of a location is written.
enum class IndexForm {
  range,  // "X" (first = last = X) or "X-Y"
  from,   // "X-": X to the last object
  count,  // "X:N": N objects from X, wrapping around the end
  all,    // "all"
  odd,    // "odd"
  even,   // "even"
};

// One comma-separated index item of a location step.
struct IndexItem {
  IndexForm form = IndexForm::range;
  int first = 0;  // X
  int last = 0;   // Y for range, N for count
};

// One TYPE:INDEXES step of a location.
struct LocationStep {
  ObjectType type = ObjectType::pu;
  std::vector<IndexItem> indexes;
};

// A location such as "core:0-1.pu:0": its steps, outermost first, and its text.
struct Location {
  std::vector<LocationStep> steps;
  std::string text;
};

// A parsed --cpus value: the CPUs of its kernel lists and its locations.
struct CpuSelection {
  CpuSet cpus;                      // the union of its kernel-list words
  std::vector<Location> locations;  // its location words, resolved against a topology
  std::string text;                 // as typed, for messages
};

// The object type `name` names ("core", "numa", "socket", "L3Cache", any
// case); an Error listing the names accepted otherwise.
Result<ObjectType> parse_object_type(std::string_view name);
// The short name of `type` as locations write it: "core", "numa", "l3", ….
std::string_view to_string(ObjectType type);

// Parses `text` (whitespace-separated kernel CPU lists and locations); an
// Error naming the bad word and the form expected, or saying that `text`
// has no word.
Result<CpuSelection> parse_cpu_selection(std::string_view text);

// The OS indexes of every PU `selection` names in `topology`; an Error
// naming the location that names no object, or no PU, of `topology` and
// saying which objects exist (e.g. "numa:3: this machine has NUMA nodes 0-1").
Result<CpuSet> resolve_cpu_selection(const CpuSelection& selection, const Topology& topology);

}  // namespace mptrain::affinity
