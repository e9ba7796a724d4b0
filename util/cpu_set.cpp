#include "util/cpu_set.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

#include "util/text.hpp"

namespace mptrain {

CpuSet::CpuSet(std::vector<int> cpus) : cpus_(std::move(cpus)) {
  std::sort(cpus_.begin(), cpus_.end());
  cpus_.erase(std::unique(cpus_.begin(), cpus_.end()), cpus_.end());
}

namespace {

Result<int> parse_cpu_number(std::string_view text, std::string_view whole) {
  auto value = parse_int(text);
  if (!value.ok() || *value < 0) {
    return Error{"bad CPU number '" + std::string(text) + "' in CPU list '" + std::string(whole) + "'"};
  }
  if (*value >= max_cpus) {
    return Error{"CPU number " + std::to_string(*value) + " in CPU list '" + std::string(whole) + "' is beyond " +
                 std::to_string(max_cpus - 1) + ", the largest Linux supports"};
  }
  return static_cast<int>(*value);
}

}  // namespace

Result<CpuSet> CpuSet::parse(std::string_view text) {
  std::vector<int> cpus;
  const std::string_view whole = trim(text);
  if (whole.empty()) return CpuSet();
  for (std::string_view part : split(whole, ',')) {
    part = trim(part);
    const auto dash = part.find('-');
    auto first = parse_cpu_number(part.substr(0, dash), whole);
    if (!first.ok()) return first.error();
    int last = *first;
    if (dash != std::string_view::npos) {
      auto end = parse_cpu_number(part.substr(dash + 1), whole);
      if (!end.ok()) return end.error();
      last = *end;
    }
    if (last < *first)
      return Error{"descending range '" + std::string(part) + "' in CPU list '" + std::string(whole) + "'"};
    for (int cpu = *first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  return CpuSet(std::move(cpus));
}

CpuSet CpuSet::range(int first, int last) {
  std::vector<int> cpus;
  for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  return CpuSet(std::move(cpus));
}

std::string CpuSet::to_string() const {
  std::string out;
  for (std::size_t i = 0; i < cpus_.size();) {
    std::size_t j = i;
    while (j + 1 < cpus_.size() && cpus_[j + 1] == cpus_[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus_[i]);
    if (j > i) out += '-' + std::to_string(cpus_[j]);
    i = j + 1;
  }
  return out;
}

bool CpuSet::contains(int cpu) const { return std::binary_search(cpus_.begin(), cpus_.end(), cpu); }

CpuSet CpuSet::intersect(const CpuSet& other) const {
  std::vector<int> out;
  std::set_intersection(cpus_.begin(), cpus_.end(), other.cpus_.begin(), other.cpus_.end(), std::back_inserter(out));
  return CpuSet(std::move(out));
}

CpuSet CpuSet::unite(const CpuSet& other) const {
  std::vector<int> out;
  std::set_union(cpus_.begin(), cpus_.end(), other.cpus_.begin(), other.cpus_.end(), std::back_inserter(out));
  return CpuSet(std::move(out));
}

CpuSet CpuSet::minus(const CpuSet& other) const {
  std::vector<int> out;
  std::set_difference(cpus_.begin(), cpus_.end(), other.cpus_.begin(), other.cpus_.end(), std::back_inserter(out));
  return CpuSet(std::move(out));
}

CpuSet CpuSet::first(int n) const {
  if (n >= size()) return *this;
  return CpuSet(std::vector<int>(cpus_.begin(), cpus_.begin() + std::max(n, 0)));
}

}  // namespace mptrain
