#include "cluster/torchrun.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "util/environment.hpp"
#include "util/text.hpp"

namespace mptrain::cluster {

namespace {

constexpr std::array torchrun_table{
    TorchrunOption{"--nnodes", true, "Nodes: N or N:N (an elastic range MIN:MAX is refused)"},
    TorchrunOption{"--nproc-per-node", true, "Workers on this node: a number, auto or cpu (one per usable CPU)"},
    TorchrunOption{"--node-rank", true, "This node's rank, 0 to N-1"},
    TorchrunOption{"--master-addr", true, "Node 0's address (MASTER_ADDR)"},
    TorchrunOption{"--master-port", true, "MASTER_PORT (default: a free port on one node, 29500 across nodes)"},
    TorchrunOption{"--rdzv-backend", true, "static or c10d: both are a static rendezvous at the endpoint"},
    TorchrunOption{"--rdzv-endpoint", true, "HOST[:PORT] of node 0 (c10d's port defaults to 29400)"},
    TorchrunOption{"--rdzv-id", true, "The job's id: TORCHELASTIC_RUN_ID (default: a fresh id)"},
    TorchrunOption{"--rdzv-conf", true, "key=value,... for torch's rendezvous: checked, not used"},
    TorchrunOption{"--standalone", false, "One node on this host, at a free port"},
    TorchrunOption{"--max-restarts", true, "Restart the whole group up to K times after a failure"},
    TorchrunOption{"--monitor-interval", true, "Seconds between torchrun's checks: accepted, mptrain reaps at once"},
    TorchrunOption{"--start-method", true, "spawn, fork or forkserver: accepted, mptrain forks and execs"},
    TorchrunOption{"--role", true, "ROLE_NAME of the workers (default: default)"},
    TorchrunOption{"-m", false, "Run the program as a Python module (python3 -m MODULE)"},
    TorchrunOption{"--module", false, "As -m"},
    TorchrunOption{"--no-python", false, "Run the program itself, not under python3"},
    TorchrunOption{"--run-path", false, "Run the script by its path (as python3 SCRIPT does)"},
    TorchrunOption{"--log-dir", true, "Logs and error files: DIR/RUNID_XXXXXX/attempt_A/LOCALRANK/{stdout.log,...}"},
    TorchrunOption{"-r", true, "As --redirects"},
    TorchrunOption{"--redirects", true, "Streams only to log files: 0-3 (none, out, err, both) or per rank, 0:1,1:2"},
    TorchrunOption{"-t", true, "As --tee"},
    TorchrunOption{"--tee", true, "Streams to log files and the console, written as for --redirects"},
    TorchrunOption{"--local-ranks-filter", true, "Show only these local ranks' output on the console: 0,1"},
    TorchrunOption{"--local-addr", true, "This node's address: accepted (mptrain's rendezvous is static)"},
    TorchrunOption{"-h", false, "Print this help"},
    TorchrunOption{"--help", false, "As -h"},
};

// mptrain's own options that `mptrain torchrun` takes beside torchrun's (none clashes with torchrun's).
constexpr std::array mptrain_table{
    TorchrunOption{"--json", false, "Print the run's report as one JSON document on stdout"},
    TorchrunOption{"--dry-run", false, "Print each rank's command, CPUs and variables, and run nothing"},
    TorchrunOption{"--threads-per-process", true, "Threads per worker T (default floor(N/M))"},
    TorchrunOption{"--cpus", true, "Use only these CPUs"},
    TorchrunOption{"--bind", true, "Pinning: core, numa, package or none"},
    TorchrunOption{"--physical-cores", false, "One PU per core"},
    TorchrunOption{"--reserve", true, "PUs of each worker's set left for helper threads"},
    TorchrunOption{"--allow-oversubscribe", false, "Plan M x T > N anyway"},
    TorchrunOption{"--children", true, "Each worker's program starts K working processes"},
    TorchrunOption{"--descendants", true, "place or leave the processes the workers start"},
    TorchrunOption{"--spread-threads", true, "on or off: a PU per busy thread no runtime placed"},
    TorchrunOption{"--keep-program-threads", false, "Pools the program sizes itself may exceed their CPUs"},
    TorchrunOption{"--omp-bind", true, "close or none"},
    TorchrunOption{"--allocator", true, "jemalloc, tcmalloc or default"},
    TorchrunOption{"--membind", true, "NUMA nodes for every worker's memory"},
    TorchrunOption{"--interleave", true, "NUMA nodes to interleave every worker's memory over"},
    TorchrunOption{"--grace", true, "Seconds between SIGTERM and SIGKILL when stopping"},
    TorchrunOption{"--keep-env", false, "Keep the thread-count variables already set"},
    TorchrunOption{"--fail-on", true, "Exit 3 from this verdict on: oversubscribed, warning, idle or never"},
    TorchrunOption{"--ignore", true, "A finding kind left out of --fail-on's decision"},
    TorchrunOption{"--quiet", false, "The monitor's part of the report: its verdict and fixes only"},
    TorchrunOption{"--no-tag-output", false, "Console lines without the rank"},
    TorchrunOption{"--timestamp-output", false, "Console lines start with the time"},
};

// A name as the user may write it: underscores read as dashes.
std::string dashed(std::string_view word) {
  std::string text(word);
  if (text.starts_with("--")) std::replace(text.begin() + 2, text.end(), '_', '-');
  return text;
}

// The canonical name of an option's alias ("-m" → "--module").
std::string_view canonical(std::string_view name) {
  if (name == "-m") return "--module";
  if (name == "-r") return "--redirects";
  if (name == "-t") return "--tee";
  if (name == "-h") return "--help";
  return name;
}

struct Match {
  const TorchrunOption* option = nullptr;
  bool mptrain = false;
};

// The option `name` (dashes, no value) names: exactly, or as the unique
// prefix of one long name; an Error for none or several.
Result<Match> find_option(std::string_view name, std::string_view written) {
  for (const auto& option : torchrun_table) {
    if (option.name == name) return Match{&option, false};
  }
  for (const auto& option : mptrain_table) {
    if (option.name == name) return Match{&option, true};
  }
  std::vector<Match> candidates;
  if (name.starts_with("--") && name.size() > 2) {
    for (const auto& option : torchrun_table) {
      if (option.name.starts_with(name)) candidates.push_back({&option, false});
    }
    for (const auto& option : mptrain_table) {
      if (option.name.starts_with(name)) candidates.push_back({&option, true});
    }
  }
  if (candidates.size() == 1) return candidates.front();
  if (candidates.empty()) {
    return Error{
        fmt::format("torchrun has no option {} (see 'mptrain torchrun --help' for torchrun's options and the mptrain "
                    "options it also takes)",
                    printable(written))};
  }
  std::string names;
  for (const auto& candidate : candidates) {
    names += names.empty() ? "" : ", ";
    names += candidate.option->name;
  }
  return Error{fmt::format("{} is ambiguous: it could be {}; write the whole name", printable(written), names)};
}

// The PET_ variable torchrun reads for option `name`: "--nproc-per-node" → PET_NPROC_PER_NODE.
std::string pet_variable(std::string_view name) {
  std::string variable = "PET_";
  for (char c : name.substr(2))
    variable += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return variable;
}

// Where option `name`'s value is stored in `args`; nullptr for a flag or an mptrain option.
std::optional<TorchrunValue>* slot(TorchrunArgs& args, std::string_view name) {
  struct Slot {
    std::string_view name;
    std::optional<TorchrunValue> TorchrunArgs::*member;
  };
  static constexpr std::array slots{
      Slot{"--nnodes", &TorchrunArgs::nnodes},
      Slot{"--nproc-per-node", &TorchrunArgs::nproc_per_node},
      Slot{"--node-rank", &TorchrunArgs::node_rank},
      Slot{"--master-addr", &TorchrunArgs::master_addr},
      Slot{"--master-port", &TorchrunArgs::master_port},
      Slot{"--rdzv-backend", &TorchrunArgs::rdzv_backend},
      Slot{"--rdzv-endpoint", &TorchrunArgs::rdzv_endpoint},
      Slot{"--rdzv-id", &TorchrunArgs::rdzv_id},
      Slot{"--rdzv-conf", &TorchrunArgs::rdzv_conf},
      Slot{"--max-restarts", &TorchrunArgs::max_restarts},
      Slot{"--monitor-interval", &TorchrunArgs::monitor_interval},
      Slot{"--start-method", &TorchrunArgs::start_method},
      Slot{"--role", &TorchrunArgs::role},
      Slot{"--log-dir", &TorchrunArgs::log_dir},
      Slot{"--redirects", &TorchrunArgs::redirects},
      Slot{"--tee", &TorchrunArgs::tee},
      Slot{"--local-ranks-filter", &TorchrunArgs::local_ranks_filter},
      Slot{"--local-addr", &TorchrunArgs::local_addr},
  };
  for (const auto& entry : slots) {
    if (entry.name == name) return &(args.*entry.member);
  }
  return nullptr;
}

}  // namespace

std::span<const TorchrunOption> torchrun_options() { return torchrun_table; }
std::span<const TorchrunOption> torchrun_mptrain_options() { return mptrain_table; }

Result<TorchrunArgs> parse_torchrun_args(std::span<const std::string> words,
                                         const std::vector<std::string>& environment) {
  TorchrunArgs args;
  bool module = false;
  bool no_python = false;
  std::size_t i = 0;
  for (; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "--") {
      ++i;
      break;
    }
    if (!word.starts_with('-') || word == "-") break;  // the program
    // "--name=value", "--name value", "-r3" or "-r 3".
    std::string name = dashed(word);
    std::optional<std::string> inline_value;
    if (name.starts_with("--")) {
      if (const auto equals = name.find('='); equals != std::string::npos) {
        inline_value = word.substr(equals + 1);
        name.resize(equals);
      }
    } else if (name.size() > 2) {
      inline_value = name.substr(2);
      name.resize(2);
    }
    auto match = find_option(name, word);
    if (!match.ok()) return match.error();
    const TorchrunOption& option = *match->option;
    const std::string_view canonical_name = canonical(option.name);
    std::string value;
    if (option.takes_value) {
      if (inline_value) {
        value = *inline_value;
      } else if (i + 1 < words.size()) {
        value = words[++i];
      } else {
        return Error{fmt::format("{} needs a value (see 'mptrain torchrun --help')", printable(word))};
      }
    } else if (inline_value) {
      return Error{fmt::format("{} takes no value: write {}", printable(word), option.name)};
    }
    if (match->mptrain) {
      args.mptrain_args.emplace_back(option.name);
      if (option.takes_value) args.mptrain_args.push_back(value);
      continue;
    }
    if (auto* target = slot(args, canonical_name); target != nullptr) {
      if (*target) {
        return Error{fmt::format("{} was given twice ({} and {}); give it once", option.name, (*target)->spelled,
                                 printable(word))};
      }
      const auto written = std::string_view(word).substr(0, name.size());  // the name as spelled, without its value
      *target = TorchrunValue{value, std::string(written)};
      continue;
    }
    if (canonical_name == "--module") module = true;
    if (canonical_name == "--no-python") no_python = true;
    if (canonical_name == "--standalone") args.standalone = true;
    if (canonical_name == "--run-path") args.run_path = true;
    if (canonical_name == "--help") {  // answered at once, as argparse does
      args.help = true;
      return args;
    }
  }
  // Options not given: torchrun's PET_<NAME> variables.
  for (const auto& option : torchrun_table) {
    auto* target = slot(args, option.name);
    if (target == nullptr || *target) continue;
    const std::string variable = pet_variable(option.name);
    std::string value;
    if (find_variable(environment, variable, &value)) *target = TorchrunValue{value, variable};
  }
  if (module && no_python) {
    return Error{"-m/--module runs a Python module and --no-python runs a program without Python; drop one of them"};
  }
  args.entry = module ? TorchrunEntry::module : no_python ? TorchrunEntry::program : TorchrunEntry::script;
  if (i >= words.size()) {
    const char* what = module ? "a module to run (-m MODULE)" : no_python ? "a program to run" : "a script to run";
    return Error{
        fmt::format("torchrun needs {} after its options, e.g. mptrain torchrun --nproc-per-node 2 train.py", what)};
  }
  args.program = words[i];
  if (args.program.empty()) return Error{"the program to run is the empty word; give a script, module or program"};
  args.program_args.assign(words.begin() + static_cast<std::ptrdiff_t>(i) + 1, words.end());
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

Result<Endpoint> parse_endpoint(std::string_view text) {
  Endpoint endpoint;
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

std::string in_torchrun_words(std::string_view message) {
  // Each of `run`'s spellings, where a word starts, before a number.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> spellings{{
      {"--num-processes ", "--nproc-per-node "},
      {"--threads-per-process ", "--threads-per-process "},
      {"-n ", "--nproc-per-node "},
      {"-t ", "--threads-per-process "},
  }};
  std::string out;
  std::size_t at = 0;
  while (at < message.size()) {
    const bool word_start = at == 0 || message[at - 1] == ' ' || message[at - 1] == '(' || message[at - 1] == '`';
    bool replaced = false;
    for (const auto& [from, to] : spellings) {
      const auto next = at + from.size();
      if (!word_start || message.substr(at, from.size()) != from || next >= message.size() ||
          !std::isdigit(static_cast<unsigned char>(message[next]))) {
        continue;
      }
      out += to;
      at = next;
      replaced = true;
      break;
    }
    if (!replaced) out += message[at++];
  }
  return out;
}

}  // namespace mptrain::cluster
