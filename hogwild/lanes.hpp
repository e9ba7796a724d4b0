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

// The sum of the lanes of `v`.
template <class S>
inline S lane_sum(Lanes<S> v) {
  S sum = 0;
  for (int lane = 0; lane < lane_count; ++lane) sum += v[lane];
  return sum;
}

}  // namespace mptrain::hogwild
