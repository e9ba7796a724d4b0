// The kernels give the same bits whatever the memory layout: parameters,
// images and gradient at every offset of 0 to 15 floats from a cache line,
// the heap shifted before the network's own buffers are made, and the same
// network reused for several groups.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "hogwild/aligned.hpp"
#include "hogwild/isa.hpp"
#include "hogwild/kernels.hpp"
#include "hogwild/model.hpp"
#include "test_group.hpp"

using namespace mptrain::hogwild;

namespace {

// What a network computed for a few groups, as bits.
struct Bits {
  std::vector<float> losses;
  std::vector<float> gradient;
  std::vector<float> log_probs;
};

// Trains `kind` on the kernels of `isa` over three groups with every
// buffer it is handed starting `offset` floats past a cache line, after
// allocating `shift` bytes that move the heap under the network's own buffers.
Bits run_at(Isa isa, ModelKind kind, int offset, std::size_t shift) {
  const std::vector<char> heap_shift(shift, 1);
  Network<float> network(kind, isa);
  const std::size_t n = network.layout().parameter_count;
  std::vector<float> values(n);
  initialize_parameters(network.layout(), 3, values);
  AlignedVector<float> parameters(n + 16), gradient(n + 16, 0.0f), images(group_size * image_pixels + 16, 0.0f);
  std::copy(values.begin(), values.end(), parameters.begin() + offset);
  Bits bits;
  for (int g = 0; g < 3; ++g) {
    const int count = g == 2 ? 9 : group_size;
    TestGroup<double> test(count, 40 + g, kind == ModelKind::cnn);
    std::copy(test.images.begin(), test.images.end(), images.begin() + offset);
    Group<float> group{images.data() + offset, test.labels.data(), count, test.group.dropout_keys, 1.0f / 64};
    bits.losses.push_back(network.train_group(parameters.data() + offset, group, gradient.data() + offset));
    std::vector<float> log_probs(static_cast<std::size_t>(count) * class_count);
    group.dropout_keys = nullptr;
    network.evaluate_group(parameters.data() + offset, group, log_probs.data());
    bits.log_probs.insert(bits.log_probs.end(), log_probs.begin(), log_probs.end());
  }
  bits.gradient.assign(gradient.begin() + offset, gradient.begin() + offset + static_cast<std::ptrdiff_t>(n));
  return bits;
}

// Whether `a` and `b` hold the same bits (NaNs included).
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("every kernel build gives the same bits with its buffers at any alignment", "[hogwild]") {
  for (Isa isa : runnable_isas()) {
    for (ModelKind kind : {ModelKind::cnn, ModelKind::mlp, ModelKind::logreg}) {
      const Bits first = run_at(isa, kind, 0, 0);
      for (int offset = 1; offset < 16; ++offset) {
        INFO(to_string(isa) << " " << to_string(kind) << ", buffers " << offset << " floats past a cache line");
        const Bits other = run_at(isa, kind, offset, static_cast<std::size_t>(offset) * 68 + 4);
        CHECK(same_bits(other.losses, first.losses));
        CHECK(same_bits(other.gradient, first.gradient));
        CHECK(same_bits(other.log_probs, first.log_probs));
      }
    }
  }
}
