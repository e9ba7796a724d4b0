// `mptrain torchrun [torchrun options] (SCRIPT | -m MODULE | --no-python CMD) [ARGS…]`.
#include "cli/torchrun.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <random>
#include <system_error>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cluster/python.hpp"
#include "procmgr/output.hpp"
#include "procmgr/spawn.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

namespace {

// The rendezvous backends mptrain accepts; both are a static rendezvous at the endpoint.
constexpr std::array accepted_backends{"static", "c10d"};
// c10d's port when --rdzv-endpoint gives none, as torchrun's.
constexpr int c10d_default_port = 29400;
// Variables that say an MPI launcher or Slurm gave this mptrain its node rank.
constexpr std::array launcher_rank_variables{"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
                                             "PET_NODE_RANK"};

std::string help_text() {
  std::string text =
      "Usage: mptrain torchrun [torchrun options] [mptrain options] (SCRIPT | -m MODULE | --no-python CMD) "
      "[ARGS...]\n\n"
      "torchrun's command line, unchanged, with mptrain's plan: each worker gets floor(N/M) threads pinned to\n"
      "its own CPUs (not OMP_NUM_THREADS=1), the monitor's verdict, and on failure torchrun's root-cause\n"
      "summary. Scripts run under python3 -u from PATH (MPTRAIN_PYTHON or PYTHON_EXEC choose another).\n\n"
      "torchrun's options (each also spelled with underscores, as --nproc_per_node; an option not given\n"
      "is read from its PET_ variable, as PET_NPROC_PER_NODE):\n";
  for (const auto& option : cluster::torchrun_options()) {
    text += fmt::format("  {:<22}{}\n", std::string(option.name) + (option.takes_value ? " V" : ""), option.help);
  }
  text += "\nmptrain's options (see mptrain-run(1)):\n";
  for (const auto& option : cluster::torchrun_mptrain_options()) {
    text += fmt::format("  {:<22}{}\n", std::string(option.name) + (option.takes_value ? " V" : ""), option.help);
  }
  return text;
}

// A fresh run id: 32 hexadecimal digits from the kernel's random source (a uuid4's size).
std::string fresh_run_id() {
  std::random_device random;  // getrandom(2) in libstdc++
  std::string id;
  for (int i = 0; i < 4; ++i) id += fmt::format("{:08x}", random());
  return id;
}

// The value of option `value` for messages: "--nproc_per_node gpu".
std::string given(const cluster::TorchrunValue& value) {
  return fmt::format("{} {}", value.spelled, printable(value.value));
}

// Appends `name value` to `words` when `value` was given.
void pass(std::vector<std::string>& words, const char* name, const std::optional<cluster::TorchrunValue>& value) {
  if (!value) return;
  words.emplace_back(name);
  words.push_back(value->value);
}

// Checks the torchrun options mptrain accepts but does not use (torch's own
// rendezvous, its agent's polling and start method, the local address).
void check_accepted_options(const cluster::TorchrunArgs& args) {
  if (args.rdzv_conf) {
    if (auto conf = cluster::parse_rdzv_conf(args.rdzv_conf->value); !conf.ok())
      usage_failure("{}", conf.error().message);
  }
  if (args.monitor_interval) {
    const auto seconds = parse_double(args.monitor_interval->value);
    if (!seconds.ok() || !(*seconds > 0) || *seconds > 86400) {
      usage_failure("{}: not a number of seconds from just above 0 to 86400", given(*args.monitor_interval));
    }
  }
  if (args.start_method) {
    const auto& method = args.start_method->value;
    if (method != "spawn" && method != "fork" && method != "forkserver") {
      usage_failure("{}: torchrun's start methods are spawn, fork and forkserver", given(*args.start_method));
    }
  }
  for (const auto* streams : {&args.redirects, &args.tee}) {
    if (!*streams) continue;
    if (auto choice = procmgr::parse_stream_choice((*streams)->value); !choice.ok()) {
      usage_failure("{}: {}", given(**streams), choice.error().message);
    }
  }
  if (args.local_addr && args.local_addr->value.empty()) usage_failure("{} needs an address", args.local_addr->spelled);
  if (args.role && args.role->value.empty()) usage_failure("{} needs a name", args.role->spelled);
}

// The mptrain option words for the workers and nodes torchrun's options ask for.
std::vector<std::string> placement_words(const cluster::TorchrunArgs& args,
                                         const std::vector<std::string>& environment) {
  std::vector<std::string> words;
  if (args.nproc_per_node) {
    const auto& text = args.nproc_per_node->value;
    if (text == "gpu" || text == "xpu") {
      usage_failure(
          "{}: mptrain runs CPU workers, one or more per CPU set; give a number of workers, or auto or cpu "
          "for one per usable CPU",
          given(*args.nproc_per_node));
    }
    if (text != "auto" && text != "cpu") {
      const auto count = parse_int(trim(text));
      if (!count.ok() || *count < 1) {
        usage_failure("{}: not a number of workers (1 or more), auto or cpu", given(*args.nproc_per_node));
      }
    }
    words.insert(words.end(), {"--nproc-per-node", text});
  } else {
    words.insert(words.end(), {"--nproc-per-node", "1"});  // torchrun's default: one worker per node
  }
  int nodes = 1;
  if (args.nnodes) {
    nodes = value_or_fail(cluster::parse_torchrun_nnodes(args.nnodes->value), exit_code::usage_error);
    words.insert(words.end(), {"--nnodes", std::to_string(nodes)});
  }
  const std::string backend = args.rdzv_backend ? args.rdzv_backend->value : "static";
  if (std::find(accepted_backends.begin(), accepted_backends.end(), backend) == accepted_backends.end()) {
    usage_failure(
        "{}: mptrain's rendezvous is static (every node knows node 0's address and its own rank); use "
        "--rdzv-backend c10d or static with --rdzv-endpoint or --master-addr, and --node-rank on each node",
        given(*args.rdzv_backend));
  }
  if (args.standalone) {
    if (nodes > 1) {
      usage_failure("--standalone runs one node on this host, but {} asks for {}; drop one of them",
                    given(*args.nnodes), nodes);
    }
    if (args.rdzv_endpoint || args.rdzv_backend) {
      print_warning(
          "--standalone chooses the rendezvous itself (this host, a free port): the --rdzv options are ignored");
    }
    return words;  // one node, 127.0.0.1 and a free port: mptrain's own default
  }
  pass(words, "--node-rank", args.node_rank);
  std::optional<cluster::Endpoint> endpoint;
  if (args.rdzv_endpoint && !args.rdzv_endpoint->value.empty()) {
    endpoint = value_or_fail(cluster::parse_endpoint(args.rdzv_endpoint->value), exit_code::usage_error);
    if (!endpoint->port && backend == "c10d") endpoint->port = c10d_default_port;
  }
  if (endpoint) {
    words.insert(words.end(), {"--master-addr", endpoint->host});
    if (endpoint->port && *endpoint->port != 0) {
      words.insert(words.end(), {"--master-port", std::to_string(*endpoint->port)});
    }
  } else {
    pass(words, "--master-addr", args.master_addr);
    pass(words, "--master-port", args.master_port);
  }
  if (backend == "c10d" && nodes > 1 && !args.node_rank &&
      std::none_of(launcher_rank_variables.begin(), launcher_rank_variables.end(),
                   [&](const char* name) { return find_variable(environment, name); })) {
    usage_failure(
        "--rdzv-backend c10d across {} nodes: torch's c10d rendezvous hands out node ranks as nodes join, and mptrain "
        "does not run it; give each node its --node-rank (0 on the endpoint's host), or start one mptrain torchrun "
        "per node with srun or mpirun, which give the ranks",
        nodes);
  }
  return words;
}

// The interpreter that runs scripts and modules.
std::string python_interpreter(const std::vector<std::string>& environment) {
  std::string python;
  if (find_variable(environment, "MPTRAIN_PYTHON", &python) && !python.empty()) return python;
  if (find_variable(environment, "PYTHON_EXEC", &python) && !python.empty()) return python;
  return "python3";
}

// The program each worker runs, as torchrun builds it.
std::vector<std::string> program_words(const cluster::TorchrunArgs& args, const std::vector<std::string>& environment) {
  if (args.run_path && args.entry != cluster::TorchrunEntry::script) {
    usage_failure("--run-path runs a script by its path; it does not go with {}",
                  args.entry == cluster::TorchrunEntry::module ? "-m/--module" : "--no-python");
  }
  std::vector<std::string> words;
  if (args.entry != cluster::TorchrunEntry::program) {
    words.push_back(python_interpreter(environment));
    words.emplace_back("-u");  // unbuffered, as torchrun runs it
    if (args.entry == cluster::TorchrunEntry::module) words.emplace_back("-m");
  }
  words.push_back(args.program);
  words.insert(words.end(), args.program_args.begin(), args.program_args.end());
  return words;
}

// The folder of this run's logs and error files, always an absolute path
// (a worker that changes directory still finds its error file):
// DIR/RUNID_XXXXXX under --log-dir, else a new folder in TMPDIR (or /tmp);
// in a dry run a name only.
std::filesystem::path make_run_dir(const cluster::TorchrunArgs& args, const std::string& run_id, bool dry_run) {
  std::filesystem::path base;
  std::string prefix = cluster::run_folder_name(run_id) + "_";
  const char* tmp = std::getenv("TMPDIR");
  const bool from_tmpdir = !args.log_dir && tmp != nullptr && *tmp != '\0';
  if (args.log_dir) {
    if (args.log_dir->value.empty()) usage_failure("{} needs a directory", args.log_dir->spelled);
    base = args.log_dir->value;
  } else {
    base = from_tmpdir ? tmp : "/tmp";
    prefix = "mptrain-torchrun-";
  }
  std::error_code error;
  if (const auto absolute = std::filesystem::absolute(base, error); !error) base = absolute;
  auto pattern = base / (prefix + "XXXXXX");
  if (dry_run) return pattern;
  if (args.log_dir) value_or_fail(procmgr::make_log_directory(base));
  std::string path = pattern.string();
  if (::mkdtemp(path.data()) == nullptr) {
    const std::string reason = std::strerror(errno);
    if (from_tmpdir) {
      runtime_failure(
          "cannot create the run's folder in TMPDIR={}: {}; set TMPDIR to a directory you can write to, "
          "or give --log-dir one",
          tmp, reason);
    }
    runtime_failure("cannot create the run's log folder in {}: {}; give {} a directory you can write to", base.string(),
                    reason, args.log_dir ? args.log_dir->spelled : "--log-dir");
  }
  return path;
}

bool has_word(const std::vector<std::string>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// Parses `words` (mptrain's own run options) into `options` as `mptrain run` would.
void parse_run_words(const std::vector<std::string>& words, RunOptions& options) {
  CLI::App app{"mptrain torchrun", "mptrain torchrun"};
  add_placement_options(app, options.placement);
  app.add_flag("--json", options.json);
  add_fail_on_options(app, options.gate);
  app.add_flag("--quiet", options.quiet);
  options.launch = add_launch_options(app);
  std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 takes the words last first
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& error) {
    usage_failure("{} (see 'mptrain torchrun --help')", error.what());
  }
  if (const auto* master = app.get_option_no_throw("--master-addr"); master != nullptr && master->count() > 0) {
    options.placement.nodes.master_addr = master->as<std::string>();
  }
}

// Removes the temporary run folder when the run ends well; a run that
// fails keeps it (its summary names the error files in it) and says so.
class RunDirCleanup {
 public:
  explicit RunDirCleanup(std::filesystem::path dir) : dir_(std::move(dir)) {}
  RunDirCleanup(const RunDirCleanup&) = delete;
  RunDirCleanup& operator=(const RunDirCleanup&) = delete;
  ~RunDirCleanup() {
    if (dir_.empty()) return;
    if (std::uncaught_exceptions() > 0 && holds_files()) {
      print_note(fmt::format("mptrain: kept {}: the failed run's error files are there\n", dir_.string()));
      return;
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

 private:
  // Whether a worker wrote anything there (a refusal before any started leaves only empty folders).
  bool holds_files() const {
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(dir_, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_regular_file(error) && it->file_size(error) > 0) return true;
    }
    return false;
  }

 public:
 private:
  std::filesystem::path dir_;
};

int run_torchrun(const std::vector<std::string>& words) {
  const auto environment = current_environment();
  const auto args = value_or_fail(cluster::parse_torchrun_args(words, environment), exit_code::usage_error);
  if (args.help) {
    print_report(help_text());
    return exit_code::success;
  }
  check_accepted_options(args);
  auto run_words = args.mptrain_args;
  for (auto& word : placement_words(args, environment)) run_words.push_back(std::move(word));
  if (args.max_restarts) run_words.insert(run_words.end(), {"--max-restarts", args.max_restarts->value});
  RunOptions options;
  parse_run_words(run_words, options);
  options.command = program_words(args, environment);
  auto settings = std::make_shared<TorchrunSettings>();
  settings->run_id =
      args.rdzv_id && !args.rdzv_id->value.empty() && !args.standalone ? args.rdzv_id->value : fresh_run_id();
  if (args.role) settings->role = args.role->value;
  if (args.redirects) settings->redirects = args.redirects->value;
  if (args.tee) settings->tee = args.tee->value;
  if (args.local_ranks_filter) settings->local_ranks_filter = args.local_ranks_filter->value;
  settings->program = args.program;
  if (args.entry != cluster::TorchrunEntry::program) settings->interpreter = python_interpreter(environment);
  const bool dry_run = has_word(args.mptrain_args, "--dry-run");
  settings->run_dir = make_run_dir(args, settings->run_id, dry_run);
  // Without --log-dir the folder holds only error files, unless -r/-t send streams there: then it stays.
  const bool logs_there = !settings->redirects.empty() || !settings->tee.empty();
  settings->remove_run_dir = !args.log_dir && !logs_there && !dry_run;
  if (!args.log_dir && logs_there && !dry_run) {
    print_note(fmt::format("mptrain: no --log-dir: the workers' log files are in {}\n", settings->run_dir.string()));
  }
  RunDirCleanup cleanup(settings->remove_run_dir ? settings->run_dir : std::filesystem::path());
  options.torchrun = settings;
  try {
    return run_launcher(options);
  } catch (const Failure& failure) {
    if (failure.exit_code() != exit_code::usage_error) throw;
    throw Failure(failure.exit_code(), cluster::in_torchrun_words(failure.what()));  // torchrun's -t is --tee
  }
}

// The summary's line for a worker's end: "exit code 1" or "signal 9 (SIGKILL)".
std::string end_of(const procmgr::ExitStatus& status) {
  if (status.kind == procmgr::ExitStatus::Kind::exited) return fmt::format("exit code {}", status.code);
  return fmt::format("signal {} ({})", status.code, procmgr::signal_name(status.code));
}

// "2026-11-25 02:40:11 UTC" for `seconds` since the epoch.
std::string utc_time(long long seconds) {
  const std::time_t time = static_cast<std::time_t>(seconds);
  std::tm parts{};
  if (::gmtime_r(&time, &parts) == nullptr) return std::to_string(seconds);
  char text[32];
  return std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts) > 0 ? text : std::to_string(seconds);
}

void describe_failure(std::string& text, const TorchrunFailure& failure) {
  text += fmt::format("  rank {} (local rank {}), pid {}: {}{}\n", failure.rank, failure.local_rank, failure.pid,
                      end_of(failure.status), failure.stopped ? ", after mptrain stopped the group" : "");
  if (failure.error && failure.error->timestamp)
    text += fmt::format("  time:       {}\n", utc_time(*failure.error->timestamp));
  if (!failure.error) {
    text += failure.error_problem.empty()
                ? fmt::format(
                      "  error file: none written ({}); decorate the script's main with "
                      "torch.distributed.elastic.multiprocessing.errors.record to get its traceback here\n",
                      failure.error_file.string())
                : fmt::format("  error file: {}: {}\n", failure.error_file.string(), failure.error_problem);
    return;
  }
  text += fmt::format("  error file: {}\n", failure.error_file.string());
  text += fmt::format("  message:    {}\n", printable(failure.error->message));
  if (!failure.error->traceback.empty()) {
    text += "  traceback:\n";
    for (const auto line : split(failure.error->traceback, '\n')) {
      if (!line.empty()) text += fmt::format("    {}\n", printable(line));
    }
  }
}

nlohmann::json failure_json(const TorchrunFailure& failure) {
  const bool signaled = failure.status.kind == procmgr::ExitStatus::Kind::signaled;
  nlohmann::json json{{"rank", failure.rank},
                      {"local_rank", failure.local_rank},
                      {"pid", failure.pid},
                      {"exit_code", failure.status.shell_code()},
                      {"signal", signaled ? nlohmann::json(procmgr::signal_name(failure.status.code)) : nullptr},
                      {"error_file", failure.error_file.string()},
                      {"message", nullptr},
                      {"traceback", nullptr},
                      {"timestamp", nullptr},
                      {"stopped", failure.stopped}};
  if (failure.error) {
    json["message"] = failure.error->message;
    if (!failure.error->traceback.empty()) json["traceback"] = failure.error->traceback;
    if (failure.error->timestamp) json["timestamp"] = *failure.error->timestamp;
  }
  return json;
}

}  // namespace

std::filesystem::path torchrun_error_file(const std::filesystem::path& run_dir, int rank, int restart) {
  return procmgr::torchrun_rank_dir(run_dir, restart, rank) / "error.json";
}

std::vector<std::string> torchrun_attempt_environment(const std::filesystem::path& run_dir, int rank, int restart) {
  const auto file = torchrun_error_file(run_dir, rank, restart);
  std::error_code ignored;
  std::filesystem::create_directories(file.parent_path(), ignored);
  std::filesystem::remove(file, ignored);
  return {"TORCHELASTIC_ERROR_FILE=" + file.string()};
}

std::vector<TorchrunFailure> torchrun_failures(const procmgr::GroupResult& result, const TorchrunSettings& settings,
                                               int node_rank) {
  std::vector<TorchrunFailure> failures;
  if (!result.failed_rank) return failures;
  const int local_size = static_cast<int>(result.workers.size());
  auto failure_of = [&](const procmgr::WorkerResult& worker) {
    TorchrunFailure failure;
    failure.rank = node_rank * local_size + worker.rank;
    failure.local_rank = worker.rank;
    failure.pid = worker.pid;
    failure.status = worker.status;
    failure.stopped = worker.stopped;
    failure.error_file = torchrun_error_file(settings.run_dir, worker.rank, result.restarts);
    std::error_code error;
    if (std::filesystem::exists(failure.error_file, error)) {
      auto text = read_file(failure.error_file);
      if (!text.ok()) {
        failure.error_problem = text.error().message;
      } else if (auto parsed = cluster::parse_error_file(*text); parsed.ok()) {
        failure.error = std::move(parsed).value();
      } else {
        failure.error_problem = parsed.error().message;
      }
    }
    return failure;
  };
  failures.push_back(failure_of(result.workers.at(static_cast<std::size_t>(*result.failed_rank))));
  for (const auto& worker : result.workers) {
    if (worker.rank == *result.failed_rank || worker.status.success()) continue;
    auto failure = failure_of(worker);
    if (failure.stopped && !failure.error) continue;  // ended by mptrain's stop, with nothing to say
    failures.push_back(std::move(failure));
  }
  return failures;
}

std::string torchrun_summary(const std::vector<TorchrunFailure>& failures, const TorchrunSettings& settings) {
  if (failures.empty()) return {};
  const std::string rule(60, '=');
  std::string text = fmt::format("{}\n{} failed (run id {})\n{}\nRoot cause, the first failure:\n", rule,
                                 printable(settings.program), settings.run_id, std::string(60, '-'));
  describe_failure(text, failures.front());
  if (failures.size() > 1) {
    text += fmt::format("{}\nOther failures:\n", std::string(60, '-'));
    for (std::size_t i = 1; i < failures.size(); ++i) describe_failure(text, failures[i]);
  }
  text += rule + "\n";
  return text;
}

nlohmann::json torchrun_failures_json(const std::vector<TorchrunFailure>& failures) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& failure : failures) list.push_back(failure_json(failure));
  return {{"root_cause", failures.empty() ? nlohmann::json(nullptr) : list.front()}, {"failures", list}};
}

void add_torchrun_command(CLI::App& app, Runner& runner) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto* command = app.add_subcommand(
      "torchrun", "torchrun's command line, unchanged, with mptrain's plan, pinning, monitor and error summary");
  command->prefix_command();
  command->set_help_flag();  // -h/--help are torchrun's options, answered by run_torchrun
  command->callback([&runner, words, command] {
    *words = command->remaining();
    runner = [words] { return run_torchrun(*words); };
  });
}

std::string interpreter_hint(const procmgr::GroupResult& result, const TorchrunSettings& settings) {
  if (settings.interpreter.empty() || !result.failed_rank) return "";
  const auto& worker = result.workers.at(static_cast<std::size_t>(*result.failed_rank));
  const auto module = cluster::missing_python_module(worker.stderr_tail);
  if (!module) return "";
  const auto ran = procmgr::resolve_in_path(settings.interpreter);
  const std::string ran_path = ran.ok() ? *ran : settings.interpreter;
  std::error_code error;
  const auto ran_real = std::filesystem::canonical(ran_path, error);
  const char* path = std::getenv("PATH");
  std::vector<std::string> others;
  for (const auto& candidate : cluster::python_candidates(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin")) {
    if (!error && std::filesystem::canonical(candidate, error) == ran_real) continue;
    error.clear();
    if (cluster::python_imports(candidate, *module)) others.push_back(candidate);
  }
  const std::string ran_text =
      ran_path == settings.interpreter ? ran_path : fmt::format("{} ({})", settings.interpreter, ran_path);
  if (others.empty()) {
    return fmt::format(
        "\nrank {} ran {}, which cannot import {}, and no other python3 in PATH, /usr/bin or /usr/local/bin imports "
        "it either: install {} for that interpreter, or set MPTRAIN_PYTHON to one that has it",
        worker.rank, printable(ran_text), *module, *module);
  }
  return fmt::format(
      "\nrank {} ran {}, which cannot import {}; {} can: run with MPTRAIN_PYTHON={} (torchrun runs scripts with "
      "the interpreter that runs torchrun itself, which mptrain cannot know; it uses python3 from PATH)",
      worker.rank, printable(ran_text), *module, printable(fmt::format("{}", fmt::join(others, ", "))),
      shell_quote(others.front()));
}

}  // namespace mptrain::cli
