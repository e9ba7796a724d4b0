#include <dlfcn.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "cluster/mpi.hpp"
#include "cluster/mpi_plugin_api.hpp"

namespace mptrain::cluster {

namespace {

constexpr const char* plugin_file = "libmptrain_mpi.so";

// Where the plugin may be: beside the executable (the build tree), then
// where `cmake --install` puts it (MPTRAIN_MPI_PLUGIN_DIR, from CMake).
std::vector<std::filesystem::path> plugin_candidates() {
  std::vector<std::filesystem::path> candidates;
  std::error_code error;
  const auto executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) candidates.push_back(executable.parent_path() / plugin_file);
  candidates.push_back(std::filesystem::path(MPTRAIN_MPI_PLUGIN_DIR) / plugin_file);
  return candidates;
}

}  // namespace

Result<std::string> find_mpi_plugin() {
  if (const char* chosen = std::getenv("MPTRAIN_MPI_PLUGIN"); chosen != nullptr && *chosen != '\0') {
    return std::string(chosen);
  }
  const auto candidates = plugin_candidates();
  for (const auto& candidate : candidates) {
    std::error_code error;
    if (std::filesystem::is_regular_file(candidate, error)) return candidate.string();
  }
  std::vector<std::string> looked;
  for (const auto& candidate : candidates) looked.push_back(candidate.string());
  return Error{
      fmt::format("this mptrain has no MPI support: {} is not in {}; build mptrain where libopenmpi-dev is installed",
                  plugin_file, fmt::join(looked, " or "))};
}

Result<std::unique_ptr<Mpi>> Mpi::start() {
  auto path = find_mpi_plugin();
  if (!path.ok()) return path.error();
  // RTLD_GLOBAL: Open MPI's own components, loaded later, resolve libmpi's symbols through it.
  void* library = ::dlopen(path->c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (library == nullptr) return Error{fmt::format("cannot load the MPI plugin {}: {}", *path, ::dlerror())};
  auto entry = reinterpret_cast<MpiPluginEntry>(::dlsym(library, mpi_plugin_entry));
  const MpiPluginApi* api = entry != nullptr ? entry() : nullptr;
  if (api == nullptr || api->version != mpi_plugin_api_version) {
    ::dlclose(library);
    return Error{fmt::format("{} is not an MPI plugin of this mptrain (rebuild it with this version)", *path)};
  }
  std::unique_ptr<Mpi> mpi(new Mpi(library, api));
  if (const int error = api->init(&mpi->rank_, &mpi->size_); error != 0) {
    // No rank yet: MPI did not start, so none is named.
    return Error{
        fmt::format("MPI_Init_thread failed: {}; check that mptrain was started by mpirun (or mpiexec) "
                    "and that its MPI library works (mpirun -n 2 hostname)",
                    mpi->error_text(error))};
  }
  return mpi;
}

Mpi::~Mpi() {
  if (api_->active() != 0) api_->finalize();
  // The library stays loaded: MPI's threads and handlers may outlive finalize.
}

std::string Mpi::error_text(int error) const {
  char text[512] = {};
  api_->error_text(error, text, sizeof text);
  return text;
}

Status Mpi::check(int error, const char* call) const {
  if (error == 0) return ok_status();
  return Error{fmt::format("{} failed on MPI rank {}: {}", call, rank_, error_text(error))};
}

Result<std::string> Mpi::broadcast(const std::string& text, int root) {
  std::int64_t length = static_cast<std::int64_t>(text.size());
  if (auto status = check(api_->broadcast(&length, sizeof length, root), "MPI_Bcast"); !status.ok()) {
    return status.error();
  }
  std::string received = rank_ == root ? text : std::string(static_cast<std::size_t>(length), '\0');
  if (auto status = check(api_->broadcast(received.data(), length, root), "MPI_Bcast"); !status.ok()) {
    return status.error();
  }
  return received;
}

Status Mpi::broadcast(std::span<float> values, int root) {
  return check(api_->broadcast(values.data(), static_cast<std::int64_t>(values.size_bytes()), root), "MPI_Bcast");
}

Status Mpi::sum(std::span<float> values) {
  return check(api_->sum_floats(values.data(), static_cast<std::int64_t>(values.size())), "MPI_Allreduce");
}

Status Mpi::sum(std::span<double> values) {
  return check(api_->sum_doubles(values.data(), static_cast<std::int64_t>(values.size())), "MPI_Allreduce");
}

Status Mpi::max(std::span<std::int64_t> values) {
  return check(api_->max_int64s(values.data(), static_cast<std::int64_t>(values.size())), "MPI_Allreduce");
}

Status Mpi::barrier() { return check(api_->barrier(), "MPI_Barrier"); }

void Mpi::abort(int code) {
  api_->abort(code);
  std::_Exit(code);  // MPI_Abort does not return; this is for an MPI that does
}

}  // namespace mptrain::cluster
