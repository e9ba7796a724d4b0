// What each node of a multi-node built-in training trains.
#include "hogwild/node_training.hpp"

#include <catch2/catch.hpp>

using namespace mptrain::hogwild;

TEST_CASE("the nodes' shards tile the training set, differing by at most one sample") {
  for (const int nodes : {1, 2, 3, 7}) {
    int next = 0;
    for (int rank = 0; rank < nodes; ++rank) {
      const auto shard = node_shard(60000, rank, nodes);
      REQUIRE(shard.ok());
      CHECK(shard->first == next);
      CHECK((shard->count == 60000 / nodes || shard->count == 60000 / nodes + 1));
      next += shard->count;
    }
    CHECK(next == 60000);
  }
  CHECK_FALSE(node_shard(2, 0, 3).ok());
}

TEST_CASE("the learning rate scales with the node count only when linear, and each node's seeds differ") {
  CHECK(node_learning_rate(0.01f, LrScaling::linear, 4) == 0.04f);
  CHECK(node_learning_rate(0.01f, LrScaling::none, 4) == 0.01f);
  CHECK(node_seed(1, 0, 2) == 1);
  CHECK(node_seed(1, 3, 2) == 7);  // worker r of node 3 draws from 1 + 3·2 + r
}
