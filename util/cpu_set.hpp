// A set of CPU numbers and its "list string" form ("0-3,8"), as used by
// /sys, /proc/PID/status (Cpus_allowed_list), cgroup cpusets and taskset;
// parsing also takes the kernel's strided ranges ("0-15:2", "0-15:2/4").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace mptrain {

// How many CPU (and NUMA node) numbers exist at most: Linux's largest
// NR_CPUS on x86-64 is 8192, so CPU numbers run from 0 to 8191.
inline constexpr int max_cpus = 8192;

// An ordered set of non-negative CPU numbers.
class CpuSet {
 public:
  CpuSet() = default;
  // Builds a set from `cpus` in any order; duplicates are dropped.
  explicit CpuSet(std::vector<int> cpus);

  // Parses a list string such as "0-3,8,10-11" (whitespace and a trailing
  // newline allowed, "" is the empty set), with the kernel's strides:
  // "0-15:2" is every second CPU of 0-15 and "0-15:2/4" the first two of
  // every four; returns an Error naming the bad part (a CPU number must be
  // below max_cpus, a stride at least 1 and a group no smaller than it uses).
  static Result<CpuSet> parse(std::string_view text);
  // The CPUs first..last inclusive.
  static CpuSet range(int first, int last);

  // The list string with ranges collapsed, e.g. "0-3,8"; "" when empty: the
  // kernel's plain form, only for what other programs read (the environment,
  // numactl's and taskset's arguments: numactl reads no strides) and kernel files.
  std::string to_string() const;
  // The list string for people and JSON: the plain form (to_string) while it
  // is at most readable_list_length characters, which a reader takes in at a
  // glance ("0-1,4-5,8-9,12-13"); past that the shortest string parse reads
  // back to this set, strides included ("0-62:2" for 0,2,…,62; "0-15:2/4"
  // for 0,1,4,5,…). Parts cover runs of consecutive members, so a set that
  // interleaves two strides may print longer than it could; ties go to the
  // plain form, and a used/group pattern needs three groups.
  std::string to_short_string() const;
  static constexpr std::size_t readable_list_length = 32;
  // The CPU numbers in increasing order.
  const std::vector<int>& cpus() const { return cpus_; }
  int size() const { return static_cast<int>(cpus_.size()); }
  bool empty() const { return cpus_.empty(); }
  // True when `cpu` is in the set.
  bool contains(int cpu) const;
  // The CPUs in both sets.
  CpuSet intersect(const CpuSet& other) const;
  // The CPUs in either set.
  CpuSet unite(const CpuSet& other) const;
  // The CPUs of this set that are not in `other`.
  CpuSet minus(const CpuSet& other) const;
  // The first `n` CPUs of the set (all when `n` >= size()).
  CpuSet first(int n) const;

  bool operator==(const CpuSet&) const = default;

 private:
  std::vector<int> cpus_;
};

// The short form (CpuSet::to_short_string) of a list string read from the
// kernel, such as /proc/PID/status's Cpus_allowed_list; `list` as it is when
// it does not parse.
std::string short_cpu_list(std::string_view list);

}  // namespace mptrain
