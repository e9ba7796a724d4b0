#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "cluster/torchrun_files.hpp"
#include "procmgr/launch.hpp"
#include "procmgr/output.hpp"
#include "util/launcher_variables.hpp"

namespace mptrain::cluster {

Result<std::filesystem::path> make_run_folder(const RunFolderPlan& plan, bool dry_run) {
  if (dry_run) return plan.pattern();
  if (plan.make_base) {
    if (auto status = procmgr::make_log_directory(plan.base); !status.ok()) return status.error();
  }
  std::string path = plan.pattern().string();
  if (::mkdtemp(path.data()) != nullptr) return std::filesystem::path(path);
  const int error = errno;
  const std::string reason = std::strerror(error);
  if (!plan.tmpdir.empty()) {
    return Error{fmt::format("cannot create the run's folder in TMPDIR={}: {}; set TMPDIR to a directory you can "
                             "write to, or give --log-dir one",
                             plan.tmpdir, reason),
                 error};
  }
  return Error{fmt::format("cannot create the run's log folder in {}: {}; give {} a directory you can write to",
                           plan.base.string(), reason, plan.log_dir_option),
               error};
}

bool holds_files(const std::filesystem::path& dir) {
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->path().filename() == procmgr::log_lock_name) continue;  // the run's own lock, not its output
    if (it->is_regular_file(error) && it->file_size(error) > 0) return true;
  }
  return false;
}

void remove_run_folder(const std::filesystem::path& dir) {
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

std::filesystem::path torchrun_error_file(const std::filesystem::path& run_dir, int rank, int restart) {
  return procmgr::torchrun_rank_dir(run_dir, restart, rank) / "error.json";
}

std::string error_file_variable(const std::filesystem::path& file) {
  return fmt::format("{}={}", launcher_variables::error_file, file.string());
}

std::vector<std::string> torchrun_attempt_environment(const std::filesystem::path& run_dir, int rank, int restart) {
  const auto file = torchrun_error_file(run_dir, rank, restart);
  std::error_code ignored;
  std::filesystem::create_directories(file.parent_path(), ignored);
  std::filesystem::remove(file, ignored);
  return {error_file_variable(file)};
}

Result<TorchrunSettings> torchrun_settings(const TorchrunArgs& args, const std::vector<std::string>& environment,
                                           const std::filesystem::path& current_dir, bool dry_run) {
  TorchrunSettings settings;
  settings.run_id = torchrun_run_id(args);
  if (args.role) settings.role = args.role->value;
  if (args.redirects) settings.redirects = args.redirects->value;
  if (args.tee) settings.tee = args.tee->value;
  if (args.local_ranks_filter) settings.local_ranks_filter = args.local_ranks_filter->value;
  settings.program = args.program;
  if (args.entry != TorchrunEntry::program) settings.interpreter = python_interpreter(environment);
  const auto folder = plan_run_folder(args, settings.run_id, environment, current_dir, dry_run);
  auto run_dir = make_run_folder(folder, dry_run);
  if (!run_dir.ok()) return run_dir.error();
  settings.run_dir = std::move(run_dir).value();
  settings.remove_run_dir = folder.temporary;
  settings.announce_run_dir = folder.announce;
  return settings;
}

Status use_torchrun_output(procmgr::GroupOptions& group, const TorchrunSettings& settings, int world_size) {
  group.output = procmgr::Output::log_dir;
  group.log_dir = settings.run_dir;
  group.log_layout = procmgr::LogLayout::torchrun;
  auto redirects = procmgr::stream_choice_for("--redirects", settings.redirects, procmgr::Streams::none, world_size);
  if (!redirects.ok()) return redirects.error();
  group.redirects = *redirects;
  auto tee = procmgr::stream_choice_for("--tee", settings.tee, procmgr::Streams::none, world_size);
  if (!tee.ok()) return tee.error();
  group.tee = *tee;
  if (!settings.local_ranks_filter.empty()) {
    auto ranks = parse_local_ranks(settings.local_ranks_filter, world_size);
    if (!ranks.ok()) return ranks.error();
    group.console_ranks = std::move(ranks).value();
  }
  if (settings.remove_run_dir) group.remove_on_death = settings.run_dir.string();
  group.attempt_env = [dir = settings.run_dir](int rank, int restart) {
    return torchrun_attempt_environment(dir, rank, restart);
  };
  return ok_status();
}

}  // namespace mptrain::cluster
