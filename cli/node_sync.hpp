// The node leader's side of built-in training across nodes (SPEC "Beyond
// one machine"): rounds of averaging the shared store with the other nodes'
// leaders over MPI, every --sync-every seconds while the workers train, then
// until every node's workers have ended, then the final average, which
// leaves the same model, bit for bit, on every node. It runs beside
// evaluation in the run driver (on procmgr's tick), never in the workers.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "cluster/mpi.hpp"
#include "hogwild/averaging.hpp"
#include "hogwild/store.hpp"

namespace mptrain::cli {

class NodeSync {
 public:
  // Averages `store` with the other nodes of `mpi` every `every_seconds`;
  // first makes node 0's parameters everyone's (a collective call).
  NodeSync(cluster::Mpi& mpi, hogwild::ParameterStore& store, double every_seconds);

  // While this node's workers train: a round when the period has passed.
  void tick();
  // After this node's workers ended: rounds until every node's have, then
  // the final average in the store (exclusive use: no worker runs).
  void finish();

  // The time between rounds while training.
  std::chrono::milliseconds period() const { return std::chrono::ceil<std::chrono::milliseconds>(every_); }
  int rounds() const { return rounds_; }
  double seconds() const { return seconds_; }  // spent in rounds

  // Ends every node's process of the job, this one with `code`.
  [[noreturn]] void abort(int code) { mpi_.abort(code); }
  // Each node's `value` in node order (a collective call).
  std::vector<double> gather(double value);

 private:
  // One round; true when every node's workers have ended (this was the last round).
  bool round(bool finished);

  using Clock = std::chrono::steady_clock;
  cluster::Mpi& mpi_;
  hogwild::ParameterStore& store_;
  std::chrono::duration<double> every_;
  hogwild::NodeAverage average_;
  std::vector<float> buffer_;  // this node's progress, then whether its workers ended
  std::vector<float> own_;
  std::vector<float> step_;
  Clock::time_point last_;
  int rounds_ = 0;
  double seconds_ = 0;
};

}  // namespace mptrain::cli
