#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "cluster/torchrun_files.hpp"
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

}  // namespace mptrain::cluster
