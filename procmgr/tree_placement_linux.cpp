// The Linux side of tree placement: finding the library beside the running
// binary, and the tree tables as memfds.
#include <fcntl.h>
#include <fmt/format.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "procmgr/place_table.h"
#include "procmgr/tree_placement.hpp"

namespace mptrain::procmgr {

namespace {
constexpr const char* library_name = place_library_name.data();

// Whom `info` lets change the file or folder it describes besides root and this user: "" when no one.
std::string others_can_change(const struct stat& info) {
  if (info.st_uid != 0 && info.st_uid != ::geteuid()) return fmt::format("it belongs to uid {}", info.st_uid);
  const bool sticky = (info.st_mode & S_ISVTX) != 0 && S_ISDIR(info.st_mode);  // others may not replace our entries
  if ((info.st_mode & S_IWOTH) != 0 && !sticky) return "everyone may write to it";
  if ((info.st_mode & S_IWGRP) != 0 && !sticky && info.st_gid != ::getegid() && info.st_gid != 0) {
    return fmt::format("group {} may write to it", info.st_gid);
  }
  return {};
}

// Ok when the library at `path` can go into every worker as a loader running as root would take it:
// a path LD_PRELOAD does not split, a regular file that neither it nor any folder above it lets
// another user change; an Error saying which part fails.
Status trusted_library(const std::filesystem::path& path) {
  const std::string text = path.string();
  if (text.find_first_of(" \t\n:") != std::string::npos) {
    return Error{
        fmt::format("the placement library's path {} holds a space or colon, which LD_PRELOAD would split "
                    "(the workers would load what follows relative to their folder); install mptrain where "
                    "its path has neither",
                    text)};
  }
  for (auto part = path; !part.empty(); part = part.parent_path()) {
    struct stat info {};
    if (::lstat(part.c_str(), &info) != 0) return errno_error("cannot check", part.string());
    if (auto who = others_can_change(info); !who.empty()) {
      return Error{
          fmt::format("the placement library {} is not loaded into the workers: {} ({}), so another user "
                      "could put code there; install mptrain where only root or you may write",
                      text, part.string(), who)};
    }
    if (part == part.root_path()) break;
  }
  return ok_status();
}
}  // namespace

Result<std::string> find_place_library() {
  std::error_code error;
  const auto binary = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return Error{fmt::format("cannot read /proc/self/exe to find {}: {}", library_name, error.message())};
  const auto directory = binary.parent_path();
  const std::filesystem::path candidates[] = {directory / library_name,
                                              directory / ".." / "lib" / "mptrain" / library_name};
  for (const auto& candidate : candidates) {
    if (!std::filesystem::is_regular_file(candidate, error)) continue;
    // The real path: each folder on the way is checked, not a link's.
    const auto real = std::filesystem::canonical(candidate, error);
    if (error) return Error{"cannot resolve " + candidate.string() + ": " + error.message()};
    if (auto trusted = trusted_library(real); !trusted.ok()) return trusted.error();
    return real.string();
  }
  return Error{"the placement library " + std::string(library_name) + " is neither in " + directory.string() +
               " nor in " + (directory / ".." / "lib" / "mptrain").lexically_normal().string() +
               "; reinstall mptrain (cmake --install), or run it from its build directory"};
}

static_assert(max_children == PLACE_MAX_SLICES, "the table holds max_children slices");

PreloadReach preload_reach_of_file(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat info {};
  if (!fd.valid() || ::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) return PreloadReach::reaches;
  std::string head(64 * 1024, '\0');
  const ssize_t got = ::pread(fd.get(), head.data(), head.size(), 0);
  head.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
  return preload_reach(head, secure_exec(info.st_mode, info.st_uid, info.st_gid, ::getuid(), ::getgid()));
}

Result<PlaceTable> PlaceTable::create(int slices) {
  PlaceTable table;
  table.fd_.reset(::memfd_create("mptrain-tree", MFD_CLOEXEC));
  if (!table.fd_.valid()) return errno_error("cannot create the tree table (memfd_create)", "");
  if (::ftruncate(table.fd_.get(), static_cast<off_t>(sizeof(place_table))) != 0) {
    return errno_error("cannot size the tree table", "memfd");
  }
  // Only the header's first fields are written: the rest of the memfd reads as zeros.
  struct {
    std::uint32_t magic;
    std::int32_t slices;
  } const header{PLACE_TABLE_MAGIC, slices};
  static_assert(offsetof(place_table, slices) == sizeof(std::uint32_t));
  if (::pwrite(table.fd_.get(), &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) {
    return errno_error("cannot write the tree table", "memfd");
  }
  table.path_ = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(table.fd_.get());
  return table;
}

namespace {

// The CPUs of a recorded mask.
CpuSet mask_cpus(const std::uint64_t (&mask)[PLACE_MASK_WORDS]) {
  std::vector<int> cpus;
  for (int word = 0; word < PLACE_MASK_WORDS; ++word) {
    for (int bit = 0; bit < 64; ++bit) {
      if ((mask[word] >> bit) & 1U) cpus.push_back(word * 64 + bit);
    }
  }
  return CpuSet(std::move(cpus));
}

// A fixed text field up to its first NUL.
template <std::size_t N>
std::string field_text(const char (&field)[N]) {
  return std::string(field, ::strnlen(field, N));
}

}  // namespace

Result<std::vector<PlacedProcess>> PlaceTable::read() const {
  // The header says how many entries were ever claimed: only those are read.
  struct {
    std::uint32_t magic;
    std::int32_t slices;
    std::int32_t used;
  } header{};
  static_assert(offsetof(place_table, used) == 2 * sizeof(std::int32_t));
  if (::pread(fd_.get(), &header, sizeof header, 0) != static_cast<ssize_t>(sizeof header)) {
    return errno_error("cannot read the tree table", "memfd");
  }
  const int used = std::clamp(header.used, 0, PLACE_MAX_PROCESSES);
  std::vector<place_process> entries(static_cast<std::size_t>(used));
  const auto bytes = static_cast<ssize_t>(entries.size() * sizeof(place_process));
  if (used > 0 && ::pread(fd_.get(), entries.data(), static_cast<std::size_t>(bytes),
                          static_cast<off_t>(offsetof(place_table, process))) != bytes) {
    return errno_error("cannot read the tree table", "memfd");
  }
  std::vector<PlacedProcess> processes;
  for (const auto& entry : entries) {
    if (entry.pid <= 0) continue;
    PlacedProcess process;
    process.pid = entry.pid;
    process.comm = field_text(entry.comm);
    process.slice = entry.slice;
    process.cpus = mask_cpus(entry.mask);
    process.asked = entry.asked;
    process.got = entry.got;
    process.call = field_text(entry.call);
    process.main = (entry.flags & PLACE_MAIN) != 0;
    process.holder = (entry.flags & PLACE_HOLDER) != 0;
    process.own_affinity = (entry.flags & PLACE_OWN_AFFINITY) != 0;
    process.helper = (entry.flags & PLACE_HELPER) != 0;
    processes.push_back(std::move(process));
  }
  return processes;
}

}  // namespace mptrain::procmgr
