// The gate a CI script sets on a run's or a diagnosis's verdict (monitor::Gate):
// --fail-on and --ignore, shared by `doctor`, `run` and `torchrun`.
#pragma once

#include <CLI/CLI.hpp>

#include "monitor/advice.hpp"

namespace mptrain::cli {

using FailOnOptions = monitor::Gate;
using monitor::failed_gate_message;
using monitor::fails;

// Registers --fail-on (its default `gate.fail_on`) and --ignore KIND (repeatable) on `command`.
void add_fail_on_options(CLI::App& command, FailOnOptions& gate, const char* group = nullptr);

}  // namespace mptrain::cli
