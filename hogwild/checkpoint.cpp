#include "hogwild/checkpoint.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <concepts>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>

#include "util/fs.hpp"

namespace mptrain::hogwild {

namespace {

constexpr std::string_view checkpoint_magic = checkpoint_file.signature;
constexpr std::uint32_t format_version = 1;

// Parameters are stored as the bits of IEEE 754 binary32.
static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == sizeof(std::uint32_t));
constexpr std::size_t float_bytes = sizeof(std::uint32_t);
static_assert(std::endian::native == std::endian::little || std::endian::native == std::endian::big);
constexpr bool host_is_little_endian = std::endian::native == std::endian::little;

// `value` with its bytes in reverse order (std::byteswap is C++23).
template <std::unsigned_integral T>
constexpr T byteswap(T value) {
  T swapped = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) swapped = static_cast<T>(swapped << 8) | ((value >> (8 * i)) & 0xFFU);
  return swapped;
}
static_assert(byteswap(std::uint32_t{0x01020304}) == 0x04030201);
static_assert(byteswap(std::uint64_t{0x0102030405060708}) == 0x0807060504030201);

// `value` converted between host order and little-endian (either way: a
// swap on a big-endian host, nothing on a little-endian one).
template <std::unsigned_integral T>
constexpr T little_endian(T value) {
  return host_is_little_endian ? value : byteswap(value);
}

// Appends the little-endian bytes of `value` to `out`.
template <std::unsigned_integral T>
void put(std::string& out, T value) {
  value = little_endian(value);
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// The value of the sizeof(T) little-endian bytes at `in`.
template <std::unsigned_integral T>
T load(const char* in) {
  T value = 0;
  std::memcpy(&value, in, sizeof(T));
  return little_endian(value);
}

// Appends `values` as little-endian binary32 to `out`: one copy on a
// little-endian host, a swap per value on a big-endian one.
void put_floats(std::string& out, std::span<const float> values) {
  if constexpr (host_is_little_endian) {
    out.append(reinterpret_cast<const char*>(values.data()), values.size_bytes());
  } else {
    for (float value : values) put(out, std::bit_cast<std::uint32_t>(value));
  }
}

// Fills `values` from as many little-endian binary32 values at `bytes`.
void get_floats(const char* bytes, std::span<float> values) {
  if constexpr (host_is_little_endian) {
    std::memcpy(values.data(), bytes, values.size_bytes());
  } else {
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = std::bit_cast<float>(load<std::uint32_t>(bytes + i * float_bytes));
  }
}

// Reads little-endian values from a byte string, remembering truncation.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  // The next value, or 0 once the bytes run out.
  template <std::unsigned_integral T>
  T get() {
    if (bytes_.size() - offset_ < sizeof(T) || truncated_) {
      truncated_ = true;
      return 0;
    }
    const T value = load<T>(bytes_.data() + offset_);
    offset_ += sizeof(T);
    return value;
  }
  bool truncated() const { return truncated_; }
  std::size_t offset() const { return offset_; }
  std::size_t remaining() const { return bytes_.size() - offset_; }

 private:
  std::string_view bytes_;
  std::size_t offset_ = 0;
  bool truncated_ = false;
};

// The size of a checkpoint of `layout`, as encode_checkpoint writes it.
std::size_t checkpoint_size(const ModelLayout& layout) {
  std::size_t size = checkpoint_magic.size() + 3 * sizeof(std::uint32_t) + 3 * sizeof(std::uint64_t) +
                     layout.parameter_count * float_bytes + sizeof(std::uint32_t);
  for (const auto& info : layout.tensors) size += sizeof(std::uint32_t) * (1 + info.shape.size());
  return size;
}

// The most a checkpoint header can promise: the size of the largest model's.
std::size_t largest_checkpoint_size() {
  std::size_t largest = 0;
  for (ModelKind kind : {ModelKind::cnn, ModelKind::mlp, ModelKind::logreg}) {
    largest = std::max(largest, checkpoint_size(model_layout(kind)));
  }
  return largest;
}

Error bad(const std::filesystem::path& path, std::string_view problem) {
  return Error{fmt::format("{}: {}", path.string(), problem)};
}

// `error` (a checkpoint that could not be read at all) with what to do instead.
Error unreadable(const Error& error) {
  if (error.code == ENOENT)
    return Error{error.message + "; give the path of a checkpoint written by --save-model", error.code};
  if (error.code == EACCES || error.code == EPERM)
    return Error{error.message + "; give a checkpoint you may read", error.code};
  return Error{error.message + "; give a checkpoint file written by --save-model", error.code};
}

}  // namespace

std::uint32_t crc32_of(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(bytes.size() - done, 1U << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), chunk);
    done += chunk;
  }
  return static_cast<std::uint32_t>(crc);
}

std::string parameters_checksum(std::span<const float> parameters) {
  const auto crc =
      crc32_of(std::string_view(reinterpret_cast<const char*>(parameters.data()), parameters.size_bytes()));
  return fmt::format("{:08x}", crc);
}

std::string encode_checkpoint(const ModelLayout& layout, std::span<const float> parameters, std::uint64_t epochs,
                              std::uint64_t samples) {
  std::string out(checkpoint_magic);
  put(out, format_version);
  put(out, static_cast<std::uint32_t>(layout.kind));
  put(out, static_cast<std::uint32_t>(layout.tensors.size()));
  for (const auto& info : layout.tensors) {
    put(out, static_cast<std::uint32_t>(info.shape.size()));
    for (int extent : info.shape) put(out, static_cast<std::uint32_t>(extent));
  }
  put(out, static_cast<std::uint64_t>(parameters.size()));
  put(out, epochs);
  put(out, samples);
  put_floats(out, parameters);
  put(out, crc32_of(std::string_view(out).substr(checkpoint_magic.size())));
  return out;
}

Status save_checkpoint(const std::filesystem::path& path, const ModelLayout& layout, std::span<const float> parameters,
                       std::uint64_t epochs, std::uint64_t samples) {
  return write_file_atomic(path, encode_checkpoint(layout, parameters, epochs, samples), checkpoint_file);
}

Result<ModelKind> checkpoint_model(const std::filesystem::path& path) {
  auto head = read_regular_head(path, checkpoint_magic.size() + 2 * sizeof(std::uint32_t));
  if (!head.ok()) return unreadable(head.error());
  if (head->substr(0, checkpoint_magic.size()) != checkpoint_magic) return bad(path, "not an mptrain checkpoint");
  Reader reader(std::string_view(*head).substr(checkpoint_magic.size()));
  const auto version = reader.get<std::uint32_t>();
  const auto kind = static_cast<ModelKind>(reader.get<std::uint32_t>());
  if (reader.truncated()) return bad(path, "truncated checkpoint header");
  if (version != format_version)
    return bad(path, fmt::format("checkpoint format version {} is not supported", version));
  if (kind != ModelKind::cnn && kind != ModelKind::mlp && kind != ModelKind::logreg) {
    return bad(path, "unknown model kind in the checkpoint header");
  }
  return kind;
}

namespace {

// The whole file at `path`, once its start says it is a checkpoint and its
// size is one a checkpoint can have; an Error saying what it is otherwise.
Result<std::string> read_checkpoint_file(const std::filesystem::path& path) {
  // What the file is first, so that a large file of another kind is called that, not "too large".
  auto head = read_regular_head(path, checkpoint_magic.size());
  if (!head.ok()) return unreadable(head.error());
  if (*head != checkpoint_magic) {
    return bad(path, fmt::format("not an mptrain checkpoint (it does not start with {}); give a file written by "
                                 "--save-model",
                                 checkpoint_magic));
  }
  // Never more than a header can promise: a huge file is refused, not read.
  const std::size_t largest = largest_checkpoint_size();
  std::error_code size_error;
  if (const auto size = std::filesystem::file_size(path, size_error); !size_error && size > largest) {
    return bad(path, fmt::format("{} bytes, more than any mptrain checkpoint holds (at most {}): the file is "
                                 "damaged; give a file written by --save-model",
                                 size, largest));
  }
  auto content = read_regular_file(path, largest);
  if (!content.ok()) return unreadable(content.error());
  if (std::string_view(*content).substr(0, checkpoint_magic.size()) != checkpoint_magic) {
    return bad(path, "not an mptrain checkpoint (it changed while read)");
  }
  return content;
}

// The format version and model kind `reader` is at; an Error unless they are this format's and `expected`.
Result<ModelKind> read_kind(const std::filesystem::path& path, Reader& reader, ModelKind expected) {
  const auto version = reader.get<std::uint32_t>();
  if (!reader.truncated() && version != format_version) {
    return bad(path,
               fmt::format("checkpoint format version {} is not supported (expected {})", version, format_version));
  }
  const auto kind = static_cast<ModelKind>(reader.get<std::uint32_t>());
  if (reader.truncated()) return bad(path, "truncated checkpoint header");
  if (kind != ModelKind::cnn && kind != ModelKind::mlp && kind != ModelKind::logreg) {
    return bad(path, "unknown model kind in the checkpoint header");
  }
  if (kind != expected) {
    return bad(path, fmt::format("holds a '{}' model, not '{}'; pass --model {} or another checkpoint", to_string(kind),
                                 to_string(expected), to_string(kind)));
  }
  return kind;
}

// The tensor shapes `reader` is at; an Error unless they are `layout`'s.
Status read_shapes(const std::filesystem::path& path, Reader& reader, const ModelLayout& layout) {
  if (reader.get<std::uint32_t>() != layout.tensors.size()) return bad(path, "tensor count does not match the model");
  for (const auto& info : layout.tensors) {
    if (reader.get<std::uint32_t>() != info.shape.size()) return bad(path, "tensor shapes do not match the model");
    for (int extent : info.shape) {
      if (reader.get<std::uint32_t>() != static_cast<std::uint32_t>(extent)) {
        return bad(path, fmt::format("shape of {} does not match the model", info.name));
      }
    }
  }
  return ok_status();
}

}  // namespace

Result<Checkpoint> load_checkpoint(const std::filesystem::path& path, ModelKind expected) {
  auto content = read_checkpoint_file(path);
  if (!content.ok()) return content.error();
  const std::string_view bytes = *content;
  Reader reader(bytes.substr(checkpoint_magic.size()));
  const auto kind = read_kind(path, reader, expected);
  if (!kind.ok()) return kind.error();
  const ModelLayout layout = model_layout(*kind);
  if (auto shapes = read_shapes(path, reader, layout); !shapes.ok()) return shapes.error();
  const auto count = reader.get<std::uint64_t>();
  Checkpoint checkpoint;
  checkpoint.kind = *kind;
  checkpoint.epochs = reader.get<std::uint64_t>();
  checkpoint.samples = reader.get<std::uint64_t>();
  if (reader.truncated()) return bad(path, "truncated checkpoint header");
  if (count != layout.parameter_count) return bad(path, "parameter count does not match the model");
  if (reader.remaining() != count * float_bytes + sizeof(std::uint32_t)) {
    return bad(path, fmt::format("truncated or oversized: {} bytes of parameters and checksum expected, {} present",
                                 count * float_bytes + sizeof(std::uint32_t), reader.remaining()));
  }
  const std::size_t payload_at = checkpoint_magic.size() + reader.offset();
  checkpoint.parameters.resize(count);
  get_floats(bytes.data() + payload_at, checkpoint.parameters);
  const auto stored = load<std::uint32_t>(bytes.data() + payload_at + count * float_bytes);
  const auto computed =
      crc32_of(bytes.substr(checkpoint_magic.size(), bytes.size() - checkpoint_magic.size() - sizeof stored));
  if (stored != computed) return bad(path, "checksum mismatch: the checkpoint is corrupt");
  // 2^53: beyond any training, exact as a double and positive wherever it is shown.
  constexpr std::uint64_t largest_counter = std::uint64_t{1} << 53;
  if (checkpoint.epochs > largest_counter || checkpoint.samples > largest_counter) {
    return bad(path, fmt::format("its totals ({} epochs, {} samples) are beyond any training's: it is corrupt or "
                                 "was not written by mptrain",
                                 checkpoint.epochs, checkpoint.samples));
  }
  return checkpoint;
}

}  // namespace mptrain::hogwild
