#include "hogwild/node_training.hpp"

#include <fmt/format.h>

#include "util/text.hpp"

namespace mptrain::hogwild {

Result<Shard> node_shard(int samples, int rank, int nodes) {
  const auto first = static_cast<long long>(samples) * rank / nodes;
  const auto end = static_cast<long long>(samples) * (rank + 1) / nodes;
  if (end <= first) {
    return Error{fmt::format("{} cannot be shared by {} nodes", counted(samples, "training sample"), nodes)};
  }
  return Shard{static_cast<int>(first), static_cast<int>(end - first)};
}

float node_learning_rate(float rate, LrScaling scaling, int nodes) {
  return scaling == LrScaling::linear ? rate * static_cast<float>(nodes) : rate;
}

std::uint64_t node_seed(std::uint64_t seed, int rank, int workers_per_node) {
  return seed + static_cast<std::uint64_t>(rank) * static_cast<std::uint64_t>(workers_per_node);
}

}  // namespace mptrain::hogwild
