#include "cli/fail_on.hpp"

#include "cli/options.hpp"
#include "monitor/advice.hpp"

namespace mptrain::cli {

void add_fail_on_options(CLI::App& command, FailOnOptions& gate, const char* group) {
  const auto store = [&gate](const std::string& name) {
    gate.fail_on = value_named(monitor::fail_on_names, name).value_or(gate.fail_on);
  };
  auto* fail_on = command
                      .add_option_function<std::string>(
                          "--fail-on", store,
                          "Exit 3 from this verdict on: oversubscribed, warning or never; idle: on an idle_capacity "
                          "finding or oversubscribed")
                      ->type_name("VERDICT")
                      ->check(one_of(monitor::fail_on_names))
                      ->default_str(std::string(name_of(monitor::fail_on_names, gate.fail_on, "never")));
  const auto ignore = [&gate](const std::vector<std::string>& names) {
    for (const auto& name : names) {
      if (auto kind = monitor::parse_finding_kind(name); kind.ok()) gate.ignored.push_back(*kind);
    }
  };
  auto* ignored =
      command
          .add_option_function<std::vector<std::string>>(
              "--ignore", ignore,
              "Leave findings of this kind out of --fail-on's decision (repeatable): " + monitor::finding_kinds_list())
          ->type_name("KIND")
          ->check(CLI::Validator(
              [](const std::string& name) {
                const auto kind = monitor::parse_finding_kind(name);
                return kind.ok() ? std::string() : kind.error().message;
              },
              ""));
  if (group != nullptr) {
    fail_on->group(group);
    ignored->group(group);
  }
}

bool fails(const monitor::Diagnosis& diagnosis, const FailOnOptions& gate) {
  return monitor::reaches(diagnosis, gate.fail_on, gate.ignored);
}

std::string failed_gate_message(const monitor::Diagnosis& diagnosis, const FailOnOptions& gate) {
  return monitor::gate_message(diagnosis, gate.fail_on, !gate.ignored.empty());
}

}  // namespace mptrain::cli
