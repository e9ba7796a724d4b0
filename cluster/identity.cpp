#include "cluster/identity.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "util/environment.hpp"
#include "util/launcher_variables.hpp"
#include "util/names.hpp"
#include "util/text.hpp"

namespace mptrain::cluster {

namespace {

namespace lv = launcher_variables;

// The largest node count or rank accepted: far beyond any job, small enough for an int.
constexpr long long max_nodes = 1 << 24;
// The largest id of a Slurm job step that runs tasks; the ids above it
// mark the batch script, the extern and the interactive steps.
constexpr std::uint64_t max_normal_step_id = 0xfffffff0;

// One number of an identity and where it came from.
struct Value {
  int value = 0;
  std::string origin;  // for messages: "OMPI_COMM_WORLD_RANK=1", "--node-rank 1"
  std::string label;   // for NodeIdentity::local_source: "Open MPI", "--local-size"
};

// What one source says; the parts it does not give are unset.
struct Reading {
  IdentitySource source = IdentitySource::single_node;
  std::optional<Value> rank;
  std::optional<Value> count;
  std::optional<Value> local_rank;
  std::optional<Value> local_size;
  std::string node_list;
};

// The program that sets each source's variables, for messages.
std::string_view launcher_of(IdentitySource source) {
  switch (source) {
    case IdentitySource::open_mpi:
      return "Open MPI's mpirun";
    case IdentitySource::pmi:
      return "the Hydra mpiexec of MPICH or Intel MPI";
    case IdentitySource::slurm:
      return "Slurm's srun";
    case IdentitySource::pytorch_job:
      return "a Kubernetes PyTorchJob";
    case IdentitySource::options:
    case IdentitySource::single_node:
      break;
  }
  return "the command line";
}

// The environment, searched by name; a variable set to "" counts as unset.
class Variables {
 public:
  explicit Variables(const std::vector<std::string>& entries) : entries_(entries) {}

  // The value of `name`, or nullopt when it is unset or empty.
  std::optional<std::string> get(std::string_view name) const {
    std::string value;
    if (!find_variable(entries_, name, &value) || value.empty()) return std::nullopt;
    return value;
  }

 private:
  const std::vector<std::string>& entries_;
};

// `text` as a whole number from `min` to max_nodes, described as `origin`; an Error naming `origin` otherwise.
Result<Value> whole_number(const std::string& origin, std::string_view text, long long min) {
  const auto number = parse_int(text);
  if (!number.ok() || text != trim(text)) return Error{fmt::format("{} is not a whole number", origin)};
  if (*number < min) {
    return Error{min == 0 ? fmt::format("{} is negative", origin)
                          : fmt::format("{} is not a count: it must be at least {}", origin, min)};
  }
  if (*number > max_nodes) return Error{fmt::format("{} is more than {}", origin, max_nodes)};
  return Value{static_cast<int>(*number), origin, {}};
}

// Variable `name` as a whole number of at least `min`: unset when the variable is; an Error when it is malformed.
Result<std::optional<Value>> number_variable(const Variables& env, std::string_view name, long long min) {
  const auto text = env.get(name);
  if (!text) return std::optional<Value>{};
  auto value = whole_number(fmt::format("{}={}", name, *text), *text, min);
  if (!value.ok()) return value.error();
  return std::optional<Value>(std::move(value).value());
}

// Refuses `rank` not below `size` (both set).
Status check_below(const std::optional<Value>& rank, const std::optional<Value>& size) {
  if (rank && size && rank->value >= size->value) {
    return Error{fmt::format("{} is not below {}", rank->origin, size->origin)};
  }
  return ok_status();
}

// A rank and the size it counts in, both unset or both set.
struct Pair {
  std::optional<Value> rank;
  std::optional<Value> size;
};

// Variables `rank_name` and `size_name`: both unset, or both set with the
// rank below the size; an Error when one is missing or a value is bad.
Result<Pair> read_pair(const Variables& env, std::string_view rank_name, std::string_view size_name) {
  auto rank = number_variable(env, rank_name, 0);
  if (!rank.ok()) return rank.error();
  auto size = number_variable(env, size_name, 1);
  if (!size.ok()) return size.error();
  if (rank->has_value() != size->has_value()) {
    const Value& set = rank->has_value() ? **rank : **size;
    return Error{fmt::format("{} is set but {} is not", set.origin, rank->has_value() ? size_name : rank_name)};
  }
  if (auto status = check_below(*rank, *size); !status.ok()) return status.error();
  return Pair{*rank, *size};
}

// Labels both values of `pair` with `label`.
Pair labelled(Pair pair, std::string_view label) {
  if (pair.rank) pair.rank->label = label;
  if (pair.size) pair.size->label = label;
  return pair;
}

// Open MPI's OMPI_COMM_WORLD_* variables; unset when mpirun did not start this process.
Result<std::optional<Reading>> read_open_mpi(const Variables& env) {
  const auto world = read_pair(env, lv::ompi_rank, lv::ompi_size);
  if (!world.ok()) return world.error();
  if (!world->rank) return std::optional<Reading>{};
  const auto local = read_pair(env, lv::ompi_local_rank, lv::ompi_local_size);
  if (!local.ok()) return local.error();
  const Pair here = labelled(*local, "Open MPI");
  return std::optional<Reading>(Reading{IdentitySource::open_mpi, world->rank, world->size, here.rank, here.size, {}});
}

// Hydra's PMI_RANK/PMI_SIZE with MPI_LOCALRANKID/MPI_LOCALNRANKS; unset
// without PMI_SIZE (a PMI_RANK alone is only a rank to check, see rank_hints).
Result<std::optional<Reading>> read_pmi(const Variables& env) {
  if (!env.get(lv::pmi_size)) return std::optional<Reading>{};
  const auto world = read_pair(env, lv::pmi_rank, lv::pmi_size);
  if (!world.ok()) return world.error();
  const auto local = read_pair(env, lv::mpi_local_rank_id, lv::mpi_local_ranks);
  if (!local.ok()) return local.error();
  const Pair here = labelled(*local, "PMI");
  return std::optional<Reading>(Reading{IdentitySource::pmi, world->rank, world->size, here.rank, here.size, {}});
}

// True when this process is a task of a Slurm job step (srun), where
// SLURM_PROCID and SLURM_LOCALID are its own; false in a batch script.
bool in_slurm_step(const Variables& env) {
  auto step = env.get(lv::slurm_step_id);
  if (!step) step = env.get(lv::slurm_step_id_old);
  if (!step) return false;
  const auto id = parse_u64(*step);
  return id && *id <= max_normal_step_id;
}

// The tasks on this node, from the step's (else the job's) compressed list
// at SLURM_NODEID, else SLURM_NTASKS_PER_NODE; unset when none is set.
Result<std::optional<Value>> slurm_tasks_here(const Variables& env) {
  auto node = number_variable(env, lv::slurm_nodeid, 0);
  if (!node.ok()) return node.error();
  for (std::string_view name : {lv::slurm_step_tasks_per_node, lv::slurm_tasks_per_node}) {
    const auto list = env.get(name);
    if (!list) continue;
    std::string origin = fmt::format("{}={}", name, *list);
    if (!node->has_value() && list->find(',') != std::string::npos) {
      return Error{fmt::format("{} differs between nodes but SLURM_NODEID is not set", origin)};
    }
    const int index = node->has_value() ? (*node)->value : 0;
    if (node->has_value()) origin += fmt::format(" at {}", (*node)->origin);
    const auto tasks = slurm_tasks_on_node(*list, index);
    if (!tasks.ok()) return Error{fmt::format("{}: {}", origin, tasks.error().message)};
    return std::optional<Value>(Value{*tasks, fmt::format("the {} of {}", counted(*tasks, "task"), origin), "Slurm"});
  }
  auto per_node = number_variable(env, lv::slurm_ntasks_per_node, 1);
  if (!per_node.ok()) return per_node.error();
  if (per_node->has_value()) (*per_node)->label = "Slurm";
  return per_node;
}

// A Slurm job step's task variables; unset outside a job step.
Result<std::optional<Reading>> read_slurm(const Variables& env) {
  if (!in_slurm_step(env)) return std::optional<Reading>{};
  Reading reading{IdentitySource::slurm, {}, {}, {}, {}, {}};
  auto rank = number_variable(env, lv::slurm_procid, 0);
  if (!rank.ok()) return rank.error();
  if (!rank->has_value()) return std::optional<Reading>{};
  auto count = number_variable(env, lv::slurm_ntasks, 1);
  if (!count.ok()) return count.error();
  if (!count->has_value()) return Error{fmt::format("{} is set but SLURM_NTASKS is not", (*rank)->origin)};
  auto local_rank = number_variable(env, lv::slurm_localid, 0);
  if (!local_rank.ok()) return local_rank.error();
  if (local_rank->has_value()) (*local_rank)->label = "Slurm";
  auto local_size = slurm_tasks_here(env);
  if (!local_size.ok()) return local_size.error();
  reading.rank = *rank;
  reading.count = *count;
  reading.local_rank = *local_rank;
  reading.local_size = *local_size;
  if (auto status = check_below(reading.rank, reading.count); !status.ok()) return status.error();
  if (auto status = check_below(reading.local_rank, reading.local_size); !status.ok()) return status.error();
  reading.node_list = env.get(lv::slurm_job_nodelist).value_or(env.get(lv::slurm_nodelist).value_or(""));
  return std::optional<Reading>(std::move(reading));
}

// PET_NNODES as a fixed node count: "K" or the range "K:K"; an Error for an elastic range.
Result<std::optional<Value>> pet_nnodes(const Variables& env) {
  const auto text = env.get(lv::pet_nnodes);
  if (!text) return std::optional<Value>{};
  const std::string origin = fmt::format("{}={}", lv::pet_nnodes, *text);
  const auto range = split(*text, ':');
  if (range.size() == 2 && range[0] != range[1]) {
    return Error{
        fmt::format("{} is an elastic range of node counts; mptrain needs a fixed count: set one number", origin)};
  }
  auto count = whole_number(origin, range.size() == 2 ? range[0] : std::string_view(*text), 1);
  if (!count.ok()) return count.error();
  return std::optional<Value>(std::move(count).value());
}

// A PyTorchJob's PET_NNODES and PET_NODE_RANK, as torchrun reads them; unset without either.
Result<std::optional<Reading>> read_pytorch_job(const Variables& env) {
  auto count = pet_nnodes(env);
  if (!count.ok()) return count.error();
  auto rank = number_variable(env, lv::pet_node_rank, 0);
  if (!rank.ok()) return rank.error();
  if (!count->has_value() && !rank->has_value()) return std::optional<Reading>{};
  // Without PET_NNODES the count may come from --nnodes (read_node_identity checks that one does).
  Reading reading{IdentitySource::pytorch_job, *rank, *count, {}, {}, {}};
  if (count->has_value()) {
    if (auto status = check_below(reading.rank, reading.count); !status.ok()) return status.error();
  }
  return std::optional<Reading>(std::move(reading));
}

// `error` with what to do about the variables of `source`.
Error about_variables(const Error& error, IdentitySource source) {
  return Error{
      fmt::format("{}; mptrain reads who it is from these variables, which {} sets: start mptrain with it, "
                  "or unset them",
                  error.message, launcher_of(source))};
}

// An Error when `a` and `b` (one part of what two sources say) are both set and differ.
Status agree(const std::optional<Value>& a, const std::optional<Value>& b, IdentitySource a_source,
             IdentitySource b_source) {
  if (!a || !b || a->value == b->value) return ok_status();
  return Error{
      fmt::format("{} (from {}) and {} (from {}) disagree; unset the variables of the launcher that did "
                  "not start this mptrain",
                  a->origin, launcher_of(a_source), b->origin, launcher_of(b_source))};
}

// An Error when sources `a` and `b` name different ranks or counts.
Status agree(const Reading& a, const Reading& b) {
  if (auto status = agree(a.rank, b.rank, a.source, b.source); !status.ok()) return status;
  return agree(a.count, b.count, a.source, b.source);
}

// The MPI launcher's reading (Open MPI's, else Hydra's; both must agree), or unset.
Result<std::optional<Reading>> read_mpi(const Variables& env) {
  auto open_mpi = read_open_mpi(env);
  if (!open_mpi.ok()) return about_variables(open_mpi.error(), IdentitySource::open_mpi);
  auto pmi = read_pmi(env);
  if (!pmi.ok()) return about_variables(pmi.error(), IdentitySource::pmi);
  if (open_mpi->has_value() && pmi->has_value()) {
    if (auto status = agree(**open_mpi, **pmi); !status.ok()) return status.error();
  }
  return open_mpi->has_value() ? open_mpi : pmi;
}

// What Slurm's task variables say when an MPI launcher's are used instead:
// a note when they disagree (mpirun inside a Slurm allocation), nothing otherwise.
void note_slurm_ignored(const std::optional<Reading>& slurm, const Reading& mpi, std::vector<std::string>& notes) {
  if (!slurm || agree(*slurm, mpi).ok()) return;
  notes.push_back(fmt::format("Slurm's {} and {} are ignored: {} started this mptrain, inside the Slurm allocation",
                              slurm->rank->origin, slurm->count->origin, launcher_of(mpi.source)));
}

// The closest launcher's reading: an MPI launcher, else a Slurm job step,
// each checked against a PyTorchJob's variables; else the PyTorchJob's; or unset.
Result<std::optional<Reading>> read_launchers(const Variables& env, std::vector<std::string>& notes) {
  auto mpi = read_mpi(env);
  if (!mpi.ok()) return mpi.error();
  auto slurm = read_slurm(env);
  if (!slurm.ok()) return about_variables(slurm.error(), IdentitySource::slurm);
  auto job = read_pytorch_job(env);
  if (!job.ok()) return about_variables(job.error(), IdentitySource::pytorch_job);
  if (mpi->has_value()) note_slurm_ignored(*slurm, **mpi, notes);
  if (!mpi->has_value() && !slurm->has_value()) {
    if (const auto procid = env.get(lv::slurm_procid)) {
      notes.push_back(
          fmt::format("{}={} is ignored: this is no Slurm job step (as in a batch script); "
                      "start mptrain with srun to run one per task",
                      lv::slurm_procid, *procid));
    }
  }
  auto closest = mpi->has_value() ? *mpi : *slurm;
  if (!closest) return job;
  if (job->has_value()) {
    if (auto status = agree(**job, *closest); !status.ok()) return status.error();
  }
  return std::optional<Reading>(std::move(closest));
}

// The option `name` with `value` as a Value, or unset.
std::optional<Value> option_value(std::string_view name, const std::optional<int>& value) {
  if (!value) return std::nullopt;
  return Value{*value, fmt::format("{} {}", name, *value), std::string(name)};
}

// Takes the option `given` into `slot`; an Error when `slot` already says otherwise — except over a
// PyTorchJob's PET_ variable, which, as in torchrun, only stands for an option not given.
Status merge_option(std::optional<Value>& slot, const std::optional<Value>& given, IdentitySource source) {
  if (!given) return ok_status();
  if (source == IdentitySource::pytorch_job) {
    slot = given;
    return ok_status();
  }
  if (slot && slot->value != given->value) {
    return Error{fmt::format("{} contradicts {}, which {} set; leave {} out or give the value the launcher set",
                             given->origin, slot->origin, launcher_of(source), given->label)};
  }
  if (!slot) slot = given;
  return ok_status();
}

// Takes the options of `request` into `reading` (an Error for a contradiction);
// with no source yet, --nnodes makes the options the source.
Status merge_options(Reading& reading, const NodeRequest& request) {
  if (reading.source == IdentitySource::single_node && request.nnodes) reading.source = IdentitySource::options;
  if (reading.source == IdentitySource::single_node) {
    for (const auto& given :
         {option_value("--node-rank", request.node_rank), option_value("--local-rank", request.local_rank),
          option_value("--local-size", request.local_size)}) {
      if (given) return Error{fmt::format("{} needs --nnodes, the number of nodes", given->origin)};
    }
    return ok_status();
  }
  for (auto [slot, given] : {std::pair{&reading.count, option_value("--nnodes", request.nnodes)},
                             std::pair{&reading.rank, option_value("--node-rank", request.node_rank)},
                             std::pair{&reading.local_rank, option_value("--local-rank", request.local_rank)},
                             std::pair{&reading.local_size, option_value("--local-size", request.local_size)}}) {
    if (auto status = merge_option(*slot, given, reading.source); !status.ok()) return status;
  }
  return ok_status();
}

// The ranks set by a launcher that give no node count: PMIX_RANK (any PMIx
// launcher), PMI_RANK without PMI_SIZE; an Error for a malformed value.
Result<std::vector<Value>> rank_hints(const Variables& env) {
  std::vector<Value> hints;
  std::vector<std::string_view> names = {lv::pmix_rank};
  if (!env.get(lv::pmi_size)) names.push_back(lv::pmi_rank);
  for (const auto name : names) {
    auto hint = number_variable(env, name, 0);
    if (!hint.ok()) return hint.error();
    if (hint->has_value()) hints.push_back(**hint);
  }
  return hints;
}

// Checks `reading`'s rank against each of `hints`, or takes it from them when unset.
Status check_rank_hints(Reading& reading, const std::vector<Value>& hints) {
  for (const auto& hint : hints) {
    if (reading.source == IdentitySource::single_node) {
      return Error{fmt::format("{} is set, but no variable says how many nodes there are ({}, {}, {}); give --nnodes",
                               hint.origin, lv::ompi_size, lv::pmi_size, lv::slurm_ntasks)};
    }
    if (!reading.rank) reading.rank = hint;
    if (reading.rank->value != hint.value) {
      return Error{
          fmt::format("{} disagrees with {}; unset the variables of the launcher that did not start this "
                      "mptrain",
                      hint.origin, reading.rank->origin)};
    }
  }
  return ok_status();
}

// The master address: --master-addr, else PET_MASTER_ADDR (a PyTorchJob's), or "".
std::string master_address(const Variables& env, const NodeRequest& request) {
  if (!request.master_addr.empty()) return request.master_addr;
  return env.get(lv::pet_master_addr).value_or("");
}

// Fills the node rank and count `reading` left unset: node 0 of 1, node 0 of
// the count given (torchrun's default, noted).
void fill_node_defaults(Reading& reading, std::vector<std::string>& notes) {
  if (!reading.count) reading.count = Value{1, "the node count 1", {}};
  if (reading.rank) return;
  reading.rank = Value{0, "the node rank 0", {}};
  if (reading.count->value > 1) {
    notes.push_back(fmt::format("{} not given: this is node 0, as torchrun assumes; give it on every other node",
                                reading.source == IdentitySource::pytorch_job ? lv::pet_node_rank : "--node-rank"));
  }
}

// Fills the local rank and size `reading` left unset: the node rank and count
// when the master address `master` is a loopback address (every node runs on
// this host), else one mptrain per host.
void fill_local_defaults(Reading& reading, const std::string& master, std::vector<std::string>& notes) {
  if (reading.local_rank && reading.local_size) return;
  if (reading.count->value > 1 && is_loopback(master)) {
    notes.push_back(
        fmt::format("the master address {} is a loopback address, so every node runs on this host: "
                    "local rank = node rank, local size = node count",
                    master));
    const std::string why = fmt::format("as the master address {} is loopback", master);
    const std::string label = "loopback master address";
    if (!reading.local_rank) {
      reading.local_rank =
          Value{reading.rank->value, fmt::format("the local rank {} ({})", reading.rank->value, why), label};
    }
    if (!reading.local_size) {
      reading.local_size =
          Value{reading.count->value, fmt::format("the local size {} ({})", reading.count->value, why), label};
    }
    return;
  }
  if (!reading.local_rank) reading.local_rank = Value{0, "the local rank 0", "one per host"};
  if (!reading.local_size) {
    reading.local_size = Value{1, "the local size 1 (one mptrain per host; give --local-size)", "one per host"};
  }
}

// Refuses a rank not below its count and more mptrain on this host than nodes.
Status check_ranges(const Reading& reading) {
  if (auto status = check_below(reading.rank, reading.count); !status.ok()) return status;
  if (auto status = check_below(reading.local_rank, reading.local_size); !status.ok()) return status;
  if (reading.local_size->value > reading.count->value) {
    return Error{fmt::format("{} is more than {}: a host cannot hold more mptrain than there are nodes",
                             reading.local_size->origin, reading.count->origin)};
  }
  return ok_status();
}

// True when `name` is one of the names of this host's loopback interface.
bool is_loopback_name(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower.ends_with('.')) lower.pop_back();
  return lower == "localhost" || lower == "localhost.localdomain" || lower == "ip6-localhost" ||
         lower == "ip6-loopback" || lower.ends_with(".localhost");
}

}  // namespace

namespace {

constexpr std::array source_names{Named<IdentitySource>{IdentitySource::single_node, "single node"},
                                  Named<IdentitySource>{IdentitySource::open_mpi, "Open MPI"},
                                  Named<IdentitySource>{IdentitySource::pmi, "PMI"},
                                  Named<IdentitySource>{IdentitySource::slurm, "Slurm"},
                                  Named<IdentitySource>{IdentitySource::pytorch_job, "PyTorchJob"},
                                  Named<IdentitySource>{IdentitySource::options, "--nnodes"}};

}  // namespace

std::string_view to_string(IdentitySource source) { return name_of(source_names, source, "single node"); }

std::string count_origin(const NodeIdentity& identity) {
  switch (identity.source) {
    case IdentitySource::slurm:
      return fmt::format("{} (SLURM_NTASKS={})", launcher_of(identity.source), identity.count);
    case IdentitySource::pytorch_job:
      return fmt::format("PET_NNODES={} ({})", identity.count, launcher_of(identity.source));
    default:
      return fmt::format("--nnodes {}", identity.count);
  }
}

Result<NodeIdentity> read_node_identity(const std::vector<std::string>& environment, const NodeRequest& request) {
  const Variables env(environment);
  NodeIdentity identity;
  // 1. The closest launcher's variables, checked against each other.
  auto launcher = read_launchers(env, identity.notes);
  if (!launcher.ok()) return launcher.error();
  Reading reading = launcher->value_or(Reading{});
  // 2. The options: they fill what the launcher leaves open and must agree with the rest.
  if (auto status = merge_options(reading, request); !status.ok()) return status.error();
  if (reading.source == IdentitySource::pytorch_job && !reading.count) {
    return Error{
        fmt::format("{} is set, but neither PET_NNODES nor --nnodes says how many nodes there are; give "
                    "--nnodes",
                    reading.rank->origin)};
  }
  // 3. Ranks given without a count (PMIX_RANK) must agree too.
  auto hints = rank_hints(env);
  if (!hints.ok()) return hints.error();
  if (auto status = check_rank_hints(reading, *hints); !status.ok()) return status.error();
  // 4. Defaults for the rest, then the ranges across sources.
  fill_node_defaults(reading, identity.notes);
  fill_local_defaults(reading, master_address(env, request), identity.notes);
  if (auto status = check_ranges(reading); !status.ok()) return status.error();
  identity.rank = reading.rank->value;
  identity.count = reading.count->value;
  identity.local_rank = reading.local_rank->value;
  identity.local_size = reading.local_size->value;
  identity.source = reading.source;
  identity.local_source = reading.local_size->label;
  identity.node_list = reading.node_list;
  return identity;
}

std::string describe(const NodeIdentity& identity) {
  if (identity.single_node()) return "single node";
  return fmt::format("node {} of {} (local {} of {}, from {})", identity.rank, identity.count, identity.local_rank,
                     identity.local_size, to_string(identity.source));
}

Result<int> slurm_tasks_on_node(std::string_view list, int node) {
  long long first = 0;  // the first node the current item covers
  for (const auto item : split(list, ',')) {
    const auto open = item.find("(x");
    const auto tasks = parse_int(item.substr(0, open));
    long long repeat = 1;
    if (open != std::string_view::npos) {
      const auto close = item.find(')', open);
      const auto times = parse_int(item.substr(open + 2, close == std::string_view::npos ? 0 : close - open - 2));
      if (close != item.size() - 1 || !times.ok() || *times < 1) {
        return Error{fmt::format("'{}' is not COUNT or COUNT(xREPEAT)", item)};
      }
      repeat = *times;
    }
    if (!tasks.ok() || *tasks < 0 || item != trim(item)) {
      return Error{fmt::format("'{}' is not COUNT or COUNT(xREPEAT)", item)};
    }
    if (node >= first && node < first + repeat) {
      if (*tasks == 0 || *tasks > max_nodes) return Error{fmt::format("node {} has {}", node, counted(*tasks, "task"))};
      return static_cast<int>(*tasks);
    }
    first += repeat;
  }
  return Error{fmt::format("it lists {}, so there is no node {}", counted(first, "node"), node)};
}

bool is_loopback(std::string_view address) {
  std::string text(trim(address));
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  std::array<unsigned char, 4> v4{};  // network byte order
  if (::inet_pton(AF_INET, text.c_str(), v4.data()) == 1) return v4[0] == 127;
  std::array<unsigned char, 16> v6{};
  if (::inet_pton(AF_INET6, text.c_str(), v6.data()) == 1) {
    const auto zeros = [&v6](int from, int to) {
      return std::all_of(&v6[from], &v6[to], [](auto b) { return b == 0; });
    };
    if (zeros(0, 15) && v6[15] == 1) return true;                              // ::1
    return zeros(0, 10) && v6[10] == 0xff && v6[11] == 0xff && v6[12] == 127;  // ::ffff:127.x.y.z
  }
  return is_loopback_name(text);
}

bool started_by_parallel_launcher(const std::vector<std::string>& environment) {
  const Variables env(environment);
  for (const std::string_view name : {lv::ompi_size, lv::pmi_size, lv::pmix_rank, lv::slurm_step_id}) {
    if (env.get(name)) return true;
  }
  return false;
}

nlohmann::json node_json(const NodeIdentity& node) {
  return {{"rank", node.rank},
          {"count", node.count},
          {"local_rank", node.local_rank},
          {"local_size", node.local_size},
          {"source", to_string(node.source)},
          {"local_source", node.local_source},
          {"node_list", node.node_list.empty() ? nlohmann::json(nullptr) : nlohmann::json(node.node_list)}};
}

}  // namespace mptrain::cluster
