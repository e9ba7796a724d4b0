// The gate a CI script sets on a run's or a diagnosis's verdict: --fail-on
// (exit 3 from a verdict on) and --ignore (finding kinds left out), shared by
// `doctor`, `run` and `torchrun`.
#pragma once

#include <CLI/CLI.hpp>
#include <vector>

#include "monitor/detector.hpp"

namespace mptrain::cli {

// What the gate options hold.
struct FailOnOptions {
  monitor::FailOn fail_on = monitor::FailOn::oversubscribed;
  std::vector<monitor::FindingKind> ignored;
};

// Registers --fail-on (its default `gate.fail_on`) and --ignore KIND (repeatable) on `command`.
void add_fail_on_options(CLI::App& command, FailOnOptions& gate, const char* group = nullptr);

// Whether `diagnosis` fails `gate`: then the command exits 3.
bool fails(const monitor::Diagnosis& diagnosis, const FailOnOptions& gate);

// "the monitor's verdict is oversubscribed (--fail-on oversubscribed)": why a run exits 3.
std::string failed_gate_message(const monitor::Diagnosis& diagnosis, const FailOnOptions& gate);

}  // namespace mptrain::cli
