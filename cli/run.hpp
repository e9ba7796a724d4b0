// `mptrain run`: the built-in Hogwild training (no command given) or the
// launcher (`-- CMD ARGS…`). run.cpp registers the shared options and
// dispatches; run_train.cpp and run_launch.cpp hold each mode's options and driver.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "cli/placement_options.hpp"

namespace mptrain::cli {

struct TrainOptions;   // defined in run_train.cpp
struct LaunchOptions;  // defined in run_launch.cpp

// Everything `mptrain run` was given.
struct RunOptions {
  PlacementOptions placement;
  bool json = false;
  std::vector<std::string> command;  // after "--"; empty: built-in training
  std::shared_ptr<TrainOptions> train;
  std::shared_ptr<LaunchOptions> launch;
};

// Registers the training options on `command`; returns their storage.
std::shared_ptr<TrainOptions> add_train_options(CLI::App& command);
// Registers the launcher options on `command`; returns their storage.
std::shared_ptr<LaunchOptions> add_launch_options(CLI::App& command);

// Runs the built-in training; returns the exit code.
int run_training(const RunOptions& options);
// Launches `options.command` M times; returns the exit code.
int run_launcher(const RunOptions& options);

}  // namespace mptrain::cli
