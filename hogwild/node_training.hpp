// What one node of a multi-node built-in training trains: its contiguous
// shard of the training set, the learning rate its workers step at and the
// seed of its workers' streams. Pure: a node is its rank and the count.
#pragma once

#include <cstdint>

#include "util/names.hpp"
#include "util/result.hpp"

namespace mptrain::hogwild {

// Node `rank`'s shard of `samples` training samples among `nodes`:
// contiguous, the shards' sizes differing by at most one sample.
struct Shard {
  int first = 0;
  int count = 0;
};
// An Error when some node's shard would be empty.
Result<Shard> node_shard(int samples, int rank, int nodes);

// How --lr is scaled across nodes.
enum class LrScaling { linear, none };

// Its names (`--lr-scaling`).
inline constexpr std::array lr_scaling_names{Named<LrScaling>{LrScaling::linear, "linear"},
                                             Named<LrScaling>{LrScaling::none, "none"}};
// The learning rate the workers of a job of `nodes` nodes step at: `rate`,
// times the node count with LrScaling::linear (the averaged model moves as
// one machine's would with `nodes` times the batches).
float node_learning_rate(float rate, LrScaling scaling, int nodes);

// The first seed of node `rank`'s workers: worker r of node k shuffles and
// draws dropout from seed + k·M + r, its global rank, so the nodes' streams
// differ as one machine's workers' do.
std::uint64_t node_seed(std::uint64_t seed, int rank, int workers_per_node);

}  // namespace mptrain::hogwild
