#include "hogwild/store.hpp"

#include <algorithm>
#include <new>

namespace mptrain::hogwild {

namespace {

constexpr std::size_t cache_line = 64;

std::size_t round_up(std::size_t size) { return (size + cache_line - 1) / cache_line * cache_line; }

}  // namespace

Result<ParameterStore> ParameterStore::create(const ModelLayout& layout, int workers) {
  static_assert(std::atomic<double>::is_always_lock_free && std::atomic<std::uint64_t>::is_always_lock_free,
                "counters in shared memory must be lock-free to work across processes");
  const std::size_t parameters_offset = round_up(sizeof(WorkerCounters) * workers);
  const std::size_t size = parameters_offset + layout.parameter_count * sizeof(float);
  auto memory = SharedMemory::create(size, "mptrain-parameters");
  if (!memory.ok()) return memory.error();
  ParameterStore store;
  store.memory_ = std::move(memory).value();
  std::byte* base = store.memory_.data();
  store.counters_ = new (base) WorkerCounters[workers];
  store.parameters_ = reinterpret_cast<float*>(base + parameters_offset);
  store.parameter_count_ = layout.parameter_count;
  store.workers_ = workers;
  return store;
}

void ParameterStore::snapshot(std::span<float> out, std::size_t offset) const {
  const std::size_t count = std::min(out.size(), parameter_count_ - offset);
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = std::atomic_ref<float>(parameters_[offset + i]).load(std::memory_order_relaxed);
  }
}

void ParameterStore::apply_update(std::span<const float> step, std::size_t offset) {
  hogwild_apply_update(parameters_ + offset, step.data(), std::min(step.size(), parameter_count_ - offset));
}

// Hogwild (Niu et al., 2011): every worker subtracts its step from the
// shared parameters with no lock. Two workers updating the same element at
// once may lose one of the two updates, and a reader may see a mix of old
// and new elements; with sparse-enough, small SGD steps this costs nothing
// measurable in accuracy and removes all synchronisation between workers.
// Each element is read and written with a relaxed atomic (std::atomic_ref):
// no torn floats, no undefined behaviour, and on x86 the same plain loads
// and stores a non-atomic loop would use. The read-modify-write is
// deliberately *not* one atomic operation; that lost-update race is the
// only intended race in mptrain.
void hogwild_apply_update(float* shared, const float* step, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    std::atomic_ref<float> element(shared[i]);
    element.store(element.load(std::memory_order_relaxed) - step[i], std::memory_order_relaxed);
  }
}

}  // namespace mptrain::hogwild
