// The node leader's side of built-in training across nodes (SPEC "Beyond
// one machine"): rounds of averaging the shared store with the other nodes'
// leaders, every --sync-every seconds while the workers train, then until
// every node's workers have ended, then the final average, which leaves the
// same model, bit for bit, on every node. It runs beside evaluation in the
// run driver (on procmgr's tick), never in the workers. The collective calls
// are the caller's (`NodeExchange`: MPI in the command, a fake in tests).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "hogwild/averaging.hpp"
#include "hogwild/store.hpp"
#include "util/result.hpp"

namespace mptrain::hogwild {

// The collective calls averaging needs, made by every node's leader in the same order.
class NodeExchange {
 public:
  virtual ~NodeExchange() = default;
  // This node's rank and the node count.
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // `values` of node `root`, on every node; an Error saying why not.
  virtual Status broadcast(std::span<float> values, int root) = 0;
  // Replaces each element of `values` by its sum over all nodes, in place; an Error saying why not.
  virtual Status sum(std::span<float> values) = 0;
  virtual Status sum(std::span<double> values) = 0;
};

class NodeSync {
 public:
  // Averages `store` with the other nodes of `exchange` every `every_seconds`
  // from now on, once start() has made node 0's parameters everyone's.
  NodeSync(NodeExchange& exchange, ParameterStore& store, double every_seconds);

  // Makes node 0's parameters everyone's (a collective call); an Error when the exchange fails.
  Status start();
  // While this node's workers train: a round when the period has passed.
  Status tick();
  // After this node's workers ended: rounds until every node's have, then
  // the final average in the store (exclusive use: no worker runs).
  Status finish();

  // The time between rounds while training.
  std::chrono::milliseconds period() const { return std::chrono::ceil<std::chrono::milliseconds>(every_); }
  int rounds() const { return rounds_; }
  double seconds() const { return seconds_; }  // spent in rounds

  // Each node's `value` in node order (a collective call).
  Result<std::vector<double>> gather(double value);

 private:
  // One round; true when every node's workers have ended (this was the last round).
  Result<bool> round(bool finished);

  using Clock = std::chrono::steady_clock;
  NodeExchange& exchange_;
  ParameterStore& store_;
  std::chrono::duration<double> every_;
  NodeAverage average_;
  std::vector<float> buffer_;  // this node's progress, then whether its workers ended
  std::vector<float> own_;
  std::vector<float> step_;
  Clock::time_point last_;
  int rounds_ = 0;
  double seconds_ = 0;
};

}  // namespace mptrain::hogwild
