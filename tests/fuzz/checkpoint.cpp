// Fuzz target: checkpoint files (--resume), whatever model they claim.
#include "hogwild/checkpoint.hpp"

#include <cstdint>

#include "file_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const mptrain::fuzz::FileInput file(data, size, "fuzz-checkpoint");
  for (auto kind : {mptrain::hogwild::ModelKind::logreg, mptrain::hogwild::ModelKind::cnn}) {
    (void)mptrain::hogwild::load_checkpoint(file.path(), kind);
  }
  return 0;
}
