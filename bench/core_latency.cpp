// How far apart the usable CPUs are, for bench/train.sh's scaling figures:
// the round trip of one cache line between the first CPU of the affinity mask
// and each other CPU (two pinned threads passing a counter back and forth,
// each waiting for the other's write), median of REPEAT runs of ROUNDS
// round trips. One worker's T threads exchange its gradients and parameters
// between their cores every batch, so 1 × T scales with this latency; M
// workers of one thread share only the store's lines. On a virtual machine
// the host may move the vCPUs apart between two runs: on the Zen 4 guest of
// docs/benchmarks.md the same two vCPUs measured 52 ns and 330 ns within an
// hour (one CCX, then two dies). Prints one JSON line:
//   {"cpus":2,"cpu_list":"0-1","round_trip_ns":[{"from":0,"to":1,"ns":52.1}],"max_ns":52.1}
// Usage: mptrain_core_latency [--rounds R=100000] [--repeat K=5]
#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "affinity/bind.hpp"
#include "bench/usable_cpus.hpp"

using namespace mptrain;

namespace {

using Clock = std::chrono::steady_clock;

// The line the two threads pass: -1 until the partner runs on its CPU, then
// odd values are the first CPU's serves, even ones the returns.
struct alignas(64) Line {
  std::atomic<long> value{0};
};

// Pins the calling thread to `cpu`, or ends the program saying it could not.
void pin_or_exit(int cpu) {
  if (affinity::bind_this_thread(CpuSet({cpu})).ok()) return;
  fmt::print(stderr, "mptrain_core_latency: cannot pin a thread to CPU {}\n", cpu);
  std::exit(1);
}

// Mean nanoseconds of one round trip of a line between CPUs `from` and `to`, over `rounds`.
double round_trip_ns(int from, int to, long rounds) {
  static Line line;
  line.value.store(-1);
  std::thread partner([to, rounds] {
    pin_or_exit(to);
    line.value.store(0, std::memory_order_release);  // on its CPU: the clock may start
    for (long i = 0; i < rounds; ++i) {
      while (line.value.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      line.value.store(2 * i + 2, std::memory_order_release);
    }
  });
  pin_or_exit(from);
  while (line.value.load(std::memory_order_acquire) != 0) std::this_thread::yield();
  const auto start = Clock::now();
  for (long i = 0; i < rounds; ++i) {
    line.value.store(2 * i + 1, std::memory_order_release);
    while (line.value.load(std::memory_order_acquire) != 2 * i + 2) {
    }
  }
  const auto elapsed = Clock::now() - start;
  partner.join();
  return std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(rounds);
}

struct Options {
  long rounds = 100000;
  int repeat = 5;
};

[[noreturn]] void usage_and_exit() {
  fmt::print(stderr, "usage: mptrain_core_latency [--rounds R] [--repeat K]\n");
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view name = argv[i];
    if (name == "--rounds") {
      options.rounds = std::max(1L, std::atol(argv[i + 1]));
    } else if (name == "--repeat") {
      options.repeat = std::max(1, std::atoi(argv[i + 1]));
    } else {
      usage_and_exit();
    }
  }
  if (argc % 2 == 0) usage_and_exit();  // an option without its value
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const CpuSet usable = bench::usable_cpus_or_exit("mptrain_core_latency");
  const std::vector<int>& cpus = usable.cpus();
  std::vector<std::string> pairs;
  double max_ns = 0;
  for (std::size_t k = 1; k < cpus.size(); ++k) {
    std::vector<double> runs;
    for (int r = 0; r < options.repeat; ++r) runs.push_back(round_trip_ns(cpus.front(), cpus[k], options.rounds));
    std::nth_element(runs.begin(), runs.begin() + static_cast<long>(runs.size() / 2), runs.end());
    const double median = runs[runs.size() / 2];
    max_ns = std::max(max_ns, median);
    pairs.push_back(fmt::format("{{\"from\":{},\"to\":{},\"ns\":{:.1f}}}", cpus.front(), cpus[k], median));
  }
  fmt::print("{{\"cpus\":{},\"cpu_list\":\"{}\",\"round_trip_ns\":[{}],\"max_ns\":{:.1f}}}\n", cpus.size(),
             usable.to_string(), fmt::join(pairs, ","), max_ns);
  return 0;
}
