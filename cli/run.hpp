// `mptrain run`: the built-in Hogwild training (no command given) or the
// launcher (`-- CMD ARGS…`). run.cpp registers the shared options and
// dispatches; run_train.cpp and run_launch.cpp hold each mode's options and driver.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/fail_on.hpp"
#include "cli/placement_options.hpp"
#include "cluster/identity.hpp"
#include "cluster/mpi.hpp"
#include "procmgr/group.hpp"
#include "procmgr/launch.hpp"
#include "procmgr/outcome.hpp"

namespace mptrain::cli {

struct TrainOptions;   // defined in run_train.cpp
struct LaunchOptions;  // defined in run_launch.cpp

// What `mptrain torchrun` adds to a launch (cli/torchrun.cpp): torchrun's
// variables, its log layout, error files and root-cause summary.
struct TorchrunSettings {
  std::string run_id;              // TORCHELASTIC_RUN_ID
  std::string role = "default";    // ROLE_NAME
  std::filesystem::path run_dir;   // attempt_A/LOCAL_RANK/ beneath: log files and error.json
  bool remove_run_dir = false;     // a temporary directory, removed when the run ends
  std::string redirects;           // -r/--redirects as given; "" for none
  std::string tee;                 // -t/--tee as given; "" for none
  std::string local_ranks_filter;  // --local-ranks-filter as given; "" for every rank
  std::string program;             // the script, module or program, for the summary
  std::string interpreter;  // the Python that runs scripts and modules ("python3", MPTRAIN_PYTHON); "": --no-python
};

// Everything `mptrain run` was given.
struct RunOptions {
  PlacementOptions placement;
  bool json = false;
  bool quiet = false;                              // --quiet: the monitor says its verdict line and each fix only
  FailOnOptions gate{monitor::FailOn::never, {}};  // --fail-on (default never: nothing changes unless asked), --ignore
  std::vector<std::string> command;                // after "--"; empty: built-in training
  std::shared_ptr<TrainOptions> train;
  std::shared_ptr<LaunchOptions> launch;
  std::shared_ptr<const TorchrunSettings> torchrun;  // null unless `mptrain torchrun`
};

// Registers the training options on `command`; returns their storage.
std::shared_ptr<TrainOptions> add_train_options(CLI::App& command);
// Registers the launcher options on `command`; returns their storage.
std::shared_ptr<LaunchOptions> add_launch_options(CLI::App& command);

// The workers of `plan` as procmgr launches them, with this machine's NUMA
// nodes (read under MPTRAIN_FSROOT; none without NUMA support).
procmgr::LaunchLayout launch_layout(const affinity::Plan& plan);
// procmgr::pinned_specs of `plan`: one worker per placement, pinned and its
// memory bound to its node unless the binding is none; the caller adds what runs.
std::vector<procmgr::WorkerSpec> worker_specs(const affinity::Plan& plan);
using procmgr::describe_worker;
using procmgr::failure_message;

// Prints, instead of starting them, each of `specs`' exact command line for
// `command` (binding, variables removed — `unset` — and set, program), CPUs
// and memory policy, as text or as the JSON document of SPEC (`ranks`);
// returns the exit code. Throws a runtime Failure when the program cannot be
// found, as the launch would.
int print_dry_run(const affinity::Plan& plan, const std::vector<procmgr::WorkerSpec>& specs,
                  const std::vector<std::string>& command, const std::vector<std::string>& unset, bool json);

// MPI started for `node` (through the plugin); throws a runtime Failure when
// it cannot be, or when MPI's rank and size are not the node's.
std::unique_ptr<cluster::Mpi> start_mpi(const cluster::NodeIdentity& node);

// What the nodes of a launch agreed on: node 0's address and port, and the
// MPI session they agreed over (null unless an MPI launcher started several
// nodes; kept for the run, to end the whole job when a node fails).
struct Rendezvous {
  std::unique_ptr<cluster::Mpi> mpi;
  std::string master_addr;
  int master_port = 0;  // 0: a free port, picked by the launcher (one node)
};

// The rendezvous of `node`, whose mptrain plans `workers` workers, with the
// --master-addr (`master_addr`, "" when not given) and --master-port
// (`master_port`, 0 when not given): over MPI when an MPI launcher started
// several nodes (node 0's address — its host name unless given — and a free
// port, broadcast; every node must plan as many workers), else from the
// options, PET_MASTER_ADDR/MASTER_ADDR and PET_MASTER_PORT/MASTER_PORT, or
// 29500. Throws a usage Failure when several nodes without MPI have no
// master address, and a runtime Failure when MPI fails.
Rendezvous agree_rendezvous(const cluster::NodeIdentity& node, int workers, const std::string& master_addr,
                            int master_port);

// Runs the built-in training; returns the exit code.
int run_training(const RunOptions& options);
// Launches `options.command` M times; returns the exit code.
int run_launcher(const RunOptions& options);

}  // namespace mptrain::cli
