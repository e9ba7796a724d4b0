// Fuzz target: IDX files, plain or gzip (the reader decides by the gzip
// magic), as images (3 dimensions) or labels (1 dimension) by the first byte.
#include "hogwild/idx.hpp"

#include <cstdint>
#include <vector>

#include "file_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const mptrain::fuzz::FileInput file(data + 1, size - 1, "fuzz-idx");
  std::vector<int> shape;
  (void)mptrain::hogwild::read_idx(file.path(), data[0] % 2 == 0 ? 3 : 1, shape);
  return 0;
}
