// Model checkpoints: a header (magic, version, model kind, tensor shapes,
// training totals, CRC-32) followed by the flat float parameters, written
// atomically (temporary file, fsync, rename).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "hogwild/model.hpp"
#include "util/result.hpp"

namespace mptrain::hogwild {

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

// Writes a checkpoint to `path` atomically; an Error naming the path and step otherwise.
Status save_checkpoint(const std::filesystem::path& path, const ModelLayout& layout, std::span<const float> parameters,
                       std::uint64_t epochs, std::uint64_t samples);

// Reads and verifies the checkpoint at `path` for a model of `expected`
// kind; an Error naming the path and the problem (not a checkpoint, another
// version, another model kind, shapes differ, truncated, checksum mismatch).
Result<Checkpoint> load_checkpoint(const std::filesystem::path& path, ModelKind expected);

}  // namespace mptrain::hogwild
