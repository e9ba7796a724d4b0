#include "util/run_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>

#include "util/text.hpp"

namespace mptrain {

namespace {

// The keys of a record, in the order record_text writes them.
constexpr std::array<std::string_view, 13> record_keys = {"pid",     "start",   "uid",     "cpus",  "nodes",
                                                          "workers", "threads", "started", "state", "arrived",
                                                          "need",    "elastic", "command"};

constexpr std::array<std::string_view, 3> state_names = {"planning", "waiting", "running"};

// `value` of key `key` as a whole number from `min` to `max`.
Result<long long> number_of(std::string_view key, std::string_view value, long long min, long long max) {
  const auto number = parse_int(value);
  if (!number.ok() || *number < min || *number > max)
    return Error{fmt::format("the record's {} is not a number from {} to {}: {}", key, min, max, printable(value))};
  return *number;
}

// Sets the field of `record` that `key` names from `value`.
Status set_field(RunRecord& record, std::string_view key, std::string_view value) {
  constexpr long long int_max = std::numeric_limits<int>::max();
  constexpr long long most = std::numeric_limits<long long>::max();
  const auto take = [&](auto& field, long long min, long long max) -> Status {
    auto number = number_of(key, value, min, max);
    if (!number.ok()) return number.error();
    field = static_cast<std::remove_reference_t<decltype(field)>>(*number);
    return ok_status();
  };
  const auto set = [&](CpuSet& field) -> Status {
    auto cpus = value.empty() ? Result<CpuSet>(CpuSet()) : CpuSet::parse(value);
    if (!cpus.ok()) return Error{fmt::format("the record's {} is not a CPU list: {}", key, printable(value))};
    field = std::move(*cpus);
    return ok_status();
  };
  if (key == "pid") return take(record.pid, 1, int_max);
  if (key == "start") return take(record.start, 0, most);
  if (key == "uid") return take(record.uid, 0, std::numeric_limits<std::uint32_t>::max() - 1LL);
  if (key == "cpus") return set(record.cpus);
  if (key == "nodes") return set(record.nodes);
  if (key == "workers") return take(record.workers, 1, int_max);
  if (key == "threads") return take(record.threads, 1, int_max);
  if (key == "started") return take(record.started, 0, most);
  if (key == "arrived") return take(record.arrived, 0, most);
  if (key == "need") return take(record.need, 1, int_max);
  if (key == "elastic") return take(record.elastic, 0, 1);
  if (key == "state") {
    const auto* name = std::find(state_names.begin(), state_names.end(), value);
    if (name == state_names.end())
      return Error{fmt::format("the record's state is not one of planning, waiting, running: {}", printable(value))};
    record.state = static_cast<RunState>(name - state_names.begin());
    return ok_status();
  }
  record.command = std::string(value);
  return ok_status();
}

}  // namespace

std::string_view to_string(RunState state) { return state_names.at(static_cast<std::size_t>(state)); }

std::string record_text(const RunRecord& record) {
  std::string command = record.command;
  for (auto& c : command) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return fmt::format(
      "pid {}\nstart {}\nuid {}\ncpus {}\nnodes {}\nworkers {}\nthreads {}\nstarted {}\nstate {}\narrived {}\nneed {}\n"
      "elastic {}\ncommand {}\n",
      record.pid, record.start, record.uid, record.cpus.to_string(), record.nodes.to_string(), record.workers,
      record.threads, record.started, to_string(record.state), record.arrived, record.need, record.elastic ? 1 : 0,
      command);
}

Result<RunRecord> parse_record(std::string_view text) {
  RunRecord record;
  std::array<bool, record_keys.size()> seen{};
  for (const auto line : split(text, '\n')) {
    if (line.empty()) continue;
    const auto space = line.find(' ');
    const auto key = line.substr(0, space);
    const auto value = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    std::size_t index = 0;
    while (index < record_keys.size() && record_keys[index] != key) ++index;
    if (index == record_keys.size() || seen[index])
      return Error{fmt::format("the record's line '{}' is not one mptrain writes", printable(line))};
    seen[index] = true;
    if (auto status = set_field(record, key, value); !status.ok()) return status.error();
  }
  for (std::size_t i = 0; i < record_keys.size(); ++i) {
    if (!seen[i]) return Error{fmt::format("the record has no {}", record_keys[i])};
  }
  return record;
}

}  // namespace mptrain
