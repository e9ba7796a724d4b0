#include "hogwild/store.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// __has_feature where the compiler has it (Clang), otherwise no feature.
#if defined(__has_feature)
#define MPTRAIN_HAS_FEATURE(feature) __has_feature(feature)
#else
#define MPTRAIN_HAS_FEATURE(feature) 0
#endif

namespace mptrain::hogwild {

namespace {

constexpr std::size_t cache_line = 64;

std::size_t round_up(std::size_t size) { return (size + cache_line - 1) / cache_line * cache_line; }

}  // namespace

Result<ParameterStore> ParameterStore::create(const ModelLayout& layout, int workers, int snapshot_epochs) {
  static_assert(std::atomic<double>::is_always_lock_free && std::atomic<std::uint64_t>::is_always_lock_free &&
                    std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
                "counters in shared memory must be lock-free to work across processes");
  const std::size_t epochs = static_cast<std::size_t>(std::max(0, snapshot_epochs));
  const std::size_t marks_offset = round_up(sizeof(WorkerCounters) * static_cast<std::size_t>(workers));
  const std::size_t parameters_offset = marks_offset + round_up(sizeof(EpochMark) * epochs);
  const std::size_t snapshots_offset = parameters_offset + round_up(layout.parameter_count * sizeof(float));
  const std::size_t size = snapshots_offset + epochs * layout.parameter_count * sizeof(float);
  auto memory = SharedMemory::create(size, "mptrain-parameters", "the model's parameters");
  if (!memory.ok()) return memory.error();
  ParameterStore store;
  store.memory_ = std::move(memory).value();
  std::byte* base = store.memory_.data();
  store.counters_ = new (base) WorkerCounters[workers];
  store.marks_ = new (base + marks_offset) EpochMark[epochs];
  store.parameters_ = reinterpret_cast<float*>(base + parameters_offset);
  store.snapshots_ = reinterpret_cast<float*>(base + snapshots_offset);
  store.parameter_count_ = layout.parameter_count;
  store.workers_ = workers;
  store.snapshot_epochs_ = static_cast<int>(epochs);
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

void ParameterStore::apply_update(std::span<const float> step, std::size_t offset, std::span<float> refreshed) {
  const std::size_t count = std::min({step.size(), refreshed.size(), parameter_count_ - offset});
  hogwild_apply_update(parameters_ + offset, step.data(), count, refreshed.data());
}

void ParameterStore::complete_epoch(int rank, int epoch) {
  counters(rank).epoch.store(epoch, std::memory_order_relaxed);
  if (epoch < 1 || epoch > snapshot_epochs_) return;
  EpochMark& mark = marks_[epoch - 1];
  // acq_rel: the last worker sees every other worker's arrival, in whatever order they came.
  if (mark.finished.fetch_add(1, std::memory_order_acq_rel) + 1 != workers_) return;
  snapshot({snapshots_ + static_cast<std::size_t>(epoch - 1) * parameter_count_, parameter_count_});
  mark.ready.store(true, std::memory_order_release);
}

std::optional<std::span<const float>> ParameterStore::epoch_snapshot(int epoch) const {
  if (epoch < 1 || epoch > snapshot_epochs_) return std::nullopt;
  if (!marks_[epoch - 1].ready.load(std::memory_order_acquire)) return std::nullopt;
  return std::span<const float>(snapshots_ + static_cast<std::size_t>(epoch - 1) * parameter_count_, parameter_count_);
}

// Hogwild (Niu et al., 2011): every worker subtracts its step from the
// shared parameters with no lock. Two workers updating the same element at
// once may lose one of the two updates, and a reader may see a mix of old
// and new elements; with sparse-enough, small SGD steps this costs nothing
// measurable in accuracy and removes all synchronisation between workers.
// The read-modify-write is deliberately *not* one atomic operation; that
// lost-update race is the only intended race in mptrain.
//
// Each element is read and written whole: no torn floats. On x86-64 four
// elements go at a time, each shared access one SSE2 `movups` in inline
// assembly, outside the C++ memory model like the other process's writes
// to the same segment: every float of it is 4-byte aligned, so none spans
// two cache lines, and x86 reads and writes each one whole. (Element by
// element, with relaxed atomics, the loop was 60% of the optimiser step:
// compilers do not vectorise atomics.) The rest of the elements, and every
// element under ThreadSanitizer and MemorySanitizer, which do not see
// assembly, go one at a time through a relaxed std::atomic_ref: on x86 the
// same plain loads and stores, with no undefined behaviour.
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !MPTRAIN_HAS_FEATURE(thread_sanitizer) && \
    !MPTRAIN_HAS_FEATURE(memory_sanitizer)
#define MPTRAIN_HOGWILD_SSE 1
#endif
void hogwild_apply_update(float* shared, const float* step, std::size_t count, float* refreshed) {
  std::size_t i = 0;
#ifdef MPTRAIN_HOGWILD_SSE
  struct __attribute__((may_alias)) Four {  // four of the segment's floats, as the assembly sees them
    float values[4];
  };
  for (; i + 4 <= count; i += 4) {
    __m128 value;
    asm volatile("movups %1, %0" : "=x"(value) : "m"(*reinterpret_cast<const Four*>(shared + i)));
    value = _mm_sub_ps(value, _mm_loadu_ps(step + i));
    asm volatile("movups %1, %0" : "=m"(*reinterpret_cast<Four*>(shared + i)) : "x"(value));
    if (refreshed != nullptr) _mm_storeu_ps(refreshed + i, value);
  }
#endif
  for (; i < count; ++i) {
    std::atomic_ref<float> element(shared[i]);
    const float value = element.load(std::memory_order_relaxed) - step[i];
    element.store(value, std::memory_order_relaxed);
    if (refreshed != nullptr) refreshed[i] = value;
  }
}

ParameterStore::Totals ParameterStore::totals() const {
  Totals totals;
  totals.completed_epochs = workers_ > 0 ? std::numeric_limits<int>::max() : 0;
  for (int rank = 0; rank < workers_; ++rank) {
    const auto& worker = counters(rank);
    totals.samples += worker.samples.load(std::memory_order_relaxed);
    totals.flops += worker.flops.load(std::memory_order_relaxed);
    totals.mean_loss += worker.recent_loss.load(std::memory_order_relaxed);
    totals.completed_epochs = std::min(totals.completed_epochs, worker.epoch.load(std::memory_order_relaxed));
  }
  if (workers_ > 0) totals.mean_loss /= workers_;
  return totals;
}

std::optional<ParameterStore::Divergence> ParameterStore::divergence() {
  for (int rank = 0; rank < workers_; ++rank) {
    const auto& worker = counters(rank);
    if (!worker.diverged.load(std::memory_order_relaxed)) continue;
    return Divergence{rank, worker.recent_loss.load(std::memory_order_relaxed),
                      worker.epoch.load(std::memory_order_relaxed) + 1, worker.samples.load(std::memory_order_relaxed)};
  }
  const auto values = parameters();
  if (!std::all_of(values.begin(), values.end(), [](float value) { return std::isfinite(value); })) return Divergence{};
  return std::nullopt;
}

}  // namespace mptrain::hogwild
