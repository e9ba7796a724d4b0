// Lane vectors for the kernels: the samples of a group are processed
// together, one sample per lane, so every layer is written as plain scalar
// loops over lane vectors (GCC vector extensions). A lane vector of floats
// is one register of the instruction set the kernels are built for: 16
// lanes with AVX-512, 8 with AVX, 4 with SSE2. A wider vector would be
// split into several registers, and the 20–25 accumulators of a
// convolution would no longer fit in the register file.
#pragma once

namespace mptrain::hogwild {

// Samples per lane vector: one register of floats.
#if defined(__AVX512F__)
inline constexpr int lane_count = 16;
#elif defined(__AVX__)
inline constexpr int lane_count = 8;
#else
inline constexpr int lane_count = 4;
#endif

// Holder for the lane vector type of scalar `S`.
template <class S>
struct LaneType {
  typedef S type __attribute__((vector_size(lane_count * sizeof(S))));
};

// lane_count values of `S`, one per sample.
template <class S>
using Lanes = typename LaneType<S>::type;

// `x` in every lane. (Not `Lanes<S>{} + x`: 0 + x is not x when x is −0,
// so the compiler must keep that add; x − 0 is x, and folds away.)
template <class S>
inline Lanes<S> broadcast(S x) {
  return x - Lanes<S>{};
}

// The sum of the lanes of `v`, as a tree: the upper half of the lanes is
// added onto the lower half until one is left (16 → 8 → 4 → 2 → 1), a few
// vector adds where a lane-by-lane sum is a chain of dependent scalar adds.
template <class S>
inline S lane_sum(Lanes<S> v) {
  static_assert(lane_count == 16 || lane_count == 8 || lane_count == 4, "lane_sum folds 16, 8 or 4 lanes");
  if constexpr (lane_count == 16) {
    v += __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    v += __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3);
    v += __builtin_shufflevector(v, v, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1);
    v += __builtin_shufflevector(v, v, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0);
  } else if constexpr (lane_count == 8) {
    v += __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3);
    v += __builtin_shufflevector(v, v, 2, 3, 0, 1, 2, 3, 0, 1);
    v += __builtin_shufflevector(v, v, 1, 0, 1, 0, 1, 0, 1, 0);
  } else {
    v += __builtin_shufflevector(v, v, 2, 3, 0, 1);
    v += __builtin_shufflevector(v, v, 1, 0, 1, 0);
  }
  return v[0];
}

}  // namespace mptrain::hogwild
