#include "hogwild/averaging.hpp"

#include <cstddef>

namespace mptrain::hogwild {

void NodeAverage::progress(std::span<const float> current, std::span<float> out) const {
  for (std::size_t i = 0; i < average_.size(); ++i) out[i] = current[i] - average_[i];
}

void NodeAverage::finish_round(std::span<const float> own, std::span<const float> summed, int nodes,
                               std::span<float> step) {
  const float scale = 1.0f / static_cast<float>(nodes);
  for (std::size_t i = 0; i < average_.size(); ++i) {
    const float mean = summed[i] * scale;
    step[i] = own[i] - mean;
    average_[i] += mean;
  }
}

}  // namespace mptrain::hogwild
