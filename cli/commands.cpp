#include "cli/commands.hpp"

#include <fmt/core.h>

#include <cstdio>

namespace mptrain::cli {

void print_json(const nlohmann::json& document) {
  fmt::print("{}\n", document.dump(2));
  std::fflush(stdout);
}

void add_command_words(CLI::App& command, std::vector<std::string>& words, const std::string& description) {
  constexpr int all_words = CLI::detail::expected_max_vector_size;
  command.add_option("command", words, description)
      ->allow_extra_args(false)
      ->expected(all_words, all_words)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void print_error(std::string_view message) { fmt::print(stderr, "mptrain: error: {}\n", message); }

void print_warning(std::string_view message) { fmt::print(stderr, "mptrain: warning: {}\n", message); }

}  // namespace mptrain::cli
