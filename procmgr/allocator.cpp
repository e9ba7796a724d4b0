#include "procmgr/allocator.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <system_error>
#include <vector>

#include "util/names.hpp"

namespace mptrain::procmgr {

namespace {

// A library file and the Debian package that installs it.
struct Library {
  std::string_view file;
  std::string_view package;
};

// The libraries of `allocator`, best first: tcmalloc's minimal build has no
// profiler (and is what run_cpu users install); the full one works too.
std::vector<Library> libraries_of(Allocator allocator) {
  switch (allocator) {
    case Allocator::jemalloc:
      return {{"libjemalloc.so.2", "libjemalloc2"}};
    case Allocator::tcmalloc:
      return {{"libtcmalloc_minimal.so.4", "libtcmalloc-minimal4"}, {"libtcmalloc.so.4", "libgoogle-perftools4"}};
    case Allocator::system:
      break;
  }
  return {};
}

// The directories the dynamic loader searches by default, this system's
// multiarch ones (MPTRAIN_MULTIARCH, from CMake) first.
std::vector<std::string> library_directories() {
  std::vector<std::string> directories;
  const std::string_view multiarch = MPTRAIN_MULTIARCH;
  if (!multiarch.empty()) {
    directories.push_back(fmt::format("/usr/lib/{}", multiarch));
    directories.push_back(fmt::format("/lib/{}", multiarch));
    directories.push_back(fmt::format("/usr/local/lib/{}", multiarch));
  }
  for (const char* directory : {"/usr/lib64", "/lib64", "/usr/lib", "/lib", "/usr/local/lib"}) {
    directories.emplace_back(directory);
  }
  return directories;
}

}  // namespace

std::string_view to_string(Allocator allocator) { return name_of(allocator_names, allocator, "default"); }

Result<Allocator> parse_allocator(std::string_view name) {
  if (const auto allocator = value_named(allocator_names, name)) return *allocator;
  return Error{fmt::format("unknown allocator '{}'; choose {}", name, names_list(allocator_names))};
}

std::string allocator_settings(Allocator allocator) {
  return allocator == Allocator::jemalloc ? "MALLOC_CONF=" + std::string(jemalloc_conf) : std::string();
}

Result<std::string> find_allocator(Allocator allocator, const FsRoot& root) {
  const auto libraries = libraries_of(allocator);
  if (libraries.empty()) return std::string();
  const auto directories = library_directories();
  for (const auto& library : libraries) {
    for (const auto& directory : directories) {
      const std::string path = fmt::format("{}/{}", directory, library.file);
      std::error_code error;
      if (std::filesystem::is_regular_file(root.path(path), error)) return path;
    }
  }
  return Error{fmt::format("--allocator {}: {} is not installed (looked in {}); install it with `apt-get install {}`",
                           to_string(allocator), libraries.front().file, fmt::join(directories, ", "),
                           libraries.front().package)};
}

}  // namespace mptrain::procmgr
