#include "cluster/torchrun_failures.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ctime>
#include <system_error>

#include "cluster/python.hpp"
#include "cluster/torchrun_files.hpp"
#include "procmgr/spawn.hpp"
#include "util/environment.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace mptrain::cluster {

namespace {

// Reads `failure`'s error file into `error`, or says why it could not in `error_problem`; nothing when there is none.
void read_error_file(TorchrunFailure& failure) {
  std::error_code error;
  if (!std::filesystem::exists(failure.error_file, error)) return;
  auto text = read_file(failure.error_file);
  if (!text.ok()) {
    failure.error_problem = text.error().message;
  } else if (auto parsed = parse_error_file(*text); parsed.ok()) {
    failure.error = std::move(parsed).value();
  } else {
    failure.error_problem = parsed.error().message;
  }
}

// `worker` of attempt `restart` as a failure, with its error file in `run_dir`.
TorchrunFailure failure_of(const procmgr::WorkerResult& worker, const std::filesystem::path& run_dir, int restart,
                           int first_rank) {
  TorchrunFailure failure;
  failure.rank = first_rank + worker.rank;
  failure.local_rank = worker.rank;
  failure.pid = worker.pid;
  failure.status = worker.status;
  failure.stopped = worker.stopped;
  failure.error_file = torchrun_error_file(run_dir, worker.rank, restart);
  read_error_file(failure);
  return failure;
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

// The summary's lines for `failure`'s error file: what it says, or why there is nothing.
void describe_error_file(std::string& text, const TorchrunFailure& failure) {
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
  if (failure.error->traceback.empty()) return;
  text += "  traceback:\n";
  for (const auto line : split(failure.error->traceback, '\n')) {
    if (!line.empty()) text += fmt::format("    {}\n", printable(line));
  }
}

// The summary's lines for `failure`.
void describe_failure(std::string& text, const TorchrunFailure& failure) {
  text += fmt::format("  rank {} (local rank {}), pid {}: {}{}\n", failure.rank, failure.local_rank, failure.pid,
                      end_of(failure.status), failure.stopped ? ", after mptrain stopped the group" : "");
  if (failure.error && failure.error->timestamp) {
    text += fmt::format("  time:       {}\n", utc_time(*failure.error->timestamp));
  }
  describe_error_file(text, failure);
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

// The python3s in `search_path` other than `ran` (the one that ran) that import `module`.
std::vector<std::string> interpreters_importing(const std::string& ran, std::string_view search_path,
                                                const std::string& module) {
  std::error_code error;
  const auto ran_real = std::filesystem::canonical(ran, error);
  std::vector<std::string> found;
  for (const auto& candidate : python_candidates(search_path)) {
    if (!error && std::filesystem::canonical(candidate, error) == ran_real) continue;
    error.clear();
    if (python_imports(candidate, module)) found.push_back(candidate);
  }
  return found;
}

}  // namespace

std::vector<TorchrunFailure> torchrun_failures(const procmgr::GroupResult& result, const std::filesystem::path& run_dir,
                                               int node_rank) {
  std::vector<TorchrunFailure> failures;
  if (!result.failed_rank) return failures;
  const int first_rank = node_rank * static_cast<int>(result.workers.size());
  const auto& root = result.workers.at(static_cast<std::size_t>(*result.failed_rank));
  failures.push_back(failure_of(root, run_dir, result.restarts, first_rank));
  for (const auto& worker : result.workers) {
    if (worker.rank == *result.failed_rank || worker.status.success()) continue;
    auto failure = failure_of(worker, run_dir, result.restarts, first_rank);
    if (failure.stopped && !failure.error) continue;  // ended by mptrain's stop, with nothing to say
    failures.push_back(std::move(failure));
  }
  return failures;
}

std::string torchrun_summary(const std::vector<TorchrunFailure>& failures, std::string_view program,
                             std::string_view run_id) {
  if (failures.empty()) return {};
  const std::string rule(60, '=');
  const std::string thin_rule(60, '-');
  std::string text = fmt::format("{}\n{} failed (run id {})\n{}\nRoot cause, the first failure:\n", rule,
                                 printable(program), run_id, thin_rule);
  describe_failure(text, failures.front());
  if (failures.size() > 1) {
    text += fmt::format("{}\nOther failures:\n", thin_rule);
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

std::string interpreter_hint(const procmgr::GroupResult& result, const std::string& interpreter,
                             const std::vector<std::string>& environment) {
  if (interpreter.empty() || !result.failed_rank) return "";
  const auto& worker = result.workers.at(static_cast<std::size_t>(*result.failed_rank));
  const auto module = missing_python_module(worker.stderr_tail);
  if (!module) return "";
  const auto ran = procmgr::resolve_in_path(interpreter);
  const std::string ran_path = ran.ok() ? *ran : interpreter;
  std::string path;
  if (!find_variable(environment, "PATH", &path)) path = "/usr/local/bin:/usr/bin:/bin";
  const auto others = interpreters_importing(ran_path, path, *module);
  const std::string ran_text = ran_path == interpreter ? ran_path : fmt::format("{} ({})", interpreter, ran_path);
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

}  // namespace mptrain::cluster
