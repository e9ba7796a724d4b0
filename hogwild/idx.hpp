// MNIST-format IDX files (plain or gzip): unsigned-byte images (3
// dimensions) and labels (1 dimension), validated and loaded into shared
// memory so forked workers read one copy.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "hogwild/shared_memory.hpp"
#include "util/result.hpp"

namespace mptrain::hogwild {

// Which half of an MNIST-format set.
enum class Split { train, test };

// The file stem of `split`: "train" or "t10k".
std::string_view file_prefix(Split split);

// Labelled images in shared memory: `count` images of `rows` × `cols` bytes, row-major.
struct Dataset {
  int count = 0;
  int rows = 0;
  int cols = 0;
  SharedMemory image_memory;
  SharedMemory label_memory;

  // Pixels per image.
  int pixels() const { return rows * cols; }
  // The first byte of image `index`.
  const std::uint8_t* image(int index) const {
    return reinterpret_cast<const std::uint8_t*>(image_memory.data()) + static_cast<std::size_t>(index) * pixels();
  }
  // The label (0–9) of image `index`.
  int label(int index) const {
    return static_cast<int>(reinterpret_cast<const std::uint8_t*>(label_memory.data())[index]);
  }
};

// The stems of `split`'s images and labels files, in that order ("train-images-idx3-ubyte", …).
std::array<std::string, 2> idx_stems(Split split);

// The path of `stem` in `dir`, plain or with ".gz"; an Error saying which names were tried.
Result<std::filesystem::path> find_idx_file(const std::filesystem::path& dir, const std::string& stem);

// Reads one IDX file of unsigned bytes with `dimensions` dimensions into
// shared memory; `shape` receives the sizes. Returns an Error naming the file
// and the problem (bad magic, wrong type or dimensions, truncated, trailing data).
Result<SharedMemory> read_idx(const std::filesystem::path& path, int dimensions, std::vector<int>& shape);

// Loads `split` from `dir` (images and labels, validated: counts agree,
// labels 0–9) and keeps the first `limit` samples when `limit` > 0.
// Returns an Error naming the file and the problem.
Result<Dataset> load_dataset(const std::filesystem::path& dir, Split split, long limit = 0);

}  // namespace mptrain::hogwild
