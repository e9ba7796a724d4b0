// `mptrain run`: the built-in Hogwild training (no command given) or the
// launcher (`-- CMD ARGS…`). run.cpp registers the shared options and
// dispatches; run_train.cpp and run_launch.cpp hold each mode's options and driver.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/fail_on.hpp"
#include "cli/placement_options.hpp"
#include "cluster/torchrun_launch.hpp"
#include "launch/layout.hpp"
#include "launch/request.hpp"
#include "monitor/run_monitor.hpp"
#include "procmgr/group.hpp"
#include "procmgr/launch.hpp"
#include "procmgr/outcome.hpp"

namespace mptrain::cli {

struct TrainOptions;  // defined in run_train.cpp

using cluster::TorchrunSettings;

// Everything `mptrain run` was given.
struct RunOptions {
  PlacementOptions placement;
  bool json = false;
  bool quiet = false;                              // --quiet: the monitor says its verdict line and each fix only
  bool verbose = false;                            // --verbose: the monitor's whole report, healthy or not
  FailOnOptions gate{monitor::FailOn::never, {}};  // --fail-on (default never: nothing changes unless asked), --ignore
  std::vector<std::string> command;                // after "--"; empty: built-in training
  std::string tuned;                               // --tuned[=FILE]: replaced before parsing (cli/tuned.cpp)
  std::shared_ptr<TrainOptions> train;
  std::shared_ptr<launch::Request> launch;  // the launcher's options, and torchrun's settings
};

// Registers the training options on `command`; returns their storage.
std::shared_ptr<TrainOptions> add_train_options(CLI::App& command);
// Registers the launcher options on `command`; returns their storage.
std::shared_ptr<launch::Request> add_launch_options(CLI::App& command);

// The workers of a plan as procmgr starts them (launch/layout.hpp).
using launch::launch_layout;
using launch::worker_specs;
using procmgr::describe_worker;
using procmgr::failure_message;

// Prints, instead of starting them, each of `specs`' exact command line for
// `command` (binding, variables removed — `unset` — and set, program), CPUs
// and memory policy, as text or as the JSON document of SPEC (`ranks`);
// returns the exit code. Throws a runtime Failure when the program cannot be
// found, as the launch would.
int print_dry_run(const affinity::Plan& plan, const std::vector<procmgr::WorkerSpec>& specs,
                  const std::vector<std::string>& command, const std::vector<std::string>& unset, bool json,
                  std::string_view invoked_as = "mptrain run");

// How much of the monitor's report `options` asks for (--quiet, --verbose, or the default).
monitor::RunMonitor::Detail monitor_detail(const RunOptions& options);

// Runs the built-in training; returns the exit code.
int run_training(const RunOptions& options);
// Launches `options.command` M times; returns the exit code.
int run_launcher(const RunOptions& options);

}  // namespace mptrain::cli
