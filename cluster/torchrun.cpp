#include "cluster/torchrun.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "util/environment.hpp"
#include "util/launcher_variables.hpp"
#include "util/parse_errors.hpp"
#include "util/text.hpp"

namespace mptrain::cluster {

namespace {

using ValueField = std::optional<TorchrunValue> TorchrunArgs::*;
using FlagField = bool TorchrunArgs::*;

// A row of torchrun's that takes a value, stored in `target`.
constexpr TorchrunOption valued(std::string_view alias, std::string_view name, ValueField target,
                                std::string_view help) {
  return {alias, name, target, nullptr, true, help};
}

// A row of torchrun's that takes no value and sets `target`.
constexpr TorchrunOption flagged(std::string_view alias, std::string_view name, FlagField target,
                                 std::string_view help) {
  return {alias, name, nullptr, target, false, help};
}

using A = TorchrunArgs;
constexpr std::array torchrun_table{
    valued("", "--nnodes", &A::nnodes, "Nodes: N or N:N (an elastic range MIN:MAX is refused)"),
    valued("", "--nproc-per-node", &A::nproc_per_node,
           "Workers on this node: a number, auto or cpu (one per usable CPU)"),
    valued("", "--node-rank", &A::node_rank, "This node's rank, 0 to N-1"),
    valued("", "--master-addr", &A::master_addr, "Node 0's address (MASTER_ADDR)"),
    valued("", "--master-port", &A::master_port, "MASTER_PORT (default: a free port on one node, 29500 across nodes)"),
    valued("", "--rdzv-backend", &A::rdzv_backend, "static or c10d: both are a static rendezvous at the endpoint"),
    valued("", "--rdzv-endpoint", &A::rdzv_endpoint, "HOST[:PORT] of node 0 (c10d's port defaults to 29400)"),
    valued("", "--rdzv-id", &A::rdzv_id, "The job's id: TORCHELASTIC_RUN_ID (default: a fresh id)"),
    valued("", "--rdzv-conf", &A::rdzv_conf, "key=value,... for torch's rendezvous: checked, not used"),
    flagged("", "--standalone", &A::standalone, "One node on this host, at a free port"),
    valued("", "--max-restarts", &A::max_restarts, "Restart the whole group up to K times after a failure"),
    valued("", "--monitor-interval", &A::monitor_interval,
           "Seconds between torchrun's checks: accepted, mptrain reaps at once"),
    valued("", "--start-method", &A::start_method, "spawn, fork or forkserver: accepted, mptrain forks and execs"),
    valued("", "--role", &A::role, "ROLE_NAME of the workers (default: default)"),
    flagged("-m", "--module", &A::module, "Run the program as a Python module (python3 -m MODULE)"),
    flagged("", "--no-python", &A::no_python, "Run the program itself, not under python3"),
    flagged("", "--run-path", &A::run_path, "Run the script by its path (as python3 SCRIPT does)"),
    valued("", "--log-dir", &A::log_dir, "Logs and error files: DIR/RUNID_XXXXXX/attempt_A/LOCALRANK/{stdout.log,...}"),
    valued("-r", "--redirects", &A::redirects,
           "Streams only to log files: 0-3 (none, out, err, both) or per rank, 0:1,1:2"),
    valued("-t", "--tee", &A::tee,
           "Streams to log files and the console, written as for --redirects (-t is --tee here, not "
           "--threads-per-process as in run and plan)"),
    valued("", "--local-ranks-filter", &A::local_ranks_filter,
           "Show only these local ranks' output on the console: 0,1"),
    valued("", "--local-addr", &A::local_addr, "This node's address: accepted (mptrain's rendezvous is static)"),
    flagged("-h", "--help", &A::help, "Print this help"),
};

// mptrain's own options that `mptrain torchrun` takes beside torchrun's.
constexpr std::array<std::string_view, 25> mptrain_names{
    "--json",
    "--dry-run",
    "--threads-per-process",
    "--cpus",
    "--bind",
    "--physical-cores",
    "--reserve",
    "--allow-oversubscribe",
    "--children",
    "--descendants",
    "--spread-threads",
    "--keep-program-threads",
    "--omp-bind",
    "--wait-policy",
    "--allocator",
    "--membind",
    "--interleave",
    "--grace",
    "--keep-env",
    "--fail-on",
    "--ignore",
    "--quiet",
    "--verbose",
    "--no-tag-output",
    "--timestamp-output",
};

// A name as the user may write it: underscores read as dashes.
std::string dashed(std::string_view word) {
  std::string text(word);
  if (text.starts_with("--")) std::replace(text.begin() + 2, text.end(), '_', '-');
  return text;
}

// "--name" or "--name V, -a V", as help shows an option.
std::string label(const TorchrunOption& option) {
  const std::string_view value = option.takes_value ? " V" : "";
  if (option.alias.empty()) return fmt::format("{}{}", option.name, value);
  return fmt::format("{}{}, {}{}", option.name, value, option.alias, value);
}

// The option a word names: exactly (its name or alias), or as the unique
// prefix of one long name; an Error for none or several.
class OptionFinder {
 public:
  explicit OptionFinder(std::span<const TorchrunOption> mptrain) : mptrain_(mptrain) {}

  // The row that `name` (dashed, without its value; `written` as given) names.
  Result<const TorchrunOption*> find(std::string_view name, std::string_view written) const {
    std::vector<const TorchrunOption*> candidates;
    for (const auto table : {std::span<const TorchrunOption>(torchrun_table), mptrain_}) {
      for (const auto& option : table) {
        if (option.name == name || (!option.alias.empty() && option.alias == name)) return &option;
        if (name.starts_with("--") && name.size() > 2 && option.name.starts_with(name)) candidates.push_back(&option);
      }
    }
    if (candidates.size() == 1) return candidates.front();
    if (candidates.empty()) {
      return Error{fmt::format(
          "torchrun has no option {}{} (see 'mptrain torchrun --help' for torchrun's options and the mptrain "
          "options it also takes)",
          printable(written), near_names(name))};
    }
    std::string names;
    for (const auto* candidate : candidates) names += fmt::format("{}{}", names.empty() ? "" : ", ", candidate->name);
    return Error{fmt::format("{} is ambiguous: it could be {}; write the whole name", printable(written), names)};
  }

 private:
  // "; did you mean --nproc-per-node?" for a long `name` near one of the options (or ""), as run's errors say it.
  std::string near_names(std::string_view name) const {
    if (!name.starts_with("--")) return {};
    std::vector<std::string> known;
    for (const auto table : {std::span<const TorchrunOption>(torchrun_table), mptrain_}) {
      for (const auto& option : table) known.emplace_back(option.name);
    }
    const auto near = nearest_names(name, known);
    return near.empty() ? std::string() : fmt::format("; did you mean {}?", joined_list(near, "or"));
  }

  std::span<const TorchrunOption> mptrain_;
};

// One option word split: "--name=value", "--name", "-r3" or "-r".
struct OptionWord {
  std::string name;                  // dashed, without its value
  std::optional<std::string> value;  // the value written in the same word
  std::string_view written;          // the name as spelled, without its value
};

OptionWord split_option_word(const std::string& word) {
  OptionWord split{dashed(word), std::nullopt, {}};
  if (split.name.starts_with("--")) {
    if (const auto equals = split.name.find('='); equals != std::string::npos) {
      split.value = word.substr(equals + 1);
      split.name.resize(equals);
    }
  } else if (split.name.size() > 2) {
    split.value = split.name.substr(2);
    split.name.resize(2);
  }
  split.written = std::string_view(word).substr(0, split.name.size());
  return split;
}

// Reads options from `words` into `args`, from `at` up to the program;
// returns the index of the program's word.
class OptionReader {
 public:
  OptionReader(std::span<const std::string> words, std::span<const TorchrunOption> mptrain, TorchrunArgs& args)
      : words_(words), finder_(mptrain), args_(args) {}

  // Reads every option; the index of the first word after them (the program), or an Error.
  Result<std::size_t> read() {
    std::size_t i = 0;
    for (; i < words_.size(); ++i) {
      const std::string& word = words_[i];
      if (word == "--") return i + 1;
      if (!word.starts_with('-') || word == "-") return i;  // the program
      if (auto status = read_option(i); !status.ok()) return status.error();
      if (args_.help) return words_.size();  // answered at once, as argparse does
    }
    return i;
  }

 private:
  // Reads the option at `i` (and its value, advancing `i` when it is the next word).
  Status read_option(std::size_t& i) {
    const std::string& word = words_[i];
    const auto split = split_option_word(word);
    const auto found = finder_.find(split.name, word);
    if (!found.ok()) return found.error();
    const TorchrunOption& option = **found;
    std::string value;
    if (option.takes_value) {
      if (split.value) {
        value = *split.value;
      } else if (i + 1 < words_.size()) {
        value = words_[++i];
      } else {
        return Error{fmt::format("{} needs a value (see 'mptrain torchrun --help')", printable(word))};
      }
    } else if (split.value) {
      return Error{fmt::format("{} takes no value: write {}", printable(word), shown(option, split.name))};
    }
    return store(option, split, std::move(value), word);
  }

  // The name of `option` as messages show it: the alias when `name` is the alias.
  static std::string_view shown(const TorchrunOption& option, std::string_view name) {
    return name == option.alias ? option.alias : option.name;
  }

  // Stores `value` of `option` (written as `split` in `word`) where its row says.
  Status store(const TorchrunOption& option, const OptionWord& split, std::string value, const std::string& word) {
    if (option.flag != nullptr) {
      args_.*option.flag = true;
    } else if (option.value != nullptr) {
      auto& target = args_.*option.value;
      if (target) {
        return Error{fmt::format("{} was given twice ({} and {}); give it once", shown(option, split.name),
                                 target->spelled, printable(word))};
      }
      target = TorchrunValue{std::move(value), std::string(split.written)};
    } else {
      args_.mptrain_args.emplace_back(option.name);
      if (option.takes_value) args_.mptrain_args.push_back(std::move(value));
    }
    return ok_status();
  }

  std::span<const std::string> words_;
  OptionFinder finder_;
  TorchrunArgs& args_;
};

// Options not given: torchrun's PET_<NAME> variables from `environment`.
void take_pet_variables(TorchrunArgs& args, const std::vector<std::string>& environment) {
  for (const auto& option : torchrun_table) {
    if (option.value == nullptr || args.*option.value) continue;
    const std::string variable = pet_variable(option.name);
    std::string value;
    if (find_variable(environment, variable, &value)) args.*option.value = TorchrunValue{value, variable};
  }
}

// The entry and the program from the words from `at` on.
Status take_program(TorchrunArgs& args, std::span<const std::string> words, std::size_t at) {
  if (args.module && args.no_python) {
    return Error{"-m/--module runs a Python module and --no-python runs a program without Python; drop one of them"};
  }
  args.entry = args.module ? TorchrunEntry::module : args.no_python ? TorchrunEntry::program : TorchrunEntry::script;
  if (at >= words.size()) {
    const char* what = args.module      ? "a module to run (-m MODULE)"
                       : args.no_python ? "a program to run"
                                        : "a script to run";
    return Error{
        fmt::format("torchrun needs {} after its options, e.g. mptrain torchrun --nproc-per-node 2 train.py", what)};
  }
  args.program = words[at];
  if (args.program.empty()) return Error{"the program to run is the empty word; give a script, module or program"};
  args.program_args.assign(words.begin() + static_cast<std::ptrdiff_t>(at) + 1, words.end());
  return ok_status();
}

}  // namespace

std::span<const TorchrunOption> torchrun_options() { return torchrun_table; }
std::span<const std::string_view> torchrun_mptrain_option_names() { return mptrain_names; }

TorchrunOption mptrain_option(std::string_view name, bool takes_value, std::string_view help) {
  return {"", name, nullptr, nullptr, takes_value, help};
}

std::string pet_variable(std::string_view name) {
  std::string variable(launcher_variables::pet_prefix);
  for (char c : name.substr(2))
    variable += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return variable;
}

std::string torchrun_help(std::span<const TorchrunOption> mptrain_options) {
  std::size_t width = 0;
  for (const auto table : {std::span<const TorchrunOption>(torchrun_table), mptrain_options}) {
    for (const auto& option : table) width = std::max(width, label(option).size());
  }
  const auto rows = [width](std::span<const TorchrunOption> table) {
    std::string text;
    for (const auto& option : table) text += fmt::format("  {:<{}}  {}\n", label(option), width, option.help);
    return text;
  };
  return "Usage: mptrain torchrun [torchrun options] [mptrain options] (SCRIPT | -m MODULE | --no-python CMD) "
         "[ARGS...]\n\n"
         "torchrun's command line, unchanged, with mptrain's plan: each worker gets floor(N/M) threads pinned to\n"
         "its own CPUs (not OMP_NUM_THREADS=1), the monitor's verdict, and on failure torchrun's root-cause\n"
         "summary. Scripts run under python3 -u from PATH (MPTRAIN_PYTHON or PYTHON_EXEC choose another).\n\n"
         "torchrun's options (each also spelled with underscores, as --nproc_per_node; an option not given\n"
         "is read from its PET_ variable, as PET_NPROC_PER_NODE):\n" +
         rows(torchrun_table) +
         "\nmptrain's options (see mptrain-run(1); here -t is torchrun's --tee, so threads per worker are\n"
         "--threads-per-process):\n" +
         rows(mptrain_options);
}

Result<TorchrunArgs> parse_torchrun_args(std::span<const std::string> words,
                                         const std::vector<std::string>& environment,
                                         std::span<const TorchrunOption> mptrain_options) {
  TorchrunArgs args;
  const auto program_at = OptionReader(words, mptrain_options, args).read();
  if (!program_at.ok()) return program_at.error();
  if (args.help) return args;
  take_pet_variables(args, environment);
  if (auto status = take_program(args, words, *program_at); !status.ok()) return status.error();
  return args;
}

Result<int> parse_torchrun_nnodes(std::string_view text) {
  const auto colon = text.find(':');
  const auto min = parse_int(trim(text.substr(0, colon)));
  if (colon == std::string_view::npos) {
    if (!min.ok() || *min < 1 || *min > 1 << 20) {
      return Error{fmt::format("--nnodes {}: not a number of nodes such as 2 or 2:2", printable(text))};
    }
    return static_cast<int>(*min);
  }
  const auto max = parse_int(trim(text.substr(colon + 1)));
  if (!min.ok() || !max.ok() || *min < 1 || *max < 1 || *max > 1 << 20) {
    return Error{fmt::format("--nnodes {}: not a number of nodes such as 2 or 2:2", printable(text))};
  }
  if (*min != *max) {
    return Error{fmt::format(
        "--nnodes {}: an elastic range (nodes joining and leaving) is not supported; mptrain starts a fixed "
        "number of nodes: give --nnodes {} (or {}:{})",
        printable(text), *max, *max, *max)};
  }
  return static_cast<int>(*min);
}

Result<RdzvEndpoint> parse_endpoint(std::string_view text) {
  RdzvEndpoint endpoint;
  std::string_view port;
  if (text.starts_with('[')) {  // [IPv6]:PORT
    const auto close = text.find(']');
    if (close == std::string_view::npos) {
      return Error{fmt::format("--rdzv-endpoint {}: no ']' after the IPv6 address", printable(text))};
    }
    endpoint.host = std::string(text.substr(1, close - 1));
    const auto rest = text.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) {
      return Error{fmt::format("--rdzv-endpoint {}: write [ADDRESS]:PORT", printable(text))};
    }
    port = rest.empty() ? rest : rest.substr(1);
  } else if (const auto colon = text.rfind(':'); colon != std::string_view::npos && text.find(':') == colon) {
    endpoint.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  } else {
    endpoint.host = std::string(text);  // a host, or an IPv6 address without a port
  }
  if (endpoint.host.empty()) {
    return Error{fmt::format("--rdzv-endpoint {}: no host; write HOST[:PORT], e.g. node0:29400", printable(text))};
  }
  if (!port.empty()) {
    const auto number = parse_int(port);
    if (!number.ok() || *number < 0 || *number > 65535) {
      return Error{fmt::format("--rdzv-endpoint {}: {} is not a port (1-65535, or 0 for a free one)", printable(text),
                               printable(port))};
    }
    endpoint.port = static_cast<int>(*number);
  }
  return endpoint;
}

Result<std::vector<std::pair<std::string, std::string>>> parse_rdzv_conf(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> entries;
  if (trim(text).empty()) return entries;
  for (const auto entry : split(text, ',')) {
    const auto equals = entry.find('=');
    if (equals == std::string_view::npos || trim(entry.substr(0, equals)).empty()) {
      return Error{fmt::format("--rdzv-conf {}: '{}' is not key=value; write e.g. timeout=900,join_timeout=60",
                               printable(text), printable(entry))};
    }
    entries.emplace_back(std::string(trim(entry.substr(0, equals))), std::string(trim(entry.substr(equals + 1))));
  }
  return entries;
}

Result<std::vector<int>> parse_local_ranks(std::string_view text, int local_size) {
  std::vector<int> ranks;
  for (const auto entry : split(text, ',')) {
    const auto rank = parse_int(trim(entry));
    if (!rank.ok() || *rank < 0 || *rank >= local_size) {
      const auto valid =
          local_size == 1 ? std::string("the only one is 0") : fmt::format("they are 0 to {}", local_size - 1);
      return Error{fmt::format("--local-ranks-filter {}: '{}' is not a local rank of this node ({})", printable(text),
                               printable(entry), valid)};
    }
    if (std::find(ranks.begin(), ranks.end(), *rank) == ranks.end()) ranks.push_back(static_cast<int>(*rank));
  }
  return ranks;
}

Result<WorkerError> parse_error_file(std::string_view text) {
  const auto document = nlohmann::json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object() || !document.contains("message")) {
    return Error{"not an error file of torch.distributed.elastic (JSON with a \"message\")"};
  }
  WorkerError error;
  const auto& message = document["message"];
  if (message.is_string()) {
    error.message = message.get<std::string>();
    return error;
  }
  if (!message.is_object() || !message.contains("message") || !message["message"].is_string()) {
    return Error{"its \"message\" is neither text nor an object with a \"message\""};
  }
  error.message = message["message"].get<std::string>();
  if (message.contains("extraInfo") && message["extraInfo"].is_object()) {
    const auto& extra = message["extraInfo"];
    if (extra.contains("py_callstack") && extra["py_callstack"].is_string()) {
      error.traceback = extra["py_callstack"].get<std::string>();
    }
    if (extra.contains("timestamp")) {
      const auto& stamp = extra["timestamp"];
      if (stamp.is_number_integer()) error.timestamp = stamp.get<long long>();
      if (stamp.is_string()) {
        if (const auto seconds = parse_int(stamp.get<std::string>()); seconds.ok()) error.timestamp = *seconds;
      }
    }
  }
  return error;
}

std::string run_folder_name(std::string_view run_id) {
  std::string name;
  for (const char c : run_id.substr(0, 64)) {
    const bool kept =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    name += kept ? c : '_';
  }
  if (name.empty() || name == "." || name == "..") name = "run";
  return name;
}

}  // namespace mptrain::cluster
