// The subcommands of mptrain. Each file under cli/ registers one command's
// options on the CLI11 app and, when that command is chosen, sets the runner
// that main() calls after parsing. Commands throw mptrain::Failure on error.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "util/text.hpp"

namespace mptrain::cli {

// The chosen command's entry point; returns the process exit code.
using Runner = std::function<int()>;

// Registers `mptrain topo` on `app`; sets `runner` when it is chosen.
void add_topo_command(CLI::App& app, Runner& runner);
// Registers `mptrain plan` on `app`; sets `runner` when it is chosen.
void add_plan_command(CLI::App& app, Runner& runner);
// Registers `mptrain run` (training and launcher modes) on `app`; sets `runner` when it is chosen.
void add_run_command(CLI::App& app, Runner& runner);
// Registers `mptrain doctor` on `app`; sets `runner` when it is chosen.
void add_doctor_command(CLI::App& app, Runner& runner);

// Registers the positional `command`: every word after "--", taken verbatim
// into `words` (CLI11 would otherwise split a word such as "[a,b]").
void add_command_words(CLI::App& command, std::vector<std::string>& words, const std::string& description);

// Prints `document` as the one JSON document on stdout (pretty, newline-terminated).
void print_json(const nlohmann::json& document);
// Prints "mptrain: error: `message`" on stderr.
void print_error(std::string_view message);
// Prints "mptrain: warning: `message`" on stderr.
void print_warning(std::string_view message);

}  // namespace mptrain::cli
