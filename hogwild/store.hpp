// The shared parameter store: one memfd segment created by the parent
// before fork and mapped by every worker, holding the model's flat
// parameter vector, each worker's progress counters and, for per-epoch
// evaluation, one snapshot of the parameters per epoch. Workers are stopped
// by signals (see install_stop_handlers), which the launcher forwards, so
// the segment needs no stop flag.
//
// Workers update the parameters without locks (Hogwild): see
// `hogwild_apply_update`, the one intentionally unsynchronised function.
// Everything else in the segment is a proper atomic, or written by one
// worker and published to the parent with release/acquire (the snapshots).
//
// Beyond one machine: the parameters are one contiguous float vector, so
// each node's leader averages the store across nodes every --sync-every
// seconds while its local workers keep updating it: it sums its progress
// since the last average with the other nodes' over MPI (hogwild/node_sync.hpp)
// and applies the difference from the mean (hogwild/averaging.hpp); nothing
// here assumes a single node.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>

#include "hogwild/model.hpp"
#include "hogwild/shared_memory.hpp"
#include "util/result.hpp"

namespace mptrain::hogwild {

// A worker's live figures, published for the parent's progress display.
struct alignas(64) WorkerCounters {
  std::atomic<std::uint64_t> samples{0};  // training samples processed so far
  std::atomic<std::uint64_t> batches{0};  // optimiser steps taken
  std::atomic<std::uint64_t> flops{0};    // FLOPs the kernels performed so far (Network::flops_done)
  std::atomic<double> recent_loss{0.0};   // mean loss of the latest batches (moving average)
  std::atomic<int> epoch{0};              // epochs completed
  // The loss of its latest batch was NaN or infinite; recent_loss then holds that batch's loss.
  std::atomic<bool> diverged{false};
};

// How an epoch's snapshot is taken: the last worker to complete the epoch copies the parameters.
struct alignas(64) EpochMark {
  std::atomic<int> finished{0};    // workers that have completed the epoch
  std::atomic<bool> ready{false};  // the snapshot is complete (released by its writer)
};

// The model parameters, the workers' counters and the epoch snapshots in shared memory.
class ParameterStore {
 public:
  ParameterStore() = default;

  // A zero-initialised store for `layout` and `workers` workers, keeping a
  // snapshot of each of the first `snapshot_epochs` epochs; an Error with
  // errno otherwise.
  static Result<ParameterStore> create(const ModelLayout& layout, int workers, int snapshot_epochs = 0);

  // The parameters for exclusive use: before the workers start or after they have ended.
  std::span<float> parameters() { return {parameters_, parameter_count_}; }
  // Copies the parameters from `offset` on into `out` while workers may be
  // writing (relaxed atomic reads).
  void snapshot(std::span<float> out, std::size_t offset = 0) const;
  // Subtracts `step` from the parameters from `offset` on, without locking
  // (Hogwild); see hogwild_apply_update.
  void apply_update(std::span<const float> step, std::size_t offset = 0);
  // The same, also writing each value it stores into `refreshed` (as long as
  // `step`; it may be `step` itself): what a snapshot taken at once would
  // read, but for another worker's step landing in between, which the
  // next one picks up.
  void apply_update(std::span<const float> step, std::size_t offset, std::span<float> refreshed);

  // Worker `rank` has completed epoch `epoch` (from 1 on): publishes it in
  // its counters and, when it is the last worker to complete a kept epoch,
  // copies the parameters into that epoch's snapshot.
  void complete_epoch(int rank, int epoch);
  // The parameters as they were when every worker had completed epoch
  // `epoch`, or nullopt while some worker has not (or when the epoch is not
  // kept). Safe while workers run: the snapshot is never written again.
  std::optional<std::span<const float>> epoch_snapshot(int epoch) const;
  // How many epochs keep a snapshot (create's `snapshot_epochs`).
  int snapshot_epochs() const { return snapshot_epochs_; }

  // Worker `rank`'s counters.
  WorkerCounters& counters(int rank) const { return counters_[rank]; }
  int worker_count() const { return workers_; }

  // The workers' counters summed (loss: their mean), read while they run.
  struct Totals {
    std::uint64_t samples = 0;
    std::uint64_t flops = 0;
    double mean_loss = 0;
    int completed_epochs = 0;  // epochs every worker has completed
  };
  Totals totals() const;

  // How training diverged: a worker whose loss became NaN or infinite (the
  // first such rank), or parameters that are not all finite.
  struct Divergence {
    int rank = -1;  // -1: no worker's loss did, but the parameters are not finite
    double loss = 0;
    int epoch = 0;  // the epoch it happened in, from 1
    std::uint64_t samples = 0;
  };
  // Reads the counters and then the parameters; call once the workers have ended.
  std::optional<Divergence> divergence();

 private:
  SharedMemory memory_;
  WorkerCounters* counters_ = nullptr;
  EpochMark* marks_ = nullptr;  // one per kept epoch
  float* parameters_ = nullptr;
  float* snapshots_ = nullptr;  // snapshot_epochs_ copies of the parameters, epoch 1 first
  std::size_t parameter_count_ = 0;
  int workers_ = 0;
  int snapshot_epochs_ = 0;
};

// The Hogwild update `shared[i] -= step[i]` for `count` elements, without
// locks; the only intended race in mptrain (see store.cpp). When `refreshed`
// is not null, the value stored in shared[i] is also written to refreshed[i]
// (which may be step[i]: each step is read before its value is written).
void hogwild_apply_update(float* shared, const float* step, std::size_t count, float* refreshed = nullptr);

}  // namespace mptrain::hogwild
