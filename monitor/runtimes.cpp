// Threading runtimes named from /proc/PID/maps (see runtimes.hpp for the rules).
#include "monitor/runtimes.hpp"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <optional>

#include "util/fd.hpp"
#include "util/runtime_table.hpp"

namespace mptrain::monitor {

namespace {

// Each RuntimeKind's row of the one runtime table (util/runtime_table.def),
// in RuntimeKind order: its display name, the libraries that are it (NAME
// exactly, or NAME* as a prefix; OpenBLAS is told apart by openblas_build),
// the variable it reads for its pool size at start-up and, where that is not
// what sizes it, the knob a fix names.
constexpr std::array runtime_table{
    &runtime_row("gnu_openmp"),      &runtime_row("llvm_openmp"),
    &runtime_row("intel_openmp"),    &runtime_row("openblas_pthreads"),
    &runtime_row("openblas_openmp"), &runtime_row("mkl"),
    &runtime_row("onetbb"),          &runtime_row("blis"),
    &runtime_row("pytorch"),         &runtime_row("numba"),
    &runtime_row("polars"),          &runtime_row("julia"),
    &runtime_row("tensorflow"),      &runtime_row("go"),
    &runtime_row("rayon"),           &runtime_row("numexpr"),
};
static_assert(runtime_table.size() == static_cast<std::size_t>(RuntimeKind::numexpr) + 1,
              "runtime_table has one row per RuntimeKind, in its order");

constexpr std::size_t kind_count = runtime_table.size();

const RuntimeRow& row(RuntimeKind kind) { return *runtime_table[static_cast<std::size_t>(kind)]; }

// True when library `name` matches `pattern`: NAME exactly, or NAME* as a prefix.
bool matches(std::string_view pattern, std::string_view name) {
  if (pattern.ends_with('*')) return name.starts_with(pattern.substr(0, pattern.size() - 1));
  return !pattern.empty() && name == pattern;
}

// A mapped library recognised as a runtime; `ambiguous` for an OpenBLAS
// whose build rule 3 decides (kind is then openblas_pthreads); `alias` for a
// generic name (libblas.so.3) that a runtime's own name should replace.
struct Found {
  RuntimeKind kind;
  bool ambiguous = false;
  bool alias = false;
};

// A Debian alternatives directory and what a BLAS file in it is (nullopt: a serial build).
struct AlternativesDirectory {
  std::string_view name;
  std::optional<Found> found;
};

constexpr std::array<AlternativesDirectory, 6> debian_directories = {{
    {"openblas-pthread", Found{RuntimeKind::openblas_pthreads}},
    {"openblas-openmp", Found{RuntimeKind::openblas_openmp}},
    {"openblas-serial", std::nullopt},
    {"blis-pthread", Found{RuntimeKind::blis}},
    {"blis-openmp", Found{RuntimeKind::blis}},
    {"blis-serial", std::nullopt},
}};

// `line` after its first `count` whitespace-separated fields and the blanks that follow them.
std::string_view after_fields(std::string_view line, int count) {
  const auto skip_blanks = [&] {
    const auto start = line.find_first_not_of(" \t");
    line.remove_prefix(start == std::string_view::npos ? line.size() : start);
  };
  for (int i = 0; i < count; ++i) {
    skip_blanks();
    const auto end = line.find_first_of(" \t");
    line.remove_prefix(end == std::string_view::npos ? line.size() : end);
  }
  skip_blanks();
  return line;
}

// The file a maps line maps (address perms offset dev inode pathname), without
// " (deleted)"; empty for anonymous and special ([heap], [vdso]) mappings.
std::string_view mapped_file(std::string_view line) {
  auto path = after_fields(line, 5);
  constexpr std::string_view deleted = " (deleted)";
  if (path.ends_with(deleted)) path.remove_suffix(deleted.size());
  return path.starts_with('/') ? path : std::string_view();
}

// True when `rest` is empty or ".N[.N…]" (the version after ".so").
bool is_version_suffix(std::string_view rest) {
  while (!rest.empty()) {
    if (rest.size() < 2 || rest[0] != '.' || !std::isdigit(static_cast<unsigned char>(rest[1]))) return false;
    rest.remove_prefix(1);
    while (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest[0]))) rest.remove_prefix(1);
  }
  return true;
}

// NAME when `base` is NAME.so or NAME.so.N[.N…], otherwise nullopt.
std::optional<std::string_view> shared_object_stem(std::string_view base) {
  for (auto at = base.find(".so"); at != std::string_view::npos; at = base.find(".so", at + 1)) {
    if (at > 0 && is_version_suffix(base.substr(at + 3))) return base.substr(0, at);
  }
  return std::nullopt;
}

// True for the file names Debian's BLAS alternatives directories hold.
bool is_blas_alternative(std::string_view name) {
  return name == "libblas" || name == "libcblas" || name == "liblapack" || name.starts_with("libopenblas") ||
         name == "libblis";
}

// OpenBLAS's build from its library name (rules 2 and 3 of the header).
Found openblas_build(std::string_view name) {
  if (name.ends_with('o')) return Found{RuntimeKind::openblas_openmp};
  return Found{RuntimeKind::openblas_pthreads, true};
}

// The runtime a library called `name` (no version or hash) is, or nullopt.
std::optional<Found> classify_name(std::string_view name) {
  if (name.starts_with("libopenblas")) return openblas_build(name);
  for (std::size_t kind = 0; kind < runtime_table.size(); ++kind) {
    for (const auto pattern : runtime_table[kind]->libraries) {
      if (matches(pattern, name)) return Found{static_cast<RuntimeKind>(kind)};
    }
  }
  return std::nullopt;
}

// The runtime a library `name` in directory `directory` is by a DIR/NAME pattern (a Python extension module
// such as numexpr/interpreter.cpython-311-x86_64-linux-gnu.so, whose own name says little), or nullopt.
std::optional<Found> classify_in_directory(std::string_view directory, std::string_view name) {
  for (std::size_t kind = 0; kind < runtime_table.size(); ++kind) {
    for (const auto pattern : runtime_table[kind]->libraries) {
      const auto slash = pattern.find('/');
      if (slash != std::string_view::npos && pattern.substr(0, slash) == directory &&
          matches(pattern.substr(slash + 1), name))
        return Found{static_cast<RuntimeKind>(kind)};
    }
  }
  return std::nullopt;
}

// The runtime library `name` in directory `directory` (its base name) is, or nullopt.
std::optional<Found> classify(std::string_view directory, std::string_view name) {
  if (auto found = classify_in_directory(directory, name)) return found;
  if (is_blas_alternative(name)) {
    for (const auto& alternatives : debian_directories) {
      if (alternatives.name != directory) continue;
      if (!alternatives.found) return std::nullopt;
      return Found{alternatives.found->kind, false, !name.starts_with("libopenblas") && name != "libblis"};
    }
  }
  return classify_name(name);
}

// The runtime the file at `path` is, or nullopt when it is none.
std::optional<Found> classify_path(std::string_view path) {
  const auto slash = path.rfind('/');
  const auto base = path.substr(slash + 1);
  const auto stem = shared_object_stem(base);
  if (!stem) return std::nullopt;
  const auto parent = path.substr(0, slash);
  const auto directory = parent.substr(parent.rfind('/') + 1);  // npos + 1 == 0: the whole of parent
  return classify(directory, stem->substr(0, stem->find_first_of("-.")));
}

// Gathers the first library seen of each kind (a runtime's own name before
// a generic alias), then settles OpenBLAS's build.
class Collector {
 public:
  // Notes `found`, mapped from file `base`, unless its kind was seen already.
  void add(Found found, std::string_view base) {
    if (found.ambiguous) {
      if (ambiguous_openblas_.empty()) ambiguous_openblas_ = std::string(base);
      return;
    }
    const auto i = index(found.kind);
    if (libraries_[i].empty() || (aliases_[i] && !found.alias)) {
      libraries_[i] = std::string(base);
      aliases_[i] = found.alias;
    }
  }

  // The runtimes in RuntimeKind order.
  std::vector<Runtime> finish() {
    if (!ambiguous_openblas_.empty()) {
      auto& slot = libraries_[index(has_openmp() ? RuntimeKind::openblas_openmp : RuntimeKind::openblas_pthreads)];
      if (slot.empty()) slot = std::move(ambiguous_openblas_);  // a decided OpenBLAS of that build wins
    }
    std::vector<Runtime> runtimes;
    for (std::size_t i = 0; i < kind_count; ++i) {
      if (!libraries_[i].empty()) runtimes.push_back(Runtime{static_cast<RuntimeKind>(i), std::move(libraries_[i])});
    }
    return runtimes;
  }

 private:
  static std::size_t index(RuntimeKind kind) { return static_cast<std::size_t>(kind); }

  bool has_openmp() const {
    return !libraries_[index(RuntimeKind::gnu_openmp)].empty() ||
           !libraries_[index(RuntimeKind::llvm_openmp)].empty() ||
           !libraries_[index(RuntimeKind::intel_openmp)].empty();
  }

  std::array<std::string, kind_count> libraries_;  // empty: kind not seen
  std::array<bool, kind_count> aliases_{};
  std::string ambiguous_openblas_;
};

}  // namespace

std::string_view to_string(RuntimeKind kind) { return row(kind).name; }

std::string_view knob(RuntimeKind kind) { return row(kind).knob.empty() ? row(kind).variable : row(kind).knob; }

std::string_view variable(RuntimeKind kind) { return row(kind).variable; }

bool meets_at_barriers(RuntimeKind kind) { return row(kind).barriers; }

bool meets_at_barriers(const std::vector<Runtime>& runtimes) {
  return std::any_of(runtimes.begin(), runtimes.end(), [](const Runtime& r) { return meets_at_barriers(r.kind); });
}

std::vector<Runtime> parse_runtimes(std::string_view maps_text) {
  Collector collector;
  while (!maps_text.empty()) {
    const auto end = maps_text.find('\n');
    const auto path = mapped_file(maps_text.substr(0, end));
    if (auto found = classify_path(path)) collector.add(*found, path.substr(path.rfind('/') + 1));
    if (end == std::string_view::npos) break;
    maps_text.remove_prefix(end + 1);
  }
  return collector.finish();
}

Result<std::vector<Runtime>> read_runtimes(const FsRoot& root, pid_t pid) {
  const auto proc = "/proc/" + std::to_string(pid);
  auto text = root.read(proc + "/maps");
  if (!text.ok()) return text.error();
  auto runtimes = parse_runtimes(*text);
  const auto exe = root.path(proc + "/exe");
  const auto name = [&] {
    std::error_code error;
    const auto target = std::filesystem::read_symlink(exe, error);
    return (error ? exe : target).filename().string();
  };
  if (is_go_program(exe)) runtimes.push_back(Runtime{RuntimeKind::go, name()});
  if (embeds_rayon(exe)) runtimes.push_back(Runtime{RuntimeKind::rayon, name()});
  return runtimes;
}

namespace {

// A 64-bit ELF file opened for reading its program headers and segments.
class ElfFile {
 public:
  explicit ElfFile(const std::filesystem::path& path) : fd_(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) {
    struct stat info {};
    if (!fd_.valid() || ::fstat(fd_.get(), &info) != 0 || !S_ISREG(info.st_mode)) return;
    size_ = static_cast<std::uint64_t>(info.st_size);
    valid_ = read_at(&header_, sizeof header_, 0) && std::memcmp(header_.e_ident, ELFMAG, SELFMAG) == 0 &&
             header_.e_ident[EI_CLASS] == ELFCLASS64 && header_.e_phentsize == sizeof(Elf64_Phdr) &&
             header_.e_phnum <= 256;
  }

  bool valid() const { return valid_; }

  // The program headers; an empty list when one cannot be read.
  std::vector<Elf64_Phdr> segments() const {
    std::vector<Elf64_Phdr> segments(valid_ ? header_.e_phnum : 0);
    for (unsigned i = 0; i < segments.size(); ++i) {
      if (!read_at(&segments[i], sizeof segments[i], header_.e_phoff + i * sizeof segments[i])) return {};
    }
    return segments;
  }

  // `size` bytes at `offset` into `into`; false past the end or on a short read.
  bool read_at(void* into, std::size_t size, std::uint64_t offset) const {
    return offset <= size_ && ::pread(fd_.get(), into, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
  }

  std::uint64_t size() const { return size_; }

 private:
  UniqueFd fd_;
  std::uint64_t size_ = 0;
  Elf64_Ehdr header_{};
  bool valid_ = false;
};

}  // namespace

// True when `text` holds "rayon-core-" followed by a digit (a crate directory such as
// "rayon-core-1.10.1/", not this very marker in a program that looks for it, such as mptrain).
bool has_rayon_crate_path(std::string_view text) {
  constexpr std::string_view marker = "rayon-core-";
  for (auto at = text.find(marker); at != std::string_view::npos; at = text.find(marker, at + 1)) {
    const auto next = at + marker.size();
    if (next < text.size() && std::isdigit(static_cast<unsigned char>(text[next]))) return true;
  }
  return false;
}

bool embeds_rayon(const std::filesystem::path& path) {
  constexpr std::size_t overlap = std::string_view("rayon-core-1").size() - 1;
  constexpr std::uint64_t chunk = 1 << 20;
  std::uint64_t budget = std::uint64_t{256} << 20;
  const ElfFile file(path);
  std::string buffer;
  for (const auto& segment : file.segments()) {
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) != 0 || segment.p_offset >= file.size()) continue;
    const std::uint64_t end = std::min(file.size(), segment.p_offset + segment.p_filesz);
    // Chunks that overlap by the marker and its digit less one, so one across a boundary is found.
    for (std::uint64_t at = segment.p_offset; at < end && budget > 0;) {
      const std::uint64_t size = std::min({chunk, end - at, budget});
      buffer.resize(size);
      if (!file.read_at(buffer.data(), size, at)) break;
      if (has_rayon_crate_path(buffer)) return true;
      budget -= size;
      if (at + size >= end) break;
      at += size - std::min<std::uint64_t>(size, overlap);
    }
  }
  return false;
}

bool is_go_program(const std::filesystem::path& path) {
  const ElfFile file(path);
  for (const auto& segment : file.segments()) {
    if (segment.p_type != PT_NOTE || segment.p_filesz > 64 * 1024) continue;
    std::string notes(segment.p_filesz, '\0');
    if (!file.read_at(notes.data(), notes.size(), segment.p_offset)) continue;
    // Each note: namesz, descsz, type, then the name and the descriptor, each padded to 4 bytes.
    const auto padded = [](std::uint64_t size) { return (size + 3) & ~std::uint64_t{3}; };
    for (std::uint64_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
      Elf64_Nhdr note{};
      std::memcpy(&note, notes.data() + at, sizeof note);
      const auto name_at = at + sizeof note;
      if (name_at + padded(note.n_namesz) > notes.size()) break;
      const auto name = std::string_view(notes.data() + name_at, note.n_namesz);
      if (note.n_type == 4 && (name == std::string_view("Go\0\0", 4) || name == std::string_view("Go\0", 3)))
        return true;
      at = name_at + padded(note.n_namesz) + padded(note.n_descsz);
    }
  }
  return false;
}

}  // namespace mptrain::monitor
