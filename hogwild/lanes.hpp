// Lane vectors for the kernels: a group of 16 samples is processed
// together, one sample per lane, so every layer is written as plain scalar
// loops over lane vectors (GCC vector extensions; AVX-512 holds a float
// group in one register, narrower targets split it).
#pragma once

namespace mptrain::hogwild {

// Samples per lane vector (and per kernel group).
inline constexpr int lane_count = 16;

// Holder for the lane vector type of scalar `S`.
template <class S>
struct LaneType {
  typedef S type __attribute__((vector_size(lane_count * sizeof(S))));
};

// 16 values of `S`, one per sample of a group.
template <class S>
using Lanes = typename LaneType<S>::type;

// `x` in every lane. (Not `Lanes<S>{} + x`: 0 + x is not x when x is −0,
// so the compiler must keep that add; x − 0 is x, and folds away.)
template <class S>
inline Lanes<S> broadcast(S x) {
  return x - Lanes<S>{};
}

// The sum of the lanes of `v`, as a tree: the upper half of the lanes is
// added onto the lower half four times (16 → 8 → 4 → 2 → 1), four vector
// adds where a lane-by-lane sum is a chain of fifteen dependent scalar adds.
template <class S>
inline S lane_sum(Lanes<S> v) {
  static_assert(lane_count == 16, "the shuffles below fold 16 lanes");
  v += __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
  v += __builtin_shufflevector(v, v, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3);
  v += __builtin_shufflevector(v, v, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1);
  v += __builtin_shufflevector(v, v, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0);
  return v[0];
}

}  // namespace mptrain::hogwild
