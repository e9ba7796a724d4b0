// torchrun's command line and error files, read without Python: what
// `mptrain torchrun` takes in place of torch.distributed.run, and the error
// file that torch.distributed.elastic's @record writes when a worker fails.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace mptrain::cluster {

// How the program is given: a Python script (`SCRIPT`, also --run-path), a
// module (`-m MODULE`) or any program (`--no-python CMD`).
enum class TorchrunEntry { script, module, program };

// One of torchrun's options as given (or taken from its PET_ variable).
struct TorchrunValue {
  std::string value;
  std::string spelled;  // as written: "--nproc_per_node", or "PET_NPROC_PER_NODE"
};

// What a torchrun command line says; an option not given is nullopt.
struct TorchrunArgs {
  std::optional<TorchrunValue> nnodes, nproc_per_node, node_rank, master_addr, master_port;
  std::optional<TorchrunValue> rdzv_backend, rdzv_endpoint, rdzv_id, rdzv_conf;
  std::optional<TorchrunValue> max_restarts, monitor_interval, start_method, role;
  std::optional<TorchrunValue> log_dir, redirects, tee, local_ranks_filter, local_addr;
  bool standalone = false;
  bool module = false;     // -m/--module as given (`entry` says what runs)
  bool no_python = false;  // --no-python as given
  TorchrunEntry entry = TorchrunEntry::script;
  bool run_path = false;
  bool help = false;                      // -h/--help
  std::vector<std::string> mptrain_args;  // mptrain's own options, as words in order ("--json", "--cpus", "0-1")
  std::string program;                    // SCRIPT, MODULE or CMD; "" only with help
  std::vector<std::string> program_args;  // the words after it, verbatim
};

// One option the parser knows, one row each: its short alias ("-r", or ""),
// its name with dashes ("--redirects"), where it goes in TorchrunArgs (a
// value, a flag, or neither for one of mptrain's own options, passed on as
// words), whether it takes a value, and what it does (for help). Parsing,
// help and the PET_ variables are all read from these rows.
struct TorchrunOption {
  std::string_view alias;
  std::string_view name;
  std::optional<TorchrunValue> TorchrunArgs::*value = nullptr;
  bool TorchrunArgs::*flag = nullptr;
  bool takes_value = false;
  std::string_view help;

  // True for one of mptrain's own options (neither a value nor a flag of torchrun's).
  bool mptrain() const { return value == nullptr && flag == nullptr; }
};

// torchrun's options (each also spelled with underscores).
std::span<const TorchrunOption> torchrun_options();

// The names of mptrain's own options that `mptrain torchrun` takes beside
// torchrun's (none clashes with one of torchrun's, nor with a prefix of
// one); their help and whether they take a value are `mptrain run`'s own,
// read by the caller from its definitions (mptrain_option builds the row).
std::span<const std::string_view> torchrun_mptrain_option_names();

// The row of mptrain's own option `name`.
TorchrunOption mptrain_option(std::string_view name, bool takes_value, std::string_view help);

// The PET_ variable torchrun reads for option `name`: "--nproc-per-node" gives PET_NPROC_PER_NODE.
std::string pet_variable(std::string_view name);

// The help of `mptrain torchrun`: usage, torchrun's options, then
// `mptrain_options`, in two columns (the second always at least two spaces
// after the longest option of the first).
std::string torchrun_help(std::span<const TorchrunOption> mptrain_options);

// Reads `args` (the words after "torchrun") as torchrun does: options
// first, in either spelling, "--name=value" or "--name value" (a unique
// prefix of a long name too, as argparse allows); the first word that is
// not an option (or the word after "--") is the program, and every word
// after it belongs to the program. mptrain's own options (`mptrain_options`)
// are kept as words in `mptrain_args`. An option not given takes its
// PET_<NAME> variable from `environment`, as torchrun does. Refuses an
// unknown or ambiguous option, a missing value or program, and -m with
// --no-python; values are checked by check_torchrun_values.
Result<TorchrunArgs> parse_torchrun_args(std::span<const std::string> args, const std::vector<std::string>& environment,
                                         std::span<const TorchrunOption> mptrain_options = {});

// torchrun's --nnodes: "N" or "N:N"; an Error for an elastic range (MIN < MAX)
// or anything else.
Result<int> parse_torchrun_nnodes(std::string_view text);

// torchrun's --rdzv-endpoint "HOST[:PORT]" ("[::1]:29400" for IPv6), the
// port nullopt when not given (0: a free one, as --standalone's
// localhost:0); an Error for an empty host or a bad port.
struct RdzvEndpoint {
  std::string host;
  std::optional<int> port;
};
Result<RdzvEndpoint> parse_endpoint(std::string_view text);

// torchrun's --rdzv-conf "key=value,key=value"; an Error naming an entry without "=" or key.
Result<std::vector<std::pair<std::string, std::string>>> parse_rdzv_conf(std::string_view text);

// --local-ranks-filter "0,2" (each a local rank below `local_size`); an Error otherwise.
Result<std::vector<int>> parse_local_ranks(std::string_view text, int local_size);

// What a worker's error file says (what @record writes: {"message":
// {"message": "ValueError: …", "extraInfo": {"py_callstack": "Traceback …",
// "timestamp": "1700000000"}}}, or "message" as a plain string).
struct WorkerError {
  std::string message;
  std::string traceback;               // "" when not given
  std::optional<long long> timestamp;  // seconds since the epoch
};

// Parses the contents of an error file; an Error when it is not JSON of that form.
Result<WorkerError> parse_error_file(std::string_view text);

// The run id as one file name for the run's folder: letters, digits, '.',
// '_' and '-' kept, anything else (a '/', so "../x" stays inside --log-dir)
// replaced by '_', at most 64 characters, never "." or "..".
std::string run_folder_name(std::string_view run_id);

}  // namespace mptrain::cluster
