// Parsing --cpus words and resolving hwloc locations against a Topology
// (plain structs only: the objects' PUs were read through hwloc at load time).
#include "affinity/cpu_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "util/text.hpp"

namespace mptrain::affinity {

namespace {

// A name a location may give an object type.
struct TypeName {
  std::string_view name;
  ObjectType type;
};

// The names accepted, lower case: the short ones, then hwloc's own.
constexpr std::array type_names{
    TypeName{"pu", ObjectType::pu},           TypeName{"core", ObjectType::core},
    TypeName{"l1", ObjectType::l1},           TypeName{"l2", ObjectType::l2},
    TypeName{"l3", ObjectType::l3},           TypeName{"numa", ObjectType::numa},
    TypeName{"package", ObjectType::package}, TypeName{"socket", ObjectType::package},
    TypeName{"machine", ObjectType::machine}, TypeName{"numanode", ObjectType::numa},
    TypeName{"node", ObjectType::numa},       TypeName{"l1cache", ObjectType::l1},
    TypeName{"l2cache", ObjectType::l2},      TypeName{"l3cache", ObjectType::l3},
};

// The index forms, for messages.
constexpr std::string_view index_forms = "2, 0-3, 4- (4 to the last), 2:3 (3 objects from 2), all, odd or even";

// How messages name one object of `type`, and several.
std::string_view singular(ObjectType type) {
  switch (type) {
    case ObjectType::machine:
      return "machine";
    case ObjectType::package:
      return "package";
    case ObjectType::numa:
      return "NUMA node";
    case ObjectType::l3:
      return "L3 cache";
    case ObjectType::l2:
      return "L2 cache";
    case ObjectType::l1:
      return "L1 cache";
    case ObjectType::core:
      return "core";
    case ObjectType::pu:
      return "PU";
  }
  return "object";
}

std::string plural(ObjectType type) { return std::string(singular(type)) + "s"; }

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool starts_with_letter(std::string_view text) {
  return !text.empty() && std::isalpha(static_cast<unsigned char>(text.front())) != 0;
}

// A location index: a whole number below max_cpus (no topology has more objects of a type than PUs).
std::optional<int> parse_index(std::string_view text) {
  const auto value = parse_u64(text);
  if (!value || *value >= static_cast<std::uint64_t>(max_cpus)) return std::nullopt;
  return static_cast<int>(*value);
}

// One comma-separated index item; nullopt when it is none of the forms.
std::optional<IndexItem> parse_index_item(std::string_view item) {
  if (item == "all") return IndexItem{IndexForm::all};
  if (item == "odd") return IndexItem{IndexForm::odd};
  if (item == "even") return IndexItem{IndexForm::even};
  if (const auto colon = item.find(':'); colon != std::string_view::npos) {
    const auto first = parse_index(item.substr(0, colon));
    const auto count = parse_index(item.substr(colon + 1));
    if (!first || !count || *count == 0) return std::nullopt;
    return IndexItem{IndexForm::count, *first, *count};
  }
  const auto dash = item.find('-');
  const auto first = parse_index(item.substr(0, dash));
  if (!first) return std::nullopt;
  if (dash == std::string_view::npos) return IndexItem{IndexForm::range, *first, *first};
  if (dash + 1 == item.size()) return IndexItem{IndexForm::from, *first, 0};
  const auto last = parse_index(item.substr(dash + 1));
  if (!last || *last < *first) return std::nullopt;
  return IndexItem{IndexForm::range, *first, *last};
}

// One TYPE:INDEXES step of location `word`.
Result<LocationStep> parse_step(std::string_view step, std::string_view word) {
  const auto colon = step.find(':');
  if (colon == std::string_view::npos) {
    return Error{fmt::format("'{}' in '{}' has no indexes: write TYPE:INDEXES, such as core:0-3", step, word)};
  }
  auto type = parse_object_type(step.substr(0, colon));
  if (!type.ok()) return step == word ? type.error() : Error{fmt::format("{} (in '{}')", type.error().message, word)};
  LocationStep out{*type, {}};
  for (std::string_view item : split(step.substr(colon + 1), ',')) {
    const auto parsed = parse_index_item(item);
    if (!parsed) {
      return Error{fmt::format("bad index '{}' in '{}': give {} indexes such as {}, joined by commas", item, word,
                               to_string(*type), index_forms)};
    }
    out.indexes.push_back(*parsed);
  }
  return out;
}

Result<Location> parse_location(std::string_view word) {
  Location location{{}, std::string(word)};
  for (std::string_view step : split(word, '.')) {
    if (step.empty()) return Error{fmt::format("empty step in location '{}': join steps as in core:0-1.pu:0", word)};
    auto parsed = parse_step(step, word);
    if (!parsed.ok()) return parsed.error();
    location.steps.push_back(std::move(parsed).value());
  }
  return location;
}

// Where the first comma-separated part of `word` that looks like a location
// (a letter first, then a colon) starts; npos when none does.
std::size_t location_part(std::string_view word) {
  std::size_t start = 0;
  for (std::string_view part : split(word, ',')) {
    if (starts_with_letter(part) && part.find(':') != std::string_view::npos) return start;
    start += part.size() + 1;
  }
  return std::string_view::npos;
}

// A word that is not a location: a kernel CPU list.
Result<CpuSet> parse_cpu_list_word(std::string_view word) {
  if (const auto at = location_part(word); at != std::string_view::npos && at > 0) {
    return Error{fmt::format("'{}' mixes a CPU list and a location in one word; separate them with a space: \"{} {}\"",
                             word, word.substr(0, at - 1), word.substr(at))};
  }
  auto cpus = CpuSet::parse(word);
  if (cpus.ok()) return cpus;
  if (!starts_with_letter(word)) return cpus.error();
  return Error{cpus.error().message + " (a location is written TYPE:INDEXES, such as core:0-3 or numa:1)"};
}

// The positions among `count` objects that `items` name, in the order named;
// nullopt when an item names a position beyond the last.
std::optional<std::vector<int>> pick(const std::vector<IndexItem>& items, int count) {
  std::vector<int> out;
  for (const IndexItem& item : items) {
    switch (item.form) {
      case IndexForm::range:
        if (item.last >= count) return std::nullopt;
        for (int i = item.first; i <= item.last; ++i) out.push_back(i);
        break;
      case IndexForm::from:
        if (item.first >= count) return std::nullopt;
        for (int i = item.first; i < count; ++i) out.push_back(i);
        break;
      case IndexForm::count:
        if (item.first >= count) return std::nullopt;
        for (int i = 0; i < std::min(item.last, count); ++i) out.push_back((item.first + i) % count);
        break;
      case IndexForm::all:
      case IndexForm::odd:
      case IndexForm::even:
        for (int i = item.form == IndexForm::odd ? 1 : 0; i < count; i += item.form == IndexForm::all ? 1 : 2) {
          out.push_back(i);
        }
        break;
    }
  }
  return out;
}

// True when `inner` has PUs and all of them are in `outer`.
bool inside(const CpuSet& inner, const CpuSet& outer) {
  if (inner.empty() || outer.empty()) return false;
  if (inner.cpus().front() < outer.cpus().front() || inner.cpus().back() > outer.cpus().back()) return false;
  return std::ranges::all_of(inner.cpus(), [&](int cpu) { return outer.contains(cpu); });
}

// "NUMA nodes 0-1", "core 0" or "no L3 cache": the objects of `type` numbered 0 to `count` - 1.
std::string numbered(ObjectType type, int count) {
  if (count == 0) return fmt::format("no {}", singular(type));
  if (count == 1) return fmt::format("{} 0", singular(type));
  return fmt::format("{} {}", plural(type), CpuSet::range(0, count - 1).to_short_string());
}

// How messages name `topology`: "this machine" or "the topology (synthetic: …)".
std::string machine_name(const Topology& topology) {
  return topology.source == "this machine" ? topology.source : fmt::format("the topology ({})", topology.source);
}

// `indexes` sorted, without duplicates: each object counts once however often it is named.
std::vector<int> distinct(std::vector<int> indexes) {
  std::sort(indexes.begin(), indexes.end());
  indexes.erase(std::unique(indexes.begin(), indexes.end()), indexes.end());
  return indexes;
}

// The logical indexes of the objects the first step of `location` chooses among all of its type.
Result<std::vector<int>> first_step(const Location& location, const Topology& topology) {
  const LocationStep& step = location.steps.front();
  const int count = static_cast<int>(objects_of(topology, step.type).size());
  auto picked = pick(step.indexes, count);
  if (!picked || count == 0) {
    return Error{fmt::format("{}: {} has {}", location.text, machine_name(topology), numbered(step.type, count))};
  }
  return distinct(std::move(*picked));
}

// The logical indexes of the objects `step` chooses inside each of the
// objects of type `parent_type` at `parents`, counted from 0 in each.
Result<std::vector<int>> inner_step(const Location& location, const LocationStep& step, ObjectType parent_type,
                                    const std::vector<int>& parents, const Topology& topology) {
  const auto& objects = objects_of(topology, step.type);
  std::vector<int> chosen;
  for (int parent : parents) {
    const CpuSet& outer = objects_of(topology, parent_type)[static_cast<std::size_t>(parent)];
    std::vector<int> candidates;
    for (std::size_t i = 0; i < objects.size(); ++i) {
      if (inside(objects[i], outer)) candidates.push_back(static_cast<int>(i));
    }
    const int count = static_cast<int>(candidates.size());
    const auto picked = pick(step.indexes, count);
    if (!picked || count == 0) {
      return Error{fmt::format(
          "{}: {} {} {}", location.text, singular(parent_type), parent,
          count == 0 ? fmt::format("contains no {}", singular(step.type)) : "has " + numbered(step.type, count))};
    }
    for (int position : *picked) chosen.push_back(candidates[static_cast<std::size_t>(position)]);
  }
  return distinct(std::move(chosen));
}

// The PUs `location` names in `topology`; an Error when it names an object
// that does not exist, or no PU.
Result<std::vector<int>> resolve_location(const Location& location, const Topology& topology) {
  auto chosen = first_step(location, topology);
  if (!chosen.ok()) return chosen.error();
  for (std::size_t s = 1; s < location.steps.size(); ++s) {
    chosen = inner_step(location, location.steps[s], location.steps[s - 1].type, *chosen, topology);
    if (!chosen.ok()) return chosen.error();
  }
  const ObjectType type = location.steps.back().type;
  std::vector<int> cpus;
  for (int object : *chosen) {
    const auto& pus = objects_of(topology, type)[static_cast<std::size_t>(object)].cpus();
    cpus.insert(cpus.end(), pus.begin(), pus.end());
  }
  if (cpus.empty()) return Error{fmt::format("{} names no PU of {}", location.text, machine_name(topology))};
  return cpus;
}

}  // namespace

Result<ObjectType> parse_object_type(std::string_view name) {
  const std::string key = lower(name);
  for (const TypeName& known : type_names) {
    if (known.name == key) return known.type;
  }
  return Error{
      fmt::format("unknown object type '{}': use pu, core, l1, l2, l3, numa, package (or socket) or machine", name)};
}

std::string_view to_string(ObjectType type) {
  for (const TypeName& known : type_names) {
    if (known.type == type) return known.name;
  }
  return "pu";
}

Result<CpuSelection> parse_cpu_selection(std::string_view text) {
  CpuSelection selection;
  selection.text = std::string(trim(text));
  const auto words = split_words(text);
  if (words.empty()) return Error{"no CPUs given: give a CPU list such as 0-3,8 or a location such as core:0-3"};
  for (std::string_view word : words) {
    if (starts_with_letter(word) && word.find(':') != std::string_view::npos) {
      auto location = parse_location(word);
      if (!location.ok()) return location.error();
      selection.locations.push_back(std::move(location).value());
      continue;
    }
    auto cpus = parse_cpu_list_word(word);
    if (!cpus.ok()) return cpus.error();
    selection.cpus = selection.cpus.unite(*cpus);
  }
  return selection;
}

Result<CpuSet> resolve_cpu_selection(const CpuSelection& selection, const Topology& topology) {
  std::vector<int> cpus = selection.cpus.cpus();
  for (const Location& location : selection.locations) {
    auto pus = resolve_location(location, topology);
    if (!pus.ok()) return pus.error();
    cpus.insert(cpus.end(), pus->begin(), pus->end());
  }
  return CpuSet(std::move(cpus));
}

}  // namespace mptrain::affinity
