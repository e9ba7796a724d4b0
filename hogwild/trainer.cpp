#include "hogwild/trainer.hpp"

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>
#include <oneapi/tbb/task_scheduler_observer.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <csignal>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "affinity/bind.hpp"
#include "hogwild/aligned.hpp"
#include "hogwild/kernels.hpp"
#include "hogwild/random.hpp"
#include "hogwild/team.hpp"

namespace mptrain::hogwild {

namespace {

volatile std::sig_atomic_t stop_signal = 0;

extern "C" void on_stop_signal(int) { stop_signal = 1; }

// One thread slot's inputs and buffers.
struct Slot {
  std::unique_ptr<Network<float>> network;
  // Zero at the start of every batch: train_group adds each group's share
  // to it, and update_range zeroes each range as it sums the slots.
  AlignedVector<float> gradient;
  AlignedVector<float> images = AlignedVector<float>(group_size * image_pixels);
  std::array<int, group_size> labels{};
  std::array<std::uint64_t, group_size> keys{};
  double loss = 0;
};

// Copies samples `indices` (at most group_size) of `data` into `slot`, normalised and zero-padded.
void pack_group(const Dataset& data, std::span<const int> indices, Slot& slot) {
  // The images are read in random order, mostly from memory: asking for all
  // their cache lines first keeps a group's misses in flight together, where
  // reading them image by image waits for each (on Zen 4 the pack took a
  // third less time, and samples/s rose 1.3% in alternating runs; asking
  // for the next group's a whole group ahead gained nothing more).
  for (const int index : indices) {
    const std::uint8_t* image = data.image(index);
    for (std::size_t offset = 0; offset < std::size_t{image_pixels}; offset += cache_line)
      __builtin_prefetch(image + offset);
    __builtin_prefetch(image + image_pixels - 1);
  }
  for (int s = 0; s < group_size; ++s) {
    float* out = slot.images.data() + s * image_pixels;
    if (s >= static_cast<int>(indices.size())) {
      std::fill(out, out + image_pixels, 0.0f);
      continue;
    }
    normalize_pixels(data.image(indices[s]), image_pixels, out);
    slot.labels[s] = data.label(indices[s]);
  }
}

// Pins each thread entering `arena` to one CPU of `cpus`, by its slot in the
// arena, and remembers the first failure for the worker loop to report.
class PinningObserver : public tbb::task_scheduler_observer {
 public:
  PinningObserver(tbb::task_arena& arena, CpuSet cpus) : tbb::task_scheduler_observer(arena), cpus_(std::move(cpus)) {
    observe(true);
  }
  ~PinningObserver() override { observe(false); }

  void on_scheduler_entry(bool) override {
    const int index = tbb::this_task_arena::current_thread_index();
    if (index < 0) return;
    const int cpu = cpus_.cpus()[static_cast<std::size_t>(index) % cpus_.cpus().size()];
    auto status = affinity::bind_this_thread(CpuSet({cpu}));
    if (status.ok()) return;
    const std::lock_guard lock(mutex_);
    if (failure_.empty())
      failure_ = "cannot pin a training thread to CPU " + std::to_string(cpu) + ": " + status.error().message;
  }

  // The first pinning failure; empty when every thread was pinned.
  std::string failure() const {
    const std::lock_guard lock(mutex_);
    return failure_;
  }

 private:
  CpuSet cpus_;
  mutable std::mutex mutex_;
  std::string failure_;
};

// Closes a team when it goes out of scope, so its helper threads stop waiting for batches.
struct CloseOnExit {
  BatchTeam& team;
  ~CloseOnExit() { team.close(); }
};

// One worker's training state: parameters snapshot, momentum, per-thread slots.
class WorkerLoop {
 public:
  WorkerLoop(const TrainSettings& settings, const Dataset& data, ParameterStore& store, const WorkerSetup& setup)
      : settings_(settings),
        data_(data),
        store_(store),
        setup_(setup),
        parallelism_(tbb::global_control::max_allowed_parallelism,
                     static_cast<std::size_t>(std::max(1, setup.threads))),
        arena_(std::max(1, setup.threads)) {
    const auto layout = model_layout(settings.model);
    // The head starts after the last conv layer (every layer is head without one).
    const auto layers = model_layers(settings.model);
    for (std::size_t k = 0; k < layers.size(); ++k) {
      if (layers[k].kind != LayerKind::conv) continue;
      head_begin_ = k + 1 < layout.layers.size() ? layout.layers[k + 1].weight : layout.parameter_count;
    }
    parameters_.resize(layout.parameter_count);
    momentum_.resize(layout.parameter_count);
    slots_.resize(static_cast<std::size_t>(std::max(1, setup.threads)));
    for (auto& slot : slots_) {
      slot.network = std::make_unique<Network<float>>(settings.model);
      slot.gradient.resize(layout.parameter_count);
    }
    if (!setup.cpus.empty() && setup.threads > 1) {
      observer_ = std::make_unique<PinningObserver>(arena_, setup.cpus);
    }
    if (setup.threads > 1) {
      // Spin long only when every thread has a CPU of its own.
      const bool own_cpus = setup.cpus.size() >= setup.threads;
      team_ = std::make_unique<BatchTeam>(setup.threads, own_cpus ? 4096 : 64);
    }
  }

  // Trains every epoch: on the calling thread alone for one slot, otherwise
  // in the arena with the other slots' threads helping with each batch.
  Result<WorkerOutcome> run() {
    if (!team_) return run_epochs();
    std::optional<Result<WorkerOutcome>> result;
    arena_.execute([&] {
      tbb::task_group helpers;
      for (int member = 1; member < static_cast<int>(slots_.size()); ++member) {
        helpers.run([this, member] { help(member); });
      }
      {
        const CloseOnExit release{*team_};  // the helpers are released even if run_epochs throws
        result.emplace(run_epochs());
      }
      helpers.wait();
    });
    return std::move(*result);
  }

 private:
  // The epochs, as the leader of the team when there is one.
  Result<WorkerOutcome> run_epochs() {
    WorkerOutcome outcome;
    const int shard = settings_.sample_count > 0 ? settings_.sample_count : data_.count;
    std::vector<int> order(static_cast<std::size_t>(shard));
    Random shuffle_random(settings_.seed + static_cast<std::uint64_t>(setup_.rank));
    auto& counters = store_.counters(setup_.rank);
    store_.snapshot(parameters_);
    for (int epoch = 0; epoch < settings_.epochs; ++epoch) {
      std::iota(order.begin(), order.end(), settings_.first_sample);
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuffle_random.below(i)]);
      for (std::size_t start = 0; start < order.size(); start += static_cast<std::size_t>(settings_.batch_size)) {
        if (stop_signal != 0) {
          outcome.stopped = true;
          return outcome;
        }
        const std::size_t count = std::min<std::size_t>(settings_.batch_size, order.size() - start);
        const std::uint64_t key_base = mix64(settings_.seed ^ mix64((static_cast<std::uint64_t>(setup_.rank) << 32) +
                                                                    static_cast<std::uint64_t>(epoch)));
        const double loss = train_batch(std::span<const int>(order).subspan(start, count), key_base + start);
        first_step_ = false;
        if (observer_ && !observer_->failure().empty()) return Error{observer_->failure()};
        outcome.samples += count;
        publish(counters, outcome.samples, loss / static_cast<double>(count), flops_done());
        if (!std::isfinite(loss)) {
          counters.diverged.store(true, std::memory_order_relaxed);
          outcome.diverged = true;
          return outcome;
        }
      }
      store_.complete_epoch(setup_.rank, epoch + 1);
    }
    return outcome;
  }

  // A helper thread's loop: takes part in every batch it sees posted until
  // the team closes.
  void help(int member) {
    for (std::uint64_t batch = team_->await_batch(0); batch != 0; batch = team_->await_batch(batch)) {
      share_batch(batch, member);
    }
  }

  // Does member `member`'s share of batch `batch`: gradients (phase 0);
  // then the update of the head's parameters (phase 1), which starts as
  // soon as every slot's groups are done with the head (BatchTeam::mark),
  // while a slot may still be in its conv front's backward; then, once
  // every gradient is computed, the update of the front's (phase 2). A
  // member that finished its groups first takes the head's update slices
  // the others have not: the threads' wait for each other at the end of a
  // batch becomes update work. Each slice is updated as by one thread
  // alone (update_range), whoever takes it: the same bits.
  void share_batch(std::uint64_t batch, int member) {
    team_->work_phase(0, batch, member, [this, batch](int slot_index) { compute(slot_index, batch); });
    team_->work_phase(1, batch, member, [this, batch](int slice) {
      team_->await_marks(batch);
      const auto [first, last] = slice_of(head_begin_, parameters_.size(), slice);
      update_range(first, last);
    });
    team_->await_phase(0, batch);
    team_->run_phase(2, batch, member, [this](int slice) {
      const auto [first, last] = slice_of(0, head_begin_, slice);
      update_range(first, last);
    });
    team_->await_phase(1, batch);
  }

  // Slice `slice` of [begin, end) cut into one slice per slot.
  std::pair<std::size_t, std::size_t> slice_of(std::size_t begin, std::size_t end, int slice) const {
    const std::size_t count = slots_.size();
    const std::size_t size = end - begin;
    return {begin + size * static_cast<std::size_t>(slice) / count,
            begin + size * (static_cast<std::size_t>(slice) + 1) / count};
  }

  // Computes one batch's gradient across the slots, then updates the store
  // (each slot reduces and applies its own slice of the parameters);
  // returns the summed loss.
  double train_batch(std::span<const int> batch, std::uint64_t key_base) {
    batch_ = batch;
    key_base_ = key_base;
    if (team_) {
      share_batch(team_->post(), 0);
    } else {
      compute(0, 0);
      update_range(0, parameters_.size());
    }
    double loss = 0;
    for (const auto& slot : slots_) loss += slot.loss;
    return loss;
  }

  // Slot `slot_index`'s gradient and loss for its groups of the current
  // batch; in a team's batch `batch`, the slot marks (BatchTeam::mark) when
  // its last group is done with the head.
  void compute(int slot_index, std::uint64_t batch) {
    const int groups = static_cast<int>((batch_.size() + group_size - 1) / group_size);
    const int slot_count = static_cast<int>(slots_.size());
    const float loss_scale = 1.0f / static_cast<float>(batch_.size());
    Slot& slot = slots_[static_cast<std::size_t>(slot_index)];
    slot.loss = 0;
    HeadDone head_done{team_.get(), slot_index, batch};
    bool marked = team_ == nullptr;
    for (int g = slot_index; g < groups; g += slot_count) {
      const std::size_t first = static_cast<std::size_t>(g) * group_size;
      const auto indices = batch_.subspan(first, std::min<std::size_t>(group_size, batch_.size() - first));
      pack_group(data_, indices, slot);
      for (int s = 0; s < group_size; ++s) slot.keys[s] = mix64(key_base_ + first + static_cast<std::uint64_t>(s));
      Group<float> group{slot.images.data(), slot.labels.data(), static_cast<int>(indices.size()), slot.keys.data(),
                         loss_scale};
      if (!marked && g + slot_count >= groups) {
        group.head_done = &HeadDone::call;
        group.head_context = &head_done;
        marked = true;
      }
      slot.loss += slot.network->train_group(parameters_.data(), group, slot.gradient.data());
    }
    if (!marked) head_done.team->mark(slot_index, batch);  // no group in this batch
  }

  // What a slot's last group calls when it is done with the head.
  struct HeadDone {
    BatchTeam* team;
    int slot;
    std::uint64_t batch;
    static void call(void* context) {
      const auto* self = static_cast<const HeadDone*>(context);
      self->team->mark(self->slot, self->batch);
    }
  };

  // For parameters [begin, end): sums the slots' gradients, zeroing them
  // for the next batch, takes the SGD-with-momentum step in the store and
  // refreshes the local copy for the next batch. The range goes by chunks
  // whose steps stay in L1: the sum and the momentum over plain arrays, so
  // the compiler vectorises them (the sum keeps slot order, gradient 0 +
  // gradient 1 + …), then the store's Hogwild step (four elements at a
  // time), which hands back the values it stored, copied into the local
  // copy with whole vectors. Why zeroed here, by chunks, with whole-vector
  // copies: each alternative measured slower (docs/benchmarks.md).
  void update_range(std::size_t begin, std::size_t end) {
    const std::size_t count = slots_.size();
    const float lr = settings_.learning_rate;
    const float momentum = settings_.momentum;
    const float keep = first_step_ ? 0.0f : momentum;
    constexpr std::size_t chunk = 1024;
    alignas(64) std::array<float, chunk> steps;
    float* __restrict step = steps.data();
    for (std::size_t first = begin; first < end; first += chunk) {
      const std::size_t size = std::min(chunk, end - first);
      for (std::size_t s = 0; s < count; ++s) {
        float* __restrict gradient = slots_[s].gradient.data() + first;
        for (std::size_t i = 0; i < size; ++i) {
          step[i] = s == 0 ? gradient[i] : step[i] + gradient[i];
          gradient[i] = 0;
        }
      }
      float* __restrict velocity = momentum_.data() + first;
      for (std::size_t i = 0; i < size; ++i) {
        velocity[i] = keep * velocity[i] + step[i];
        step[i] = lr * velocity[i];
      }
      store_.apply_update(std::span<const float>(step, size), first, std::span<float>(step, size));
      std::copy_n(step, size, parameters_.data() + first);
    }
  }

  // The FLOPs this worker's networks have performed.
  std::uint64_t flops_done() const {
    std::int64_t total = 0;
    for (const auto& slot : slots_) total += slot.network->flops_done();
    return static_cast<std::uint64_t>(total);
  }

  // Publishes progress for the parent.
  static void publish(WorkerCounters& counters, std::uint64_t samples, double batch_loss, std::uint64_t flops) {
    const std::uint64_t batches = counters.batches.load(std::memory_order_relaxed) + 1;
    const double previous = counters.recent_loss.load(std::memory_order_relaxed);
    // A non-finite loss is shown as it is: the parent names it when it reports the divergence.
    const bool plain = batches == 1 || !std::isfinite(batch_loss);
    const double smoothed = plain ? batch_loss : 0.95 * previous + 0.05 * batch_loss;
    counters.recent_loss.store(smoothed, std::memory_order_relaxed);
    counters.batches.store(batches, std::memory_order_relaxed);
    counters.samples.store(samples, std::memory_order_relaxed);
    counters.flops.store(flops, std::memory_order_relaxed);
  }

  const TrainSettings& settings_;
  const Dataset& data_;
  ParameterStore& store_;
  WorkerSetup setup_;
  // oneTBB sizes its thread pool from the process's affinity mask, which may
  // hold fewer CPUs than T (--allow-oversubscribe); this lifts that limit to T.
  tbb::global_control parallelism_;
  tbb::task_arena arena_;
  std::vector<Slot> slots_;
  std::unique_ptr<PinningObserver> observer_;
  std::unique_ptr<BatchTeam> team_;  // only with more than one slot
  std::size_t head_begin_ = 0;       // the first parameter after the conv front (0: no front)
  std::span<const int> batch_;       // the current batch's sample indices
  std::uint64_t key_base_ = 0;       // the current batch's dropout key base
  AlignedVector<float> parameters_;
  AlignedVector<float> momentum_;
  bool first_step_ = true;
};

}  // namespace

Result<WorkerOutcome> train_worker(const TrainSettings& settings, const Dataset& data, ParameterStore& store,
                                   const WorkerSetup& setup) {
  WorkerLoop loop(settings, data, store, setup);
  return loop.run();
}

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

Evaluation evaluate(ModelKind kind, std::span<const float> parameters, const Dataset& data, int threads) {
  const int groups = (data.count + group_size - 1) / group_size;
  std::vector<double> losses(static_cast<std::size_t>(groups));
  std::vector<int> correct(static_cast<std::size_t>(groups));
  const int slot_count = std::max(1, std::min({threads, groups, tbb::info::default_concurrency()}));
  std::vector<Slot> slots(static_cast<std::size_t>(slot_count));
  for (auto& slot : slots) slot.network = std::make_unique<Network<float>>(kind);
  // TBB hands work to its threads and joins them inside libtbb, which is not
  // built with ThreadSanitizer; these two counters state the hand-over in
  // code TSan sees (and cost two atomic operations per slot).
  std::atomic<bool> prepared{false};
  std::atomic<int> finished{0};
  prepared.store(true, std::memory_order_release);
  auto work = [&](int slot_index) {
    prepared.load(std::memory_order_acquire);
    Slot& slot = slots[static_cast<std::size_t>(slot_index)];
    std::vector<int> indices;
    AlignedVector<float> log_probs(group_size * class_count);
    for (int g = slot_index; g < groups; g += slot_count) {
      indices.clear();
      for (int i = g * group_size; i < std::min(data.count, (g + 1) * group_size); ++i) indices.push_back(i);
      pack_group(data, indices, slot);
      const Group<float> group{slot.images.data(), slot.labels.data(), static_cast<int>(indices.size()), nullptr, 1};
      losses[g] = slot.network->evaluate_group(parameters.data(), group, log_probs.data());
      for (std::size_t s = 0; s < indices.size(); ++s) {
        const float* row = log_probs.data() + s * class_count;
        const auto best = std::max_element(row, row + class_count) - row;
        if (best == slot.labels[s]) ++correct[g];
      }
    }
    finished.fetch_add(1, std::memory_order_release);
  };
  if (slot_count == 1) {
    work(0);
  } else {
    tbb::task_arena arena(slot_count);
    arena.execute([&] { tbb::parallel_for(0, slot_count, work, tbb::static_partitioner()); });
  }
  finished.load(std::memory_order_acquire);
  Evaluation result;
  result.samples = data.count;
  const double total_loss = std::accumulate(losses.begin(), losses.end(), 0.0);
  const int total_correct = std::accumulate(correct.begin(), correct.end(), 0);
  result.accuracy = data.count > 0 ? static_cast<double>(total_correct) / data.count : 0.0;
  result.loss = data.count > 0 ? total_loss / data.count : 0.0;
  return result;
}

}  // namespace mptrain::hogwild
