// The memory allocators `run -- CMD` can preload into its workers
// (`--allocator`), as torch's run_cpu does: jemalloc and tcmalloc from
// Debian's packages, found where the dynamic loader looks for them.
#pragma once

#include <string>
#include <string_view>

#include "util/fs.hpp"
#include "util/names.hpp"
#include "util/result.hpp"

namespace mptrain::procmgr {

enum class Allocator {
  system,    // the C library's malloc ("default")
  jemalloc,  // libjemalloc.so.2, Debian's libjemalloc2
  tcmalloc,  // libtcmalloc_minimal.so.4, Debian's libtcmalloc-minimal4
};

// Its names (`--allocator`).
inline constexpr std::array allocator_names{Named<Allocator>{Allocator::jemalloc, "jemalloc"},
                                            Named<Allocator>{Allocator::tcmalloc, "tcmalloc"},
                                            Named<Allocator>{Allocator::system, "default"}};

// "default", "jemalloc" or "tcmalloc".
std::string_view to_string(Allocator allocator);
// The allocator named `name` (as to_string writes it); an Error listing the names otherwise.
Result<Allocator> parse_allocator(std::string_view name);

// The settings torch's run_cpu gives jemalloc when it preloads it: large
// allocations in their own arena (oversize_threshold:1), purging in a
// background thread, transparent huge pages for metadata where the system
// uses them.
inline constexpr std::string_view jemalloc_conf = "oversize_threshold:1,background_thread:true,metadata_thp:auto";

// The variable `allocator` reads its settings from, with the value mptrain
// gives it ("MALLOC_CONF=…" for jemalloc); "" for the others.
std::string allocator_settings(Allocator allocator);

// The absolute path of the library to preload for `allocator` ("" for the
// system allocator), looked for in the library directories under `root`;
// an Error naming the Debian package to install when it is not there.
Result<std::string> find_allocator(Allocator allocator, const FsRoot& root);

}  // namespace mptrain::procmgr
