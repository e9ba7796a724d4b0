// Averaging one model trained on several nodes (SPEC "Beyond one machine"):
// each node's workers train its shared store; every round, its leader sends
// its progress since the last average (store − average), gets the sum of all
// nodes' progress, and adds (mean progress − its own progress) to the store
// while the workers keep updating it, so an update made during the exchange
// is kept. The arithmetic only; the exchange (MPI_Allreduce) is the caller's.
#pragma once

#include <span>
#include <vector>

namespace mptrain::hogwild {

class NodeAverage {
 public:
  // Starts from `initial`, the model every node holds before training.
  explicit NodeAverage(std::span<const float> initial) : average_(initial.begin(), initial.end()) {}

  // This node's progress since the last average: `current` − average, into `out`.
  void progress(std::span<const float> current, std::span<float> out) const;
  // After a round: `own` is what progress() gave, `summed` the sum of every
  // node's over `nodes` nodes. Writes into `step` what to subtract from the
  // store (own − mean, for ParameterStore::apply_update) and moves the
  // average on by the mean progress.
  void finish_round(std::span<const float> own, std::span<const float> summed, int nodes, std::span<float> step);
  // The model as of the last round, identical on every node.
  std::span<const float> average() const { return average_; }

 private:
  std::vector<float> average_;
};

}  // namespace mptrain::hogwild
