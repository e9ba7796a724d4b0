#include "hogwild/idx.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>

#include "util/fs.hpp"

namespace mptrain::hogwild {

namespace {

constexpr int unsigned_byte_type = 0x08;
constexpr std::size_t max_idx_bytes = std::size_t{1} << 34;

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

// Reads exactly `size` bytes; returns the number read (short at end of data) or -1 on a zlib error.
long long read_fully(gzFile file, std::byte* out, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const auto chunk = static_cast<unsigned>(std::min<std::size_t>(size - done, 1U << 30));
    const int got = gzread(file, out + done, chunk);
    if (got < 0) return -1;
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return static_cast<long long>(done);
}

Error idx_error(const std::filesystem::path& path, std::string_view problem) {
  return Error{fmt::format("{}: {}", path.string(), problem)};
}

std::string zlib_problem(gzFile file) {
  int code = 0;
  const char* message = gzerror(file, &code);
  return fmt::format("corrupt compressed data ({})", message != nullptr ? message : "zlib error");
}

}  // namespace

std::string_view file_prefix(Split split) { return split == Split::train ? "train" : "t10k"; }

std::array<std::string, 2> idx_stems(Split split) {
  const std::string prefix(file_prefix(split));
  return {prefix + "-images-idx3-ubyte", prefix + "-labels-idx1-ubyte"};
}

Result<std::filesystem::path> find_idx_file(const std::filesystem::path& dir, const std::string& stem) {
  std::error_code error;
  const auto status = std::filesystem::status(dir, error);
  if (error && error != std::errc::no_such_file_or_directory && error != std::errc::not_a_directory) {
    // Permission denied on the way is no "no such directory".
    return Error{
        fmt::format("--data {}: cannot read it: {}; give a directory you can read", dir.string(), error.message())};
  }
  if (!std::filesystem::is_directory(status)) {
    return Error{fmt::format("--data {}: {}; pass --data DIR with MNIST-format IDX files", dir.string(),
                             std::filesystem::exists(status) ? "not a directory" : "no such directory")};
  }
  for (const auto& name : {stem, stem + ".gz"}) {
    const auto file = check_readable_file(dir / name);
    if (!file.found) continue;
    if (!file.usable.ok()) return Error{file.usable.error().message + "; give a readable IDX file in its place"};
    return dir / name;
  }
  return Error{fmt::format("{}: neither {} nor {}.gz found; pass --data DIR with MNIST-format IDX files", dir.string(),
                           stem, stem)};
}

Result<SharedMemory> read_idx(const std::filesystem::path& path, int dimensions, std::vector<int>& shape) {
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) return errno_error("cannot open", path.string());
  std::array<unsigned char, 4> magic{};
  if (read_fully(file.get(), reinterpret_cast<std::byte*>(magic.data()), 4) != 4) {
    return idx_error(path, "truncated IDX header");
  }
  if (magic[0] != 0 || magic[1] != 0) {
    return idx_error(path, fmt::format("not an IDX file (it does not start with the bytes 00 00 08 {:02x}); give "
                                       "MNIST-format files (compressed ones must end in .gz)",
                                       dimensions));
  }
  if (magic[2] != unsigned_byte_type) {
    return idx_error(path, fmt::format("IDX element type 0x{:02x}, expected unsigned bytes (0x08)", magic[2]));
  }
  if (magic[3] != dimensions) {
    return idx_error(path, fmt::format("IDX file has {} dimensions, expected {}", magic[3], dimensions));
  }
  shape.assign(static_cast<std::size_t>(dimensions), 0);
  std::size_t total = 1;
  for (auto& extent : shape) {
    std::array<unsigned char, 4> be{};
    if (read_fully(file.get(), reinterpret_cast<std::byte*>(be.data()), 4) != 4) {
      return idx_error(path, "truncated IDX header");
    }
    const std::uint32_t value = (std::uint32_t{be[0]} << 24) | (std::uint32_t{be[1]} << 16) |
                                (std::uint32_t{be[2]} << 8) | std::uint32_t{be[3]};
    if (value == 0 || value > static_cast<std::uint32_t>(std::numeric_limits<int>::max())) {
      return idx_error(path, fmt::format("invalid IDX dimension {}", value));
    }
    extent = static_cast<int>(value);
    total *= value;
    if (total > max_idx_bytes) return idx_error(path, "IDX dimensions are implausibly large");
  }
  auto memory = SharedMemory::create(total, "mptrain-data", fmt::format("the data of {}", path.string()));
  if (!memory.ok()) return memory.error();
  const long long got = read_fully(file.get(), memory->data(), total);
  if (got < 0) return idx_error(path, zlib_problem(file.get()));
  if (static_cast<std::size_t>(got) != total) {
    return idx_error(path, fmt::format("truncated: the header promises {} data bytes, the file has {}", total, got));
  }
  std::byte extra{};
  const long long more = read_fully(file.get(), &extra, 1);
  if (more < 0) return idx_error(path, zlib_problem(file.get()));
  if (more > 0) return idx_error(path, "trailing data after the IDX payload (sizes do not match the header)");
  return std::move(memory).value();
}

Result<Dataset> load_dataset(const std::filesystem::path& dir, Split split, long limit) {
  const auto stems = idx_stems(split);
  auto image_path = find_idx_file(dir, stems[0]);
  if (!image_path.ok()) return image_path.error();
  auto label_path = find_idx_file(dir, stems[1]);
  if (!label_path.ok()) return label_path.error();
  std::vector<int> image_shape;
  std::vector<int> label_shape;
  auto images = read_idx(*image_path, 3, image_shape);
  if (!images.ok()) return images.error();
  auto labels = read_idx(*label_path, 1, label_shape);
  if (!labels.ok()) return labels.error();
  if (image_shape[0] != label_shape[0]) {
    return Error{fmt::format("{} holds {} images but {} holds {} labels", image_path->string(), image_shape[0],
                             label_path->string(), label_shape[0])};
  }
  const auto* label_bytes = reinterpret_cast<const std::uint8_t*>(labels->data());
  for (int i = 0; i < label_shape[0]; ++i) {
    if (label_bytes[i] > 9) {
      return idx_error(*label_path, fmt::format("label {} of sample {} is outside 0-9", label_bytes[i], i));
    }
  }
  Dataset data;
  data.count = limit > 0 ? static_cast<int>(std::min<long>(limit, image_shape[0])) : image_shape[0];
  data.rows = image_shape[1];
  data.cols = image_shape[2];
  data.image_memory = std::move(images).value();
  data.label_memory = std::move(labels).value();
  if (auto status = data.image_memory.protect(Access::read_only); !status.ok()) return status.error();
  if (auto status = data.label_memory.protect(Access::read_only); !status.ok()) return status.error();
  return data;
}

}  // namespace mptrain::hogwild
