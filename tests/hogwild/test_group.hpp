// A group of random samples for the kernel tests: images of unit-ish
// variance, labels and dropout keys drawn from one seed.
#pragma once

#include <cstdint>
#include <vector>

#include "hogwild/kernels.hpp"
#include "hogwild/random.hpp"

namespace mptrain::hogwild {

template <class S>
struct TestGroup {
  std::vector<S> images = std::vector<S>(group_size * image_pixels, S(0));
  std::vector<int> labels;
  std::vector<std::uint64_t> keys;
  Group<S> group;

  // `count` samples; with `dropout`, each draws its masks from its key.
  TestGroup(int count, std::uint64_t seed, bool dropout) {
    Random random(seed);
    for (int i = 0; i < count * image_pixels; ++i) images[i] = S(2) * static_cast<S>(random.uniform()) - S(0.5);
    for (int s = 0; s < count; ++s) {
      labels.push_back(static_cast<int>(random.below(class_count)));
      keys.push_back(random.next());
    }
    group = Group<S>{images.data(), labels.data(), count, dropout ? keys.data() : nullptr, S(1)};
  }
};

}  // namespace mptrain::hogwild
