// Vectors that start on a cache line (and so on a lane vector of any width
// here), for the arrays the trainer hands the kernels (parameters,
// gradients, images): no result can depend on where the heap placed them.
// The kernels' own buffers are lanes.hpp's Buffer.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace mptrain::hogwild {

// Bytes in a cache line of the x86-64 and ARM64 CPUs mptrain runs on.
inline constexpr std::size_t cache_line = 64;

// An allocator whose blocks start on a cache line (and so on a lane
// vector of any width here): for arrays of scalars read as whole vectors.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t alignment{cache_line};
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), alignment)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, alignment); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const {
    return true;
  }
};

// A vector of `T` whose data starts on a cache line.
template <class T>
using AlignedVector = std::vector<T, CacheLineAllocator<T>>;

}  // namespace mptrain::hogwild
