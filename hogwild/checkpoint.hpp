// Model checkpoints, written atomically (temporary file, fsync, rename).
// Every field is little-endian whatever the host:
//   magic              8 bytes  "MPTRCKPT"
//   version            u32      1
//   model kind         u32      ModelKind: 1 cnn, 2 mlp, 3 logreg
//   tensor count       u32
//   each tensor        u32 rank, then u32 per extent (PyTorch's shape)
//   parameter count    u64
//   epochs, samples    u64, u64 (training totals)
//   parameters         IEEE 754 binary32 each, in the layout's order
//   checksum           u32      zlib's CRC-32 of every byte after the magic
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hogwild/model.hpp"
#include "util/fs.hpp"
#include "util/result.hpp"

namespace mptrain::hogwild {

// What a checkpoint file is to util/fs.hpp's checks: what to call it, and its magic.
inline constexpr FileKind checkpoint_file{"an mptrain checkpoint", "MPTRCKPT"};

// A loaded checkpoint.
struct Checkpoint {
  ModelKind kind = ModelKind::cnn;
  std::vector<float> parameters;
  std::uint64_t epochs = 0;   // epochs trained in total (as recorded by the writer)
  std::uint64_t samples = 0;  // training samples processed in total
};

// The checkpoint bytes for `layout` and `parameters` with totals `epochs` and `samples`.
std::string encode_checkpoint(const ModelLayout& layout, std::span<const float> parameters, std::uint64_t epochs,
                              std::uint64_t samples);

// Writes a checkpoint to `path` atomically, keeping the mode and owner of
// the checkpoint it replaces and never replacing a file of another kind; an
// Error naming the path and step otherwise.
Status save_checkpoint(const std::filesystem::path& path, const ModelLayout& layout, std::span<const float> parameters,
                       std::uint64_t epochs, std::uint64_t samples);

// zlib's CRC-32 of `bytes` (a checkpoint's checksum field).
std::uint32_t crc32_of(std::string_view bytes);
// The CRC-32 of `parameters`' bytes as 8 hex digits: the report's model
// checksum, the same on every machine that computed the same bits.
std::string parameters_checksum(std::span<const float> parameters);

// The model kind the checkpoint at `path` holds, read from its header only;
// an Error naming the path and the problem when the header is not one.
Result<ModelKind> checkpoint_model(const std::filesystem::path& path);

// Reads and verifies the checkpoint at `path` for a model of `expected`
// kind; an Error naming the path and the problem (not a checkpoint, another
// version, another model kind, shapes differ, truncated, checksum mismatch).
Result<Checkpoint> load_checkpoint(const std::filesystem::path& path, ModelKind expected);

}  // namespace mptrain::hogwild
