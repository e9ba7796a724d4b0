// torchrun's options as an mptrain launch: which of `mptrain run`'s options
// they ask for (workers, nodes, rendezvous), what each worker runs, where
// the run's logs and error files go, and the checks of the options mptrain
// accepts without using them. Pure: `mptrain torchrun` (cli/torchrun.cpp)
// wires the results into a launch.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cluster/torchrun.hpp"
#include "util/result.hpp"

namespace mptrain::cluster {

// What `mptrain torchrun` adds to a launch: torchrun's variables, its log
// layout, error files and root-cause summary.
struct TorchrunSettings {
  std::string run_id;              // TORCHELASTIC_RUN_ID
  std::string role = "default";    // ROLE_NAME
  std::filesystem::path run_dir;   // attempt_A/LOCAL_RANK/ beneath: log files and error.json
  bool remove_run_dir = false;     // a temporary directory, removed when the run ends
  bool announce_run_dir = false;   // no --log-dir, but -r/-t send streams there: say where they go
  std::string redirects;           // -r/--redirects as given; "" for none
  std::string tee;                 // -t/--tee as given; "" for none
  std::string local_ranks_filter;  // --local-ranks-filter as given; "" for every rank
  std::string program;             // the script, module or program, for the summary
  std::string interpreter;  // the Python that runs scripts and modules ("python3", MPTRAIN_PYTHON); "": --no-python
};

// Checks the torchrun options mptrain accepts but does not use (torch's
// own rendezvous config, its agent's polling and start method, the local
// address) and the streams of -r/-t; an Error naming the option and value.
Status check_accepted_options(const TorchrunArgs& args);

// What torchrun's options ask of the launch, typed as `mptrain run`'s
// placement and launcher options take them, and the warnings to print.
struct TorchrunPlacement {
  std::optional<int> workers;         // --nproc-per-node N; nullopt with one_per_cpu
  bool one_per_cpu = false;           // --nproc-per-node auto or cpu
  std::optional<int> nodes;           // --nnodes (a range MIN:MAX with MIN = MAX)
  std::optional<int> node_rank;       // --node-rank
  std::string master_addr;            // from --rdzv-endpoint or --master-addr; "" when neither
  int master_port = 0;                // from --rdzv-endpoint or --master-port; 0: a free one
  std::optional<int> max_restarts;    // --max-restarts
  std::vector<std::string> warnings;  // options that are ignored, and why
};

// The workers (--nproc-per-node, default one), nodes and rendezvous (a
// static one at --rdzv-endpoint or --master-addr; --standalone: this host,
// a free port) and restarts that `args` ask for. An Error, naming the
// option as the user spelled it, for an accelerator (gpu, xpu) or a count
// that is not one, a node rank, port or restart count out of range, a
// rendezvous backend other than static and c10d, --standalone across
// nodes, and c10d across nodes without a node rank (--node-rank, or a
// launcher's variable in `environment`).
Result<TorchrunPlacement> torchrun_placement(const TorchrunArgs& args, const std::vector<std::string>& environment);

// The interpreter that runs scripts and modules: MPTRAIN_PYTHON, else
// PYTHON_EXEC, else python3 (from PATH), read from `environment`.
std::string python_interpreter(const std::vector<std::string>& environment);

// What each worker runs, as torchrun builds it: `INTERPRETER -u SCRIPT ARGS`,
// `INTERPRETER -u -m MODULE ARGS` or `CMD ARGS`; an Error for --run-path
// with a module or --no-python.
Result<std::vector<std::string>> program_words(const TorchrunArgs& args, const std::vector<std::string>& environment);

// The run id: --rdzv-id when given (and not --standalone, which makes its own), else a fresh one.
std::string torchrun_run_id(const TorchrunArgs& args);

// A fresh run id: 32 hexadecimal digits from the kernel's random source (a uuid4's size).
std::string fresh_run_id();

// Refuses an empty --log-dir.
Status check_log_dir(const TorchrunArgs& args);

// Where the run's logs and error files go, and what happens to the folder.
struct RunFolderPlan {
  std::filesystem::path base;  // the folder it is made in: --log-dir, else TMPDIR, else /tmp; absolute
  std::string prefix;          // its name before a unique suffix: "RUNID_" under --log-dir, else "mptrain-torchrun-"
  bool make_base = false;      // --log-dir given: made when missing
  std::string tmpdir;          // TMPDIR as given when the folder goes there, for messages; "" otherwise
  std::string log_dir_option = "--log-dir";  // the option as spelled, for messages
  bool temporary = false;  // removed when the run ends well (only error files, no logs, not a dry run)
  bool announce = false;   // say where the logs are: no --log-dir, but -r/-t send streams there

  // The folder's name pattern for mkdtemp: BASE/PREFIXXXXXXX.
  std::filesystem::path pattern() const { return base / (prefix + "XXXXXX"); }
};

// The run folder for `args`, run id `run_id` and `environment` (TMPDIR),
// `base` made absolute against `current_dir` (a worker that changes directory
// still finds its error file). A dry run makes nothing, so it is neither
// temporary nor announced.
RunFolderPlan plan_run_folder(const TorchrunArgs& args, std::string_view run_id,
                              const std::vector<std::string>& environment, const std::filesystem::path& current_dir,
                              bool dry_run);

}  // namespace mptrain::cluster
