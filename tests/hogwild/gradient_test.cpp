// Finite-difference checks of every layer's gradient, in double precision
// through the same templated kernels the float training uses, for every
// build of the kernels this CPU runs (hogwild/isa.hpp).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "hogwild/isa.hpp"
#include "hogwild/kernels.hpp"
#include "hogwild/model.hpp"
#include "hogwild/random.hpp"
#include "test_group.hpp"

using namespace mptrain::hogwild;

namespace {

// Parameters initialised as for training, in double.
std::vector<double> initial_parameters(const ModelLayout& layout, std::uint64_t seed) {
  std::vector<float> values(layout.parameter_count);
  initialize_parameters(layout, seed, values);
  return {values.begin(), values.end()};
}

// The summed loss of `group` at `parameters` (dropout masks fixed by the group's keys).
double loss_at(Network<double>& network, const std::vector<double>& parameters, const Group<double>& group) {
  return network.loss(parameters.data(), group);
}

// Compares the analytic gradient of tensor `name`, computed by the kernels
// of `isa`, with central differences at `samples` elements.
void check_tensor(Isa isa, ModelKind kind, const std::string& name, bool dropout, int samples = 10) {
  Network<double> network(kind, isa);
  const ModelLayout& layout = network.layout();
  auto parameters = initial_parameters(layout, 7);
  TestGroup<double> test(5, 11, dropout);
  std::vector<double> gradient(parameters.size(), 0.0);
  network.train_group(parameters.data(), test.group, gradient.data());
  const TensorInfo& info = layout.tensor(name);
  Random pick(3);
  for (int n = 0; n < samples; ++n) {
    const std::size_t index = info.offset + pick.below(info.size);
    const double h = 1e-6;
    const double saved = parameters[index];
    parameters[index] = saved + h;
    const double up = loss_at(network, parameters, test.group);
    parameters[index] = saved - h;
    const double down = loss_at(network, parameters, test.group);
    parameters[index] = saved;
    const double numeric = (up - down) / (2 * h);
    INFO(to_string(isa) << " " << name << "[" << index - info.offset << "] analytic " << gradient[index] << " numeric "
                        << numeric);
    CHECK(std::abs(gradient[index] - numeric) <= 1e-6 * std::max(1.0, std::abs(numeric)));
  }
}

// Every kernel build this CPU runs with every model.
std::vector<std::pair<Isa, ModelKind>> isa_model_pairs() {
  std::vector<std::pair<Isa, ModelKind>> pairs;
  for (Isa isa : runnable_isas()) {
    for (ModelKind kind : {ModelKind::cnn, ModelKind::mlp, ModelKind::logreg}) pairs.emplace_back(isa, kind);
  }
  return pairs;
}

}  // namespace

TEST_CASE("logreg gradients match finite differences (fc, log-softmax + NLL)", "[hogwild]") {
  for (Isa isa : runnable_isas()) {
    check_tensor(isa, ModelKind::logreg, "fc1.weight", false);
    check_tensor(isa, ModelKind::logreg, "fc1.bias", false);
  }
}

TEST_CASE("mlp gradients match finite differences (fc, relu, fc)", "[hogwild]") {
  for (Isa isa : runnable_isas()) {
    for (const char* name : {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"})
      check_tensor(isa, ModelKind::mlp, name, false);
  }
}

TEST_CASE("cnn gradients match finite differences without dropout (conv, pool, relu, fc)", "[hogwild]") {
  for (Isa isa : runnable_isas()) {
    for (const auto& info : model_layout(ModelKind::cnn).tensors) check_tensor(isa, ModelKind::cnn, info.name, false);
  }
}

TEST_CASE("cnn gradients match finite differences with fixed dropout masks (dropout2d, dropout)", "[hogwild]") {
  for (Isa isa : runnable_isas()) {
    for (const auto& info : model_layout(ModelKind::cnn).tensors) check_tensor(isa, ModelKind::cnn, info.name, true);
  }
}

TEST_CASE("dropout masks depend only on the sample's key", "[hogwild]") {
  Network<double> network(ModelKind::cnn);
  const auto parameters = initial_parameters(network.layout(), 5);
  TestGroup<double> with_dropout(3, 9, true);
  TestGroup<double> without_dropout(3, 9, false);
  const double first = loss_at(network, parameters, with_dropout.group);
  CHECK(loss_at(network, parameters, with_dropout.group) == first);
  CHECK(loss_at(network, parameters, without_dropout.group) != first);
}

TEST_CASE("the float kernels agree with the double ones", "[hogwild]") {
  for (auto [isa, kind] : isa_model_pairs()) {
    INFO(to_string(isa) << " " << to_string(kind));
    Network<double> exact(kind, isa);
    Network<float> fast(kind, isa);
    const auto parameters = initial_parameters(exact.layout(), 1);
    const std::vector<float> parameters_f(parameters.begin(), parameters.end());
    TestGroup<double> test(16, 4, true);
    const std::vector<float> images_f(test.images.begin(), test.images.end());
    const Group<float> group_f{images_f.data(), test.labels.data(), 16, test.keys.data(), 1.0f};
    std::vector<double> gradient(parameters.size(), 0.0);
    std::vector<float> gradient_f(parameters.size(), 0.0f);
    const double loss = exact.train_group(parameters.data(), test.group, gradient.data());
    const float loss_f = fast.train_group(parameters_f.data(), group_f, gradient_f.data());
    CHECK(loss_f == Approx(loss).epsilon(1e-4));
    for (std::size_t i = 0; i < gradient.size(); i += 97) {
      CHECK(gradient_f[i] == Approx(gradient[i]).margin(1e-4).epsilon(1e-3));
    }
  }
}

TEST_CASE("every kernel build this CPU runs computes the baseline's float losses and gradients", "[hogwild]") {
  const std::vector<Isa> isas = runnable_isas();
  for (ModelKind kind : {ModelKind::cnn, ModelKind::mlp, ModelKind::logreg}) {
    Network<float> baseline(kind, isas.back());
    const auto parameters = initial_parameters(baseline.layout(), 3);
    const std::vector<float> parameters_f(parameters.begin(), parameters.end());
    TestGroup<double> test(16, 6, true);
    const std::vector<float> images_f(test.images.begin(), test.images.end());
    const Group<float> group_f{images_f.data(), test.labels.data(), 16, test.keys.data(), 1.0f};
    std::vector<float> expected(parameters.size(), 0.0f);
    const float expected_loss = baseline.train_group(parameters_f.data(), group_f, expected.data());
    for (Isa isa : isas) {
      INFO(to_string(isa) << " against " << to_string(isas.back()) << ", model " << to_string(kind));
      Network<float> network(kind, isa);
      CHECK(network.isa() == isa);
      std::vector<float> gradient(parameters.size(), 0.0f);
      CHECK(network.train_group(parameters_f.data(), group_f, gradient.data()) == Approx(expected_loss).epsilon(1e-5));
      for (std::size_t i = 0; i < gradient.size(); ++i) {
        CHECK(gradient[i] == Approx(expected[i]).margin(1e-5).epsilon(1e-4));
      }
    }
  }
}

TEST_CASE("evaluation returns log-probabilities that sum to one", "[hogwild]") {
  Network<double> network(ModelKind::cnn);
  const auto parameters = initial_parameters(network.layout(), 2);
  TestGroup<double> test(4, 8, false);
  std::vector<double> log_probs(4 * class_count);
  const double loss = network.evaluate_group(parameters.data(), test.group, log_probs.data());
  double expected_loss = 0;
  for (int s = 0; s < 4; ++s) {
    double total = 0;
    for (int k = 0; k < class_count; ++k) total += std::exp(log_probs[s * class_count + k]);
    CHECK(total == Approx(1.0));
    expected_loss -= log_probs[s * class_count + test.labels[s]];
  }
  CHECK(loss == Approx(expected_loss));
}

TEST_CASE("initialisation follows PyTorch's bounds", "[hogwild]") {
  const auto layout = model_layout(ModelKind::cnn);
  CHECK(layout.parameter_count == 21840);
  std::vector<float> values(layout.parameter_count);
  initialize_parameters(layout, 1, values);
  for (const auto& info : layout.tensors) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(info.fan_in));
    for (std::size_t i = 0; i < info.size; ++i) CHECK(std::abs(values[info.offset + i]) <= bound);
  }
}
