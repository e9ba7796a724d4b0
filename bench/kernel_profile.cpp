// The training kernel alone, without the trainer, the store or the data:
// Network<float>::train_group (forward + backward of one 16-sample group)
// and Network<float>::loss (forward only) on random images, timed on THREADS
// threads at once, each pinned to its own CPU of the affinity mask. Prints
// one JSON line: samples/s and GFLOP/s (FLOPs as hogwild/flops.hpp counts
// them) of the whole step, of the forward and of the backward (step − forward),
// and the FLOPs the kernels performed (executed_flops_per_sample, first
// thread; executed_gflops: all threads), less what they skip.
// docs/kernel_profile.md uses it, with perf, to find where the kernel loses.
// Usage: mptrain_kernel_profile [--model cnn|mlp|logreg] [--threads T=1] [--seconds S=2] [--forward yes|no]
// (--forward no: the step alone, for `perf record`; the forward and backward figures are then 0.)
#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "affinity/bind.hpp"
#include "hogwild/flops.hpp"
#include "hogwild/kernels.hpp"
#include "hogwild/random.hpp"

using namespace mptrain;
using namespace mptrain::hogwild;

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  ModelKind model = ModelKind::cnn;
  int threads = 1;
  double seconds = 2;
  bool forward = true;  // time the forward alone too
};

// One thread's measurement: groups per second of the whole step and of the forward alone.
struct Rates {
  double step = 0;
  double forward = 0;
  double executed_per_sample = 0;  // FLOPs the kernels performed per training sample (Network::flops_done)
};

// Random normalised images, labels and dropout keys for one group, and a model initialised as training does.
struct Inputs {
  std::vector<float> images = std::vector<float>(std::size_t{group_size} * image_pixels);
  std::vector<int> labels = std::vector<int>(group_size);
  std::vector<std::uint64_t> keys = std::vector<std::uint64_t>(group_size);
  std::vector<float> parameters;
  std::vector<float> gradient;

  Inputs(ModelKind kind, std::uint64_t seed) {
    const auto layout = model_layout(kind);
    parameters.resize(layout.parameter_count);
    gradient.resize(layout.parameter_count);
    initialize_parameters(layout, seed, parameters);
    Random random(seed);
    for (auto& pixel : images) pixel = normalize_pixel(static_cast<std::uint8_t>(random.below(256)));
    for (auto& label : labels) label = static_cast<int>(random.below(class_count));
    for (auto& key : keys) key = random.next();
  }

  Group<float> group() const { return {images.data(), labels.data(), group_size, keys.data(), 1.0f / 64}; }
};

// Calls `pass` for `seconds` (after a warm-up); returns calls per second.
template <class Pass>
double rate_of(Pass pass, double seconds) {
  for (int i = 0; i < 50; ++i) pass();
  long calls = 0;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration<double>(seconds);
  for (auto now = start; now < end; now = Clock::now()) {
    for (int i = 0; i < 20; ++i) pass();
    calls += 20;
  }
  return static_cast<double>(calls) / std::chrono::duration<double>(Clock::now() - start).count();
}

// One thread's run on `cpu`: the whole step, then the forward alone.
Rates measure(const Options& options, int cpu, int index) {
  if (!affinity::bind_this_thread(CpuSet({cpu})).ok()) {
    fmt::print(stderr, "mptrain_kernel_profile: cannot pin a thread to CPU {}\n", cpu);
    std::exit(1);
  }
  Inputs inputs(options.model, static_cast<std::uint64_t>(index) + 1);
  Network<float> network(options.model);
  const auto group = inputs.group();
  float sink = 0;
  Rates rates;
  long steps = 0;
  rates.step = rate_of(
      [&] {
        sink += network.train_group(inputs.parameters.data(), group, inputs.gradient.data());
        ++steps;
      },
      options.seconds);
  rates.executed_per_sample = static_cast<double>(network.flops_done()) / static_cast<double>(steps * group_size);
  if (options.forward) {
    rates.forward = rate_of([&] { sink += network.loss(inputs.parameters.data(), group); }, options.seconds);
  }
  if (sink == 1.2345f) fmt::print(stderr, "\n");  // keeps the results alive
  return rates;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view name = argv[i];
    if (name == "--model" && parse_model_kind(argv[i + 1]).ok()) {
      options.model = *parse_model_kind(argv[i + 1]);
    } else if (name == "--threads") {
      options.threads = std::max(1, std::atoi(argv[i + 1]));
    } else if (name == "--forward") {
      options.forward = std::string_view(argv[i + 1]) != "no";
    } else if (name == "--seconds") {
      options.seconds = std::atof(argv[i + 1]);
    } else {
      fmt::print(
          stderr,
          "usage: mptrain_kernel_profile [--model cnn|mlp|logreg] [--threads T] [--seconds S] [--forward yes|no]\n");
      std::exit(2);
    }
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const auto mask = affinity::current_affinity(0);
  if (!mask.ok() || mask->size() < options.threads) {
    fmt::print(stderr, "mptrain_kernel_profile: fewer usable CPUs than --threads {}\n", options.threads);
    return 1;
  }
  std::vector<Rates> rates(static_cast<std::size_t>(options.threads));
  std::vector<std::thread> threads;
  for (int t = 0; t < options.threads; ++t) {
    threads.emplace_back([&, t] { rates[static_cast<std::size_t>(t)] = measure(options, mask->cpus()[t], t); });
  }
  for (auto& thread : threads) thread.join();
  double forward_flops = 0;
  double backward_flops = 0;
  for (const auto& layer : layer_flops(options.model)) {
    forward_flops += static_cast<double>(layer.forward);
    backward_flops += static_cast<double>(layer.weight_grad + layer.input_grad);
  }
  // Per thread and group: seconds of the step, of the forward, and their difference (the backward).
  double samples = 0;
  double gflops = 0;
  double gflops_forward = 0;
  double gflops_backward = 0;
  double executed_gflops = 0;
  for (const auto& r : rates) {
    samples += r.step * group_size;
    executed_gflops += r.step * group_size * r.executed_per_sample * 1e-9;
    gflops += r.step * group_size * (forward_flops + backward_flops) * 1e-9;
    if (!options.forward) continue;
    gflops_forward += r.forward * group_size * forward_flops * 1e-9;
    gflops_backward += group_size * backward_flops / (1 / r.step - 1 / r.forward) * 1e-9;
  }
  std::string layers;
  for (const auto& layer : layer_flops(options.model)) {
    layers += fmt::format("{}{{\"layer\":\"{}\",\"forward\":{},\"weight_grad\":{},\"input_grad\":{}}}",
                          layers.empty() ? "" : ",", layer.layer, layer.forward, layer.weight_grad, layer.input_grad);
  }
  const auto& r0 = rates.front();
  const double us_forward = options.forward ? 1e6 / r0.forward : 0;
  fmt::print(
      "{{\"model\":\"{}\",\"threads\":{},\"samples_per_second\":{:.0f},\"gflops\":{:.2f},\"gflops_forward\":{:.2f},"
      "\"gflops_backward\":{:.2f},\"us_per_group\":{:.2f},\"us_forward\":{:.2f},\"us_backward\":{:.2f},"
      "\"flops_per_sample\":{},\"executed_flops_per_sample\":{:.0f},\"executed_gflops\":{:.2f},\"layers\":[{}]}}\n",
      to_string(options.model), options.threads, samples, gflops, gflops_forward, gflops_backward, 1e6 / r0.step,
      us_forward, options.forward ? 1e6 / r0.step - us_forward : 0, flops_per_sample(options.model),
      r0.executed_per_sample, executed_gflops, layers);
  return 0;
}
