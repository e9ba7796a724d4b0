#include "util/cpu_set.hpp"

#include <fmt/format.h>

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

// Which CPUs of a range a part takes: the first `used` of every `group`
// ("A-B" is 1/1, "A-B:S" is 1/S, "A-B:U/G" is U/G).
struct Stride {
  int used = 1;
  int group = 1;
};

// The count `text` (a stride, or the USED or GROUP of "A-B:USED/GROUP") in
// `part`: a whole number from `least` to max_cpus; an Error naming it otherwise.
Result<int> parse_count(std::string_view text, std::string_view what, int least, std::string_view part,
                        std::string_view whole) {
  auto value = parse_int(text);
  if (!value.ok() || *value < least || *value > max_cpus) {
    return Error{fmt::format("bad {} '{}' in '{}' of CPU list '{}': give a whole number from {} to {}", what,
                             trim(text), part, whole, least, max_cpus)};
  }
  return static_cast<int>(*value);
}

// The stride after the colon of `part` ("S" or "USED/GROUP"); an Error for a
// zero or malformed stride, or a group smaller than what it uses.
Result<Stride> parse_stride(std::string_view text, std::string_view part, std::string_view whole) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) {
    auto step = parse_count(text, "stride", 1, part, whole);
    if (!step.ok()) return step.error();
    return Stride{1, *step};
  }
  auto used = parse_count(text.substr(0, slash), "count of CPUs used per group", 1, part, whole);
  if (!used.ok()) return used.error();
  auto group = parse_count(text.substr(slash + 1), "group size", 1, part, whole);
  if (!group.ok()) return group.error();
  if (*used > *group) {
    return Error{
        fmt::format("'{}' in CPU list '{}' takes {} CPUs of every group of {}; a group must be at least as "
                    "large as what it uses",
                    part, whole, *used, *group)};
  }
  return Stride{*used, *group};
}

// Adds the CPUs of `part` of CPU list `whole` to `cpus`: "A", "A-B", "A-B:S"
// or "A-B:USED/GROUP" (the forms of the kernel's cpuset lists); an Error
// naming the bad part otherwise.
Status add_part(std::string_view part, std::string_view whole, std::vector<int>& cpus) {
  const auto colon = part.find(':');
  const std::string_view range = part.substr(0, colon);
  const auto dash = range.find('-');
  if (colon != std::string_view::npos && dash == std::string_view::npos) {
    return Error{fmt::format(
        "stride without a range in '{}' of CPU list '{}': write it as FIRST-LAST:STRIDE, such as 0-15:2", part, whole)};
  }
  auto first = parse_cpu_number(range.substr(0, dash), whole);
  if (!first.ok()) return first.error();
  int last = *first;
  if (dash != std::string_view::npos) {
    auto end = parse_cpu_number(range.substr(dash + 1), whole);
    if (!end.ok()) return end.error();
    last = *end;
  }
  if (last < *first) {
    return Error{"descending range '" + std::string(part) + "' in CPU list '" + std::string(whole) + "'"};
  }
  Stride stride;
  if (colon != std::string_view::npos) {
    auto parsed = parse_stride(part.substr(colon + 1), part, whole);
    if (!parsed.ok()) return parsed.error();
    stride = *parsed;
  }
  for (int start = *first; start <= last; start += stride.group) {
    for (int cpu = start; cpu < start + stride.used && cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  return ok_status();
}

}  // namespace

Result<CpuSet> CpuSet::parse(std::string_view text) {
  std::vector<int> cpus;
  const std::string_view whole = trim(text);
  if (whole.empty()) return CpuSet();
  for (std::string_view part : split(whole, ',')) {
    auto added = add_part(trim(part), whole, cpus);
    if (!added.ok()) return added.error();
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

namespace {

// The forms of a part of a short list string.
enum class Form { single, range, stride, pattern };

// One part of a short list string: members [begin, end) of a set written as
// "A" (single), "A-B" (range), "A-B:S" (stride) or "A-B:U/G" (pattern).
struct Part {
  std::size_t end = 0;
  Form form = Form::single;
  int step = 0;    // S, or G of a pattern
  int used = 0;    // U of a pattern
  int length = 0;  // characters
};

int digits(int value) { return value < 10 ? 1 : 1 + digits(value / 10); }

// How far before its longest a part may end: ending a part early only pays
// where the next part can then start a member sooner.
constexpr std::size_t early_ends = 64;

// Adds to `parts` each part of `form` that starts at member `i` of `cpus` and
// ends at `longest` or up to early_ends members (but at least `least` members) sooner.
void add_ends(const std::vector<int>& cpus, std::size_t i, std::size_t longest, std::size_t least, Part part,
              std::vector<Part>& parts) {
  const int fixed = part.form == Form::stride    ? 2 + digits(part.step)
                    : part.form == Form::pattern ? 3 + digits(part.used) + digits(part.step)
                                                 : 1;
  for (std::size_t end = longest; end >= i + least && end + early_ends >= longest; --end) {
    part.end = end;
    part.length = digits(cpus[i]) + fixed + digits(cpus[end - 1]);
    parts.push_back(part);
  }
}

// Every part that starts at member `i` of `cpus` (sorted, distinct); a
// used/group pattern only when it reaches a third group.
void parts_from(const std::vector<int>& cpus, std::size_t i, std::vector<Part>& parts) {
  const std::size_t n = cpus.size();
  std::size_t j = i + 1;  // the end of the run of consecutive members
  while (j < n && cpus[j] == cpus[j - 1] + 1) ++j;
  add_ends(cpus, i, j, 2, {0, Form::range, 0, 0, 0}, parts);  // before "A", so "0-1" wins over "0,1"
  parts.push_back({i + 1, Form::single, 0, 0, digits(cpus[i])});
  if (i + 1 >= n) return;
  const int step = cpus[i + 1] - cpus[i];
  if (step >= 2) {
    std::size_t k = i + 2;
    while (k < n && cpus[k] - cpus[k - 1] == step) ++k;
    add_ends(cpus, i, k, 3, {0, Form::stride, step, 0, 0}, parts);
  }
  // The first U = (the run's length) of every G members, the last group possibly cut short.
  const int run = static_cast<int>(j - i);
  if (run < 2 || j >= n) return;
  const int group = cpus[j] - cpus[i];
  std::size_t k = j;
  std::size_t third = 0;  // where the third group starts: a pattern of two groups reads worse than two ranges
  for (int start = cpus[j]; k < n && cpus[k] == start; start += group) {
    if (start == cpus[j] + group) third = k;
    int used = 0;
    while (k < n && used < run && cpus[k] == start + used) ++k, ++used;
    if (used < run) break;
  }
  if (third != 0) add_ends(cpus, i, k, third - i + 1, {0, Form::pattern, group, run, 0}, parts);
}

std::string part_text(const std::vector<int>& cpus, std::size_t i, const Part& part) {
  const int first = cpus[i];
  const int last = cpus[part.end - 1];
  switch (part.form) {
    case Form::single:
      return std::to_string(first);
    case Form::range:
      return fmt::format("{}-{}", first, last);
    case Form::stride:
      return fmt::format("{}-{}:{}", first, last, part.step);
    case Form::pattern:
      return fmt::format("{}-{}:{}/{}", first, last, part.used, part.step);
  }
  return {};
}

}  // namespace

std::string CpuSet::to_short_string() const {
  if (auto plain = to_string(); plain.size() <= readable_list_length) return plain;
  // shortest[i]: the length of the shortest text for members i.., and its first part.
  const std::size_t n = cpus_.size();
  std::vector<int> shortest(n + 1, 0);
  std::vector<Part> choice(n);
  std::vector<Part> parts;
  for (std::size_t i = n; i-- > 0;) {
    parts.clear();
    parts_from(cpus_, i, parts);
    // Plain forms come first in `parts`, so a tie keeps them.
    std::stable_sort(parts.begin(), parts.end(),
                     [](const Part& a, const Part& b) { return (a.form > Form::range) < (b.form > Form::range); });
    shortest[i] = -1;
    for (const auto& part : parts) {
      const int length = part.length + (part.end < n ? 1 + shortest[part.end] : 0);
      if (shortest[i] >= 0 && length >= shortest[i]) continue;
      shortest[i] = length;
      choice[i] = part;
    }
  }
  std::string out;
  for (std::size_t i = 0; i < n; i = choice[i].end) {
    if (!out.empty()) out += ',';
    out += part_text(cpus_, i, choice[i]);
  }
  return out;
}

std::string short_cpu_list(std::string_view list) {
  auto set = CpuSet::parse(list);
  return set.ok() ? set->to_short_string() : std::string(list);
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
