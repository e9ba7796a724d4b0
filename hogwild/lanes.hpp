// Lane vectors for the kernels: the samples of a group are processed
// together, one sample per lane, so every layer is written as plain scalar
// loops over lane vectors (GCC vector extensions). A lane vector of floats
// is one register of the instruction set the kernels are built for: 16
// lanes with AVX-512, 8 with AVX, 4 with SSE2. A wider vector would be
// split into several registers, and the 20–25 accumulators of a
// convolution would no longer fit in the register file.
//
// Everything here lives in the build's own MPTRAIN_KERNEL_NAMESPACE, and the
// kernels hold their buffers in Buffer, not in standard containers: an
// inline function or template instantiation outside that namespace would be
// a weak symbol that the final link merges with another build's copy (the
// baseline build could then run a copy compiled for AVX-512).
// tests/hogwild/kernel_symbols.cmake checks that none is left.
#pragma once

#include <cstddef>
#include <utility>

namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE {

// Samples per lane vector: one register of floats.
#if defined(__AVX512F__)
inline constexpr int lane_count = 16;
#elif defined(__AVX__)
inline constexpr int lane_count = 8;
#else
inline constexpr int lane_count = 4;
#endif

// Vector registers of that instruction set: 32 with AVX-512, 16 with AVX2
// and SSE2. The kernels size their register blocks (how many accumulators
// a loop keeps) from this budget.
inline constexpr int vector_registers = lane_count == 16 ? 32 : 16;
// True where the register file holds a whole conv2 output block (AVX-512).
inline constexpr bool wide_register_file = vector_registers >= 32;

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

namespace lanes_detail {

// Lane j of a transpose step's two outputs for rows r and r + b (bit b of
// r clear): the first keeps row r's lanes without bit b and takes row
// r + b's lanes j − b where bit b is set; the second is the mirror image.
template <int b, bool second>
constexpr int transpose_lane(int j) {
  if constexpr (second) {
    return (j & b) != 0 ? lane_count + j : j + b;
  } else {
    return (j & b) != 0 ? lane_count + j - b : j;
  }
}

template <int b, bool second, class V, std::size_t... J>
inline V transpose_step(V top, V bottom, std::index_sequence<J...>) {
  return __builtin_shufflevector(top, bottom, transpose_lane<b, second>(static_cast<int>(J))...);
}

// Swaps the off-diagonal b × b blocks of every 2b × 2b block, then recurses with b / 2.
template <int b, class V>
inline void transpose_blocks(V* rows) {
  if constexpr (b >= 1) {
    constexpr auto lanes = std::make_index_sequence<lane_count>{};
#pragma GCC unroll 16
    for (int r = 0; r < lane_count; ++r) {
      if ((r & b) != 0) continue;
      const V top = rows[r];
      const V bottom = rows[r + b];
      rows[r] = transpose_step<b, false>(top, bottom, lanes);
      rows[r + b] = transpose_step<b, true>(top, bottom, lanes);
    }
    transpose_blocks<b / 2>(rows);
  }
}

}  // namespace lanes_detail

// Transposes the lane_count × lane_count matrix whose rows are `rows[0 …
// lane_count)`: lane j of row r becomes lane r of row j. Between the
// lane-per-sample layout and a sample's own values, in log2(lane_count)
// rounds of two-register shuffles.
template <class S>
inline void transpose(Lanes<S>* rows) {
  lanes_detail::transpose_blocks<lane_count / 2>(rows);
}

// The lane vector at `at`, any alignment.
template <class S>
inline Lanes<S> load_lanes(const S* at) {
  Lanes<S> v;
  __builtin_memcpy(&v, at, sizeof v);
  return v;
}

// Stores `v` at `at`, any alignment.
template <class S>
inline void store_lanes(S* at, Lanes<S> v) {
  __builtin_memcpy(at, &v, sizeof v);
}

// Each lane's values of the `count` lane vectors `in` (count a multiple of
// lane_count), by transposes: rows[lane × count + k] = in[k][lane].
template <class S>
void lanes_to_rows(const Lanes<S>* in, int count, S* rows) {
  for (int block = 0; block < count; block += lane_count) {
    Lanes<S> t[lane_count];
    for (int u = 0; u < lane_count; ++u) t[u] = in[block + u];
    transpose<S>(t);
    for (int lane = 0; lane < lane_count; ++lane) store_lanes<S>(rows + lane * count + block, t[lane]);
  }
}

// The inverse of lanes_to_rows: out[k][lane] = rows[lane × count + k].
template <class S>
void rows_to_lanes(const S* rows, int count, Lanes<S>* out) {
  for (int block = 0; block < count; block += lane_count) {
    Lanes<S> t[lane_count];
    for (int lane = 0; lane < lane_count; ++lane) t[lane] = load_lanes<S>(rows + lane * count + block);
    transpose<S>(t);
    for (int u = 0; u < lane_count; ++u) out[block + u] = t[u];
  }
}

// N values of T starting on a cache line (and so on a lane vector of any
// width here), zero until written: every buffer the kernels read or write
// is one, so no result can depend on where the heap placed it.
template <class T, int N>
struct Buffer {
  static constexpr std::size_t alignment = alignof(T) > 64 ? alignof(T) : 64;
  alignas(alignment) T values[N] = {};
  T* data() { return values; }
  const T* data() const { return values; }
  T& operator[](int i) { return values[i]; }
  const T& operator[](int i) const { return values[i]; }
};

}  // namespace mptrain::hogwild::MPTRAIN_KERNEL_NAMESPACE
