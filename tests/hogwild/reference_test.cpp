// The scalar reference (reference.hpp) on cases small enough to check by
// hand, and every kernel build this CPU runs against it on random groups.
//
// Tolerances, from float summation. Each value the kernels compute is a
// sum of at most ~800 products (fc1 of the mlp: 784 inputs; a conv1
// weight's gradient: 576 positions). Summed in float one term at a time,
// such a sum is off by at most n·u·Σ|terms| (u = 2⁻²⁴ ≈ 6e-8), about 5e-5
// of Σ|terms| for n = 800; the backward chains three or four such sums.
// So the float kernels must be within 1e-4 of each tensor's largest value
// (|kernel − reference| ≤ 1e-4 · max|reference| over the tensor), and the
// log-probabilities within 1e-4 · max(1, |log p|). (Seen on AMD EPYC,
// every build: at most ~3e-7, rounding errors that partly cancel.) The
// double kernels run the same code in double (u = 2⁻⁵³), so within 1e-10
// of the same scales.
//
// A rounding difference must not decide a pooling winner or a relu, or one
// value would move to another place: the float groups are on a dyadic grid
// (pixels in eighths, parameters in 64ths) on which conv1, conv2 and the
// mlp's fc1 are exact in float, so float and double agree on every winner.
#include "reference.hpp"

#include <algorithm>
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "hogwild/isa.hpp"
#include "hogwild/kernels.hpp"
#include "hogwild/model.hpp"
#include "hogwild/random.hpp"

using namespace mptrain::hogwild;
namespace ref = mptrain::hogwild::reference;

namespace {

constexpr ModelKind all_models[] = {ModelKind::cnn, ModelKind::mlp, ModelKind::logreg};

// A random group of `count` samples: pixels uniform in [−0.5, 1.5), or on
// the grid of eighths with `dyadic`; keys for dropout when `dropout`.
ref::GroupInput random_group(int count, std::uint64_t seed, bool dropout, bool dyadic) {
  Random random(seed);
  ref::GroupInput input;
  for (int i = 0; i < count * image_pixels; ++i) {
    const double pixel = 2 * random.uniform() - 0.5;
    input.images.push_back(dyadic ? std::round(pixel * 8) / 8 : pixel);
  }
  for (int s = 0; s < count; ++s) {
    input.labels.push_back(static_cast<int>(random.below(class_count)));
    if (dropout) input.keys.push_back(random.next());
  }
  input.loss_scale = 1.0 / 64;
  return input;
}

// Parameters initialised as for training from `seed`; on the grid of 64ths with `dyadic`.
std::vector<double> random_parameters(ModelKind kind, std::uint64_t seed, bool dyadic) {
  const ModelLayout layout = model_layout(kind);
  std::vector<float> values(layout.parameter_count);
  initialize_parameters(layout, seed, values);
  std::vector<double> parameters(values.begin(), values.end());
  if (dyadic) {
    for (double& p : parameters) p = std::round(p * 64) / 64;
  }
  return parameters;
}

// The kernels of `isa` in scalar `S` on `input`: loss, log-probabilities, gradient.
template <class S>
ref::GroupOutput run_kernels(Isa isa, ModelKind kind, const std::vector<double>& parameters,
                             const ref::GroupInput& input) {
  Network<S> network(kind, isa);
  const int count = static_cast<int>(input.labels.size());
  const std::vector<S> p(parameters.begin(), parameters.end());
  std::vector<S> images(group_size * image_pixels, S(0));
  std::copy(input.images.begin(), input.images.end(), images.begin());
  const Group<S> group{images.data(), input.labels.data(), count, input.keys.empty() ? nullptr : input.keys.data(),
                       static_cast<S>(input.loss_scale)};
  std::vector<S> gradient(p.size(), S(0));
  ref::GroupOutput out;
  out.loss = network.train_group(p.data(), group, gradient.data());
  out.gradient.assign(gradient.begin(), gradient.end());
  std::vector<S> log_probs(static_cast<std::size_t>(count) * class_count);
  Group<S> plain = group;
  plain.dropout_keys = nullptr;
  network.evaluate_group(p.data(), plain, log_probs.data());
  out.log_probs.assign(log_probs.begin(), log_probs.end());
  return out;
}

// The reference on `input`: loss and gradient with the group's dropout
// masks, log-probabilities without (as Network::evaluate_group gives them).
ref::GroupOutput reference_of(ModelKind kind, const std::vector<double>& parameters, const ref::GroupInput& input) {
  ref::GroupOutput out = ref::train_group(kind, parameters, input);
  ref::GroupInput plain = input;
  plain.keys.clear();
  out.log_probs = ref::train_group(kind, parameters, plain).log_probs;
  return out;
}

// Checks `got` against `want` within `tolerance` of each tensor's largest
// reference value, and the log-probabilities and loss within `tolerance` of max(1, |value|).
void check_close(ModelKind kind, const ref::GroupOutput& got, const ref::GroupOutput& want, double tolerance) {
  CHECK(std::abs(got.loss - want.loss) <= tolerance * std::max(1.0, std::abs(want.loss)));
  REQUIRE(got.log_probs.size() == want.log_probs.size());
  for (std::size_t i = 0; i < want.log_probs.size(); ++i) {
    INFO("log-probability " << i << ": " << got.log_probs[i] << " against " << want.log_probs[i]);
    CHECK(std::abs(got.log_probs[i] - want.log_probs[i]) <= tolerance * std::max(1.0, std::abs(want.log_probs[i])));
  }
  for (const auto& info : model_layout(kind).tensors) {
    double scale = 0;
    for (std::size_t i = 0; i < info.size; ++i) scale = std::max(scale, std::abs(want.gradient[info.offset + i]));
    double worst = 0;
    std::size_t worst_at = 0;
    for (std::size_t i = 0; i < info.size; ++i) {
      const double error = std::abs(got.gradient[info.offset + i] - want.gradient[info.offset + i]);
      if (error > worst) worst = error, worst_at = i;
    }
    INFO(info.name << ": largest error " << worst << " at " << worst_at << ", tensor's largest value " << scale);
    CHECK(scale > 0);
    CHECK(worst <= tolerance * scale);
  }
}

}  // namespace

TEST_CASE("reference conv2d: a 2×2 kernel over a 3×3 image, by hand", "[hogwild]") {
  const double in[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const double w[4] = {1, 2, 3, 4};
  const double b[1] = {0.5};
  double out[4];
  ref::conv2d_forward(out, in, w, b, 1, 3, 3, 1, 2);
  // out[y][x] = 1·in[y][x] + 2·in[y][x+1] + 3·in[y+1][x] + 4·in[y+1][x+1] + 0.5
  CHECK(std::vector<double>(out, out + 4) == std::vector<double>{37.5, 47.5, 67.5, 77.5});
  const double d_out[4] = {1, 0, 0, 0};
  double d_in[9];
  double d_w[4] = {};
  double d_b[1] = {};
  ref::conv2d_backward(d_in, d_w, d_b, d_out, in, w, 1, 3, 3, 1, 2);
  CHECK(std::vector<double>(d_w, d_w + 4) == std::vector<double>{1, 2, 4, 5});  // the window at (0, 0)
  CHECK(d_b[0] == 1);
  CHECK(std::vector<double>(d_in, d_in + 9) == std::vector<double>{1, 2, 0, 3, 4, 0, 0, 0, 0});
}

TEST_CASE("reference maxpool: the maximum of each window, the first in scan order on a tie", "[hogwild]") {
  const double in[8] = {1, 5, 2, 2,  //
                        3, 0, 2, 1};
  double out[2];
  int winner[2];
  ref::maxpool_forward(out, winner, in, 1, 2, 4);
  CHECK(out[0] == 5);
  CHECK(out[1] == 2);
  CHECK(winner[0] == 1);
  CHECK(winner[1] == 2);
  const double d_out[2] = {7, 9};
  double d_in[8];
  ref::maxpool_backward(d_in, d_out, winner, 1, 2, 4);
  CHECK(std::vector<double>(d_in, d_in + 8) == std::vector<double>{0, 7, 9, 0, 0, 0, 0, 0});
}

TEST_CASE("reference and kernels: a logreg of zero parameters predicts 1/10 for every class, by hand", "[hogwild]") {
  // z = 0, so log p = −ln 10 and the loss is ln 10; ∂/∂bias = 0.1 − [k = label]
  // and ∂/∂w[k][i] = (0.1 − [k = label]) · x[i].
  const std::vector<double> zero(model_layout(ModelKind::logreg).parameter_count, 0.0);
  ref::GroupInput input;
  input.images.assign(image_pixels, 0.0);
  input.images[0] = 1;
  input.images[5] = -2;
  input.labels = {3};
  ref::GroupOutput want;
  want.loss = std::log(10.0);
  want.log_probs.assign(class_count, -std::log(10.0));
  want.gradient.assign(zero.size(), 0.0);
  const std::size_t bias = model_layout(ModelKind::logreg).tensor("fc1.bias").offset;
  for (int k = 0; k < class_count; ++k) {
    const double g = 0.1 - (k == 3 ? 1.0 : 0.0);
    want.gradient[bias + k] = g;
    want.gradient[k * image_pixels + 0] = g;
    want.gradient[k * image_pixels + 5] = -2 * g;
  }
  check_close(ModelKind::logreg, ref::train_group(ModelKind::logreg, zero, input), want, 1e-15);
  for (Isa isa : runnable_isas()) {
    INFO(to_string(isa));
    check_close(ModelKind::logreg, run_kernels<float>(isa, ModelKind::logreg, zero, input), want, 1e-6);
  }
}

TEST_CASE("reference and kernels: a cnn of constant parameters, by hand", "[hogwild]") {
  // conv1 bias 1 (weights 0): every conv1 output and p1 value is 1. conv2
  // weights 1/64 (250 taps), bias 0: every c2 and p2 value is 250/64. fc1
  // weights 1/1024, bias 0: every h is 320 · 250/64 / 1024 = 1.220703125.
  // fc2 weight row k all k/8: z[k] = 50 · h · k/8 = 7.62939453125 · k.
  const ModelLayout layout = model_layout(ModelKind::cnn);
  std::vector<double> p(layout.parameter_count, 0.0);
  const auto fill = [&](const char* name, auto value) {
    const auto& info = layout.tensor(name);
    for (std::size_t i = 0; i < info.size; ++i) p[info.offset + i] = value(i);
  };
  fill("conv1.bias", [](std::size_t) { return 1.0; });
  fill("conv2.weight", [](std::size_t) { return 1.0 / 64; });
  fill("fc1.weight", [](std::size_t) { return 1.0 / 1024; });
  fill("fc2.weight", [](std::size_t i) { return static_cast<double>(i / cnn::hidden) / 8; });
  ref::GroupInput input;
  input.images.assign(image_pixels, 0.25);
  input.labels = {7};
  const double h = 320 * (250.0 / 64) / 1024;
  const double step = 50 * h / 8;
  double sum = 0;
  for (int k = 0; k < class_count; ++k) sum += std::exp(step * k);
  const ref::GroupOutput reference = ref::train_group(ModelKind::cnn, p, input);
  for (int k = 0; k < class_count; ++k) CHECK(reference.log_probs[k] == Approx(step * k - std::log(sum)).margin(1e-12));
  CHECK(reference.loss == Approx(std::log(sum) - step * 7).epsilon(1e-12));
  // ∂/∂fc2.bias[k] = softmax[k] − [k = 7]; ∂/∂fc2.weight[k][j] = that × h.
  const std::size_t fc2_bias = layout.tensor("fc2.bias").offset;
  const std::size_t fc2_weight = layout.tensor("fc2.weight").offset;
  for (int k = 0; k < class_count; ++k) {
    const double g = std::exp(step * k) / sum - (k == 7 ? 1.0 : 0.0);
    CHECK(reference.gradient[fc2_bias + k] == Approx(g).margin(1e-15));
    CHECK(reference.gradient[fc2_weight + k * cnn::hidden + 3] == Approx(g * h).margin(1e-15));
  }
  // The kernels on the same case: every pooling window is a tie, which
  // both resolve to the window's first position.
  for (Isa isa : runnable_isas()) {
    INFO(to_string(isa));
    check_close(ModelKind::cnn, run_kernels<double>(isa, ModelKind::cnn, p, input), reference, 1e-12);
    check_close(ModelKind::cnn, run_kernels<float>(isa, ModelKind::cnn, p, input), reference, 1e-5);
  }
}

TEST_CASE("a pixel byte is normalised as the peer does, (x / 255 - 0.1307) / 0.3081", "[hogwild]") {
  for (int b = 0; b < 256; ++b) {
    INFO("byte " << b);
    // In float the constants and each operation round; near x / 255 = 0.1307
    // the subtraction cancels, so the float result is within 1e-6 absolute.
    CHECK(normalize_pixel(static_cast<std::uint8_t>(b)) == Approx((b / 255.0 - 0.1307) / 0.3081).margin(1e-6));
  }
}

TEST_CASE("every kernel build normalises pixel bytes with normalize_pixel's bits, at every length and offset",
          "[hogwild]") {
  // Each build's vectorised loop and its scalar remainder, from every
  // alignment of the input and the output.
  std::vector<std::uint8_t> bytes(4 + 256 + 5);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 37 + i / 256);
  std::vector<float> out(4 + bytes.size() + 1);
  for (Isa isa : runnable_isas()) {
    for (std::size_t in_offset = 0; in_offset < 4; ++in_offset) {
      for (std::size_t out_offset = 0; out_offset < 4; ++out_offset) {
        for (std::size_t count = 0; count <= bytes.size() - in_offset; count += count < 140 ? 1 : 61) {
          std::fill(out.begin(), out.end(), -1.0f);
          normalize_pixels(isa, bytes.data() + in_offset, count, out.data() + out_offset);
          std::size_t differing = 0;
          for (std::size_t i = 0; i < count; ++i) {
            const float expected = normalize_pixel(bytes[in_offset + i]);
            differing += std::bit_cast<std::uint32_t>(out[out_offset + i]) != std::bit_cast<std::uint32_t>(expected);
          }
          INFO(to_string(isa) << ": " << count << " bytes from offset " << in_offset << " into offset " << out_offset);
          CHECK(differing == 0);
          CHECK(out[out_offset + count] == -1.0f);  // nothing written past the end
          if (out_offset > 0) CHECK(out[out_offset - 1] == -1.0f);
        }
      }
    }
  }
}

TEST_CASE("normalize_pixels without a build runs the one isa_choice() picked", "[hogwild]") {
  std::vector<std::uint8_t> all(256);
  for (std::size_t b = 0; b < all.size(); ++b) all[b] = static_cast<std::uint8_t>(b);
  std::vector<float> chosen(all.size());
  std::vector<float> named(all.size());
  normalize_pixels(all.data(), all.size(), chosen.data());
  normalize_pixels(isa_choice().value().isa, all.data(), all.size(), named.data());
  CHECK(chosen == named);
  CHECK(chosen[200] == normalize_pixel(200));
}

TEST_CASE("every kernel build in double matches the reference on random groups within 1e-10", "[hogwild]") {
  for (Isa isa : runnable_isas()) {
    for (ModelKind kind : all_models) {
      for (int count : {16, 5}) {
        INFO(to_string(isa) << " " << to_string(kind) << ", " << count << " samples");
        const auto parameters = random_parameters(kind, 11 + count, false);
        const auto input = random_group(count, 21 + count, kind == ModelKind::cnn, false);
        check_close(kind, run_kernels<double>(isa, kind, parameters, input), reference_of(kind, parameters, input),
                    1e-10);
      }
    }
  }
}

TEST_CASE("every kernel build in float matches the reference on random groups within 1e-4", "[hogwild]") {
  for (Isa isa : runnable_isas()) {
    for (ModelKind kind : all_models) {
      for (std::uint64_t seed : {1, 2, 3}) {
        for (int count : {16, 7}) {
          INFO(to_string(isa) << " " << to_string(kind) << ", seed " << seed << ", " << count << " samples");
          const auto parameters = random_parameters(kind, seed, true);
          const auto input = random_group(count, 100 + seed, kind == ModelKind::cnn, true);
          check_close(kind, run_kernels<float>(isa, kind, parameters, input), reference_of(kind, parameters, input),
                      1e-4);
        }
      }
    }
  }
}
