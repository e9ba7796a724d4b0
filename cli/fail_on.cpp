#include "cli/fail_on.hpp"

#include "cli/options.hpp"

namespace mptrain::cli {

void add_fail_on_options(CLI::App& command, FailOnOptions& gate, const char* group) {
  auto* fail_on = add_word_option(command, "--fail-on", gate.fail_on, monitor::fail_on_names,
                                  "Exit 3 from this verdict on: oversubscribed, warning or never; idle: on an "
                                  "idle_capacity finding or oversubscribed; inconclusive: on too little evidence or "
                                  "oversubscribed")
                      ->type_name("VERDICT");
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
          ->check(parsed_by(monitor::parse_finding_kind));
  if (group != nullptr) {
    fail_on->group(group);
    ignored->group(group);
  }
}

}  // namespace mptrain::cli
