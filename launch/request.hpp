// One typed launch request: what `mptrain run -- CMD` and `mptrain torchrun`
// ask of a launch beyond its plan. CLI11 writes `run`'s options straight
// into it (cli/run_launch.cpp); torchrun fills it from its parsed rows
// (cli/torchrun.cpp). launch/decide.hpp turns it into what each worker gets.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "cluster/torchrun_launch.hpp"
#include "monitor/run_monitor.hpp"
#include "procmgr/allocator.hpp"
#include "procmgr/group.hpp"
#include "procmgr/launch.hpp"
#include "util/option_spellings.hpp"

namespace mptrain::launch {

// The launcher's options as a front end took them; the defaults are procmgr's and monitor's.
struct Request {
  std::string master_addr = procmgr::WorldInfo{}.master_addr;
  int master_port = 0;  // 0: a free port
  std::string log_dir;
  std::string redirects;       // --redirects SPEC as given; "" when not given
  std::string tee;             // --tee SPEC as given; "" when not given
  bool tag_output = true;      // --tag-output, the default
  bool no_tag_output = false;  // --no-tag-output
  bool timestamp_output = false;
  double grace_seconds = std::chrono::duration<double>(procmgr::GroupOptions{}.grace).count();
  int max_restarts = procmgr::GroupOptions{}.max_restarts;
  bool keep_env = false;  // --keep-env: the user's thread-count variables win
  procmgr::OmpBind omp_bind = procmgr::WorkerSettings{}.omp_bind;
  procmgr::WaitPolicy wait_policy = procmgr::WaitPolicy::automatic;  // --wait-policy
  int children = 0;  // --children K; 0: the program's own processes are not slices
  procmgr::Descendants descendants = procmgr::Descendants::place;
  bool keep_program_threads = false;  // --keep-program-threads: pools the program sizes are not capped
  monitor::SpreadThreads spread_threads = monitor::SpreadThreads::on;
  procmgr::Allocator allocator = procmgr::Allocator::system;
  std::string membind;
  std::string interleave;
  bool dry_run = false;
  bool allow_oversubscribe = false;  // --allow-oversubscribe: also lets --children exceed a worker's CPUs
  bool json = false;                 // --json: workers' stdout lines go to stderr, the report is one document
  OptionSpellings spellings;         // how messages name -n and -t for the front end that built it
  std::shared_ptr<const cluster::TorchrunSettings> torchrun;  // null unless `mptrain torchrun`
};

}  // namespace mptrain::launch
