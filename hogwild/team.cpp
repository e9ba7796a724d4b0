#include "hogwild/team.hpp"

namespace mptrain::hogwild {

namespace {

// Tells the CPU that this thread is busy-waiting.
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

BatchTeam::BatchTeam(int members, int spin) : members_(members), spin_(spin) {
  for (auto& claims : claims_) claims = std::make_unique<Counter[]>(static_cast<std::size_t>(members));
  marks_ = std::make_unique<Counter[]>(static_cast<std::size_t>(members));
}

BatchTeam::~BatchTeam() = default;

std::uint64_t BatchTeam::post() {
  const std::uint64_t batch = batch_.value.fetch_add(1, std::memory_order_release) + 1;
  batch_.value.notify_all();
  return batch;
}

void BatchTeam::close() {
  closed_.value.store(1, std::memory_order_relaxed);
  post();
}

std::uint64_t BatchTeam::await_batch(std::uint64_t seen) {
  wait_at_least(batch_, seen + 1);
  const std::uint64_t batch = batch_.value.load(std::memory_order_acquire);
  return closed_.value.load(std::memory_order_relaxed) != 0 ? 0 : batch;
}

void BatchTeam::run_phase(int phase, std::uint64_t batch, int member, const std::function<void(int)>& work) {
  work_phase(phase, batch, member, work);
  await_phase(phase, batch);
}

void BatchTeam::work_phase(int phase, std::uint64_t batch, int member, const std::function<void(int)>& work) {
  auto& done = done_[phase];
  for (int k = 0; k < members_; ++k) {
    const int item = (member + k) % members_;
    if (!claim(phase, item, batch)) continue;
    work(item);
    done.value.fetch_add(1, std::memory_order_release);
    done.value.notify_all();
  }
}

void BatchTeam::await_phase(int phase, std::uint64_t batch) {
  wait_at_least(done_[phase], batch * static_cast<std::uint64_t>(members_));
}

void BatchTeam::mark(int item, std::uint64_t batch) {
  auto& mark = marks_[static_cast<std::size_t>(item)].value;
  mark.store(batch, std::memory_order_release);
  mark.notify_all();
}

void BatchTeam::await_marks(std::uint64_t batch) {
  for (int item = 0; item < members_; ++item) wait_at_least(marks_[static_cast<std::size_t>(item)], batch);
}

bool BatchTeam::claim(int phase, int item, std::uint64_t batch) {
  auto& claimed = claims_[phase][static_cast<std::size_t>(item)].value;
  std::uint64_t latest = claimed.load(std::memory_order_relaxed);
  while (latest < batch) {
    if (claimed.compare_exchange_weak(latest, batch, std::memory_order_acquire, std::memory_order_relaxed)) return true;
  }
  return false;
}

void BatchTeam::wait_at_least(Counter& counter, std::uint64_t target) const {
  for (int i = 0; i < spin_; ++i) {
    if (counter.value.load(std::memory_order_acquire) >= target) return;
    relax();
  }
  for (std::uint64_t value = counter.value.load(std::memory_order_acquire); value < target;
       value = counter.value.load(std::memory_order_acquire)) {
    counter.value.wait(value, std::memory_order_acquire);
  }
}

}  // namespace mptrain::hogwild
