#include "cluster/torchrun_launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <random>

#include "procmgr/output.hpp"
#include "util/environment.hpp"
#include "util/launcher_variables.hpp"
#include "util/names.hpp"
#include "util/number_check.hpp"
#include "util/text.hpp"

namespace mptrain::cluster {

namespace {

// The rendezvous backends mptrain accepts; both are a static rendezvous at the endpoint.
enum class Backend { static_rendezvous, c10d };
constexpr std::array backend_names{Named<Backend>{Backend::static_rendezvous, "static"},
                                   Named<Backend>{Backend::c10d, "c10d"}};

// torchrun's start methods: accepted, mptrain forks and execs.
enum class StartMethod { spawn, fork, forkserver };
constexpr std::array start_method_names{Named<StartMethod>{StartMethod::spawn, "spawn"},
                                        Named<StartMethod>{StartMethod::fork, "fork"},
                                        Named<StartMethod>{StartMethod::forkserver, "forkserver"}};

// The words --nproc-per-node takes besides a number: one worker per usable CPU, or an accelerator's count.
enum class WorkerWord { one_per_cpu, accelerator };
constexpr std::array worker_words{
    Named<WorkerWord>{WorkerWord::one_per_cpu, "auto"}, Named<WorkerWord>{WorkerWord::one_per_cpu, "cpu"},
    Named<WorkerWord>{WorkerWord::accelerator, "gpu"}, Named<WorkerWord>{WorkerWord::accelerator, "xpu"}};

// c10d's port when --rdzv-endpoint gives none, as torchrun's.
constexpr int c10d_default_port = 29400;

// The value of option `value` for messages: "--nproc_per_node gpu".
std::string given(const TorchrunValue& value) { return fmt::format("{} {}", value.spelled, printable(value.value)); }

// `value` of an option that takes a whole number from `min` to `max`; an Error "--node-rank: x is not a whole number".
Result<int> whole_number_of(const TorchrunValue& value, long long min,
                            long long max = std::numeric_limits<int>::max()) {
  const auto number = checked_whole_number(value.value, min, max);
  if (!number.ok()) return Error{fmt::format("{}: {}", value.spelled, number.error().message)};
  return static_cast<int>(*number);
}

// --nproc-per-node into `placement` (torchrun's default: one worker per node).
Status add_workers(const TorchrunArgs& args, TorchrunPlacement& placement) {
  if (!args.nproc_per_node) {
    placement.workers = 1;
    return ok_status();
  }
  const auto& text = args.nproc_per_node->value;
  const auto word = value_named(worker_words, text);
  if (word == WorkerWord::accelerator) {
    return Error{
        fmt::format("{}: mptrain runs CPU workers, one or more per CPU set; give a number of workers, or auto or cpu "
                    "for one per usable CPU",
                    given(*args.nproc_per_node))};
  }
  if (word) {
    placement.one_per_cpu = true;
    return ok_status();
  }
  const auto count = parse_int(trim(text));
  if (!count.ok() || *count < 1) {
    return Error{fmt::format("{}: not a number of workers (1 or more), auto or cpu", given(*args.nproc_per_node))};
  }
  placement.workers = *count;
  return ok_status();
}

// The rendezvous backend (static when not given); an Error for one mptrain does not run.
Result<Backend> backend_of(const TorchrunArgs& args) {
  if (!args.rdzv_backend) return Backend::static_rendezvous;
  if (const auto backend = value_named(backend_names, args.rdzv_backend->value)) return *backend;
  return Error{
      fmt::format("{}: mptrain's rendezvous is static (every node knows node 0's address and its own rank); use "
                  "--rdzv-backend c10d or static with --rdzv-endpoint or --master-addr, and --node-rank on each node",
                  given(*args.rdzv_backend))};
}

// --standalone: one node, 127.0.0.1 and a free port (mptrain's own default); an Error across nodes.
Status check_standalone(const TorchrunArgs& args, int nodes, std::vector<std::string>& warnings) {
  if (nodes > 1) {
    return Error{fmt::format("--standalone runs one node on this host, but {} asks for {}; drop one of them",
                             given(*args.nnodes), nodes)};
  }
  if (args.rdzv_endpoint || args.rdzv_backend) {
    warnings.emplace_back(
        "--standalone chooses the rendezvous itself (this host, a free port): the --rdzv options are ignored");
  }
  return ok_status();
}

// Node 0's address and port: from --rdzv-endpoint, else --master-addr and --master-port.
Status add_endpoint(const TorchrunArgs& args, Backend backend, TorchrunPlacement& placement) {
  if (!args.rdzv_endpoint || args.rdzv_endpoint->value.empty()) {
    if (args.master_addr) placement.master_addr = args.master_addr->value;
    if (args.master_port) {
      const auto port = whole_number_of(*args.master_port, 1, 65535);
      if (!port.ok()) return port.error();
      placement.master_port = *port;
    }
    return ok_status();
  }
  auto endpoint = parse_endpoint(args.rdzv_endpoint->value);
  if (!endpoint.ok()) return endpoint.error();
  if (!endpoint->port && backend == Backend::c10d) endpoint->port = c10d_default_port;
  placement.master_addr = endpoint->host;
  if (endpoint->port) placement.master_port = *endpoint->port;
  return ok_status();
}

// c10d across nodes hands out node ranks as nodes join: refused unless
// --node-rank or a launcher's variable in `environment` gives this node's.
Status check_c10d_ranks(const TorchrunArgs& args, Backend backend, int nodes,
                        const std::vector<std::string>& environment) {
  const auto& givers = launcher_variables::node_rank_givers;
  if (backend != Backend::c10d || nodes <= 1 || args.node_rank ||
      std::any_of(givers.begin(), givers.end(), [&](auto name) { return find_variable(environment, name); })) {
    return ok_status();
  }
  return Error{fmt::format(
      "--rdzv-backend c10d across {} nodes: torch's c10d rendezvous hands out node ranks as nodes join, and mptrain "
      "does not run it; give each node its --node-rank (0 on the endpoint's host), or start one mptrain torchrun "
      "per node with srun or mpirun, which give the ranks",
      nodes)};
}

// The workers, nodes and rendezvous of `args` into `placement` (without --max-restarts).
Status add_placement(const TorchrunArgs& args, const std::vector<std::string>& environment,
                     TorchrunPlacement& placement) {
  if (auto status = add_workers(args, placement); !status.ok()) return status;
  int nodes = 1;
  if (args.nnodes) {
    const auto count = parse_torchrun_nnodes(args.nnodes->value);
    if (!count.ok()) return count.error();
    nodes = *count;
    placement.nodes = nodes;
  }
  const auto backend = backend_of(args);
  if (!backend.ok()) return backend.error();
  if (args.standalone) return check_standalone(args, nodes, placement.warnings);
  if (args.node_rank) {
    const auto rank = whole_number_of(*args.node_rank, 0);
    if (!rank.ok()) return rank.error();
    placement.node_rank = *rank;
  }
  if (auto status = add_endpoint(args, *backend, placement); !status.ok()) return status;
  return check_c10d_ranks(args, *backend, nodes, environment);
}

}  // namespace

Status check_accepted_options(const TorchrunArgs& args) {
  if (args.rdzv_conf) {
    if (auto conf = parse_rdzv_conf(args.rdzv_conf->value); !conf.ok()) return conf.error();
  }
  if (args.monitor_interval) {
    const auto seconds = parse_double(args.monitor_interval->value);
    if (!seconds.ok() || !(*seconds > 0) || *seconds > 86400) {
      return Error{
          fmt::format("{}: not a number of seconds from just above 0 to 86400", given(*args.monitor_interval))};
    }
  }
  if (args.start_method && !value_named(start_method_names, args.start_method->value)) {
    return Error{fmt::format("{}: torchrun's start methods are {}", given(*args.start_method),
                             names_list(start_method_names, "and"))};
  }
  for (const auto* streams : {&args.redirects, &args.tee}) {
    if (!*streams) continue;
    if (auto choice = procmgr::parse_stream_choice((*streams)->value); !choice.ok()) {
      return Error{fmt::format("{}: {}", given(**streams), choice.error().message)};
    }
  }
  if (args.local_addr && args.local_addr->value.empty()) {
    return Error{fmt::format("{} needs an address", args.local_addr->spelled)};
  }
  if (args.role && args.role->value.empty()) return Error{fmt::format("{} needs a name", args.role->spelled)};
  return ok_status();
}

Result<TorchrunPlacement> torchrun_placement(const TorchrunArgs& args, const std::vector<std::string>& environment) {
  TorchrunPlacement placement;
  if (auto status = add_placement(args, environment, placement); !status.ok()) return status.error();
  if (args.max_restarts) {
    const auto restarts = whole_number_of(*args.max_restarts, 0);
    if (!restarts.ok()) return restarts.error();
    placement.max_restarts = *restarts;
  }
  return placement;
}

std::string python_interpreter(const std::vector<std::string>& environment) {
  std::string python;
  if (find_variable(environment, "MPTRAIN_PYTHON", &python) && !python.empty()) return python;
  if (find_variable(environment, "PYTHON_EXEC", &python) && !python.empty()) return python;
  return "python3";
}

Result<std::vector<std::string>> program_words(const TorchrunArgs& args, const std::vector<std::string>& environment) {
  if (args.run_path && args.entry != TorchrunEntry::script) {
    return Error{fmt::format("--run-path runs a script by its path; it does not go with {}",
                             args.entry == TorchrunEntry::module ? "-m/--module" : "--no-python")};
  }
  std::vector<std::string> words;
  if (args.entry != TorchrunEntry::program) {
    words.push_back(python_interpreter(environment));
    words.emplace_back("-u");  // unbuffered, as torchrun runs it
    if (args.entry == TorchrunEntry::module) words.emplace_back("-m");
  }
  words.push_back(args.program);
  words.insert(words.end(), args.program_args.begin(), args.program_args.end());
  return words;
}

std::string fresh_run_id() {
  std::random_device random;  // getrandom(2) in libstdc++
  std::string id;
  for (int i = 0; i < 4; ++i) id += fmt::format("{:08x}", random());
  return id;
}

std::string torchrun_run_id(const TorchrunArgs& args) {
  if (args.rdzv_id && !args.rdzv_id->value.empty() && !args.standalone) return args.rdzv_id->value;
  return fresh_run_id();
}

Status check_log_dir(const TorchrunArgs& args) {
  if (args.log_dir && args.log_dir->value.empty())
    return Error{fmt::format("{} needs a directory", args.log_dir->spelled)};
  return ok_status();
}

RunFolderPlan plan_run_folder(const TorchrunArgs& args, std::string_view run_id,
                              const std::vector<std::string>& environment, const std::filesystem::path& current_dir,
                              bool dry_run) {
  RunFolderPlan plan;
  std::string tmpdir;
  if (args.log_dir) {
    plan.base = args.log_dir->value;
    plan.prefix = run_folder_name(run_id) + "_";
    plan.make_base = true;
    plan.log_dir_option = args.log_dir->spelled;
  } else {
    plan.tmpdir = find_variable(environment, "TMPDIR", &tmpdir) ? tmpdir : "";
    plan.base = plan.tmpdir.empty() ? "/tmp" : plan.tmpdir;
    plan.prefix = "mptrain-torchrun-";
  }
  if (plan.base.is_relative()) plan.base = current_dir / plan.base;
  // Without --log-dir the folder holds only error files, unless -r/-t send streams there: then it stays.
  const bool logs_there = (args.redirects && !args.redirects->value.empty()) || (args.tee && !args.tee->value.empty());
  plan.temporary = !args.log_dir && !logs_there && !dry_run;
  plan.announce = !args.log_dir && logs_there && !dry_run;
  return plan;
}

}  // namespace mptrain::cluster
