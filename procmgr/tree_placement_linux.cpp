// The Linux side of tree placement: finding the library beside the running
// binary, and the slot tables as memfds.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

#include "procmgr/tree_placement.hpp"

namespace mptrain::procmgr {

namespace {
constexpr const char* library_name = "libmptrain_place.so";
}  // namespace

Result<std::string> find_place_library() {
  std::error_code error;
  const auto binary = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return Error{"cannot read /proc/self/exe to find " + std::string(library_name) + ": " + error.message()};
  const auto directory = binary.parent_path();
  const std::filesystem::path candidates[] = {directory / library_name,
                                              directory / ".." / "lib" / "mptrain" / library_name};
  for (const auto& candidate : candidates) {
    if (std::filesystem::is_regular_file(candidate, error)) return candidate.lexically_normal().string();
  }
  return Error{"the placement library " + std::string(library_name) + " is neither in " + directory.string() +
               " nor in " + (directory / ".." / "lib" / "mptrain").lexically_normal().string() +
               "; reinstall mptrain (cmake --install), or run it from its build directory"};
}

Result<SlotTable> SlotTable::create(int slots) {
  SlotTable table;
  table.fd_.reset(::memfd_create("mptrain-slots", MFD_CLOEXEC));
  if (!table.fd_.valid()) return errno_error("cannot create the slot table", "memfd_create");
  if (::ftruncate(table.fd_.get(), static_cast<off_t>(slots) * static_cast<off_t>(sizeof(int))) != 0) {
    return errno_error("cannot size the slot table", "memfd");
  }
  table.path_ = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(table.fd_.get());
  return table;
}

}  // namespace mptrain::procmgr
