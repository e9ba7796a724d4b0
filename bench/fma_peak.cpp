// The machine's FMA peak (SPEC "Performance bar": the kernel's share of it is
// the training benchmark's figure): a register-only loop of independent
// fused multiply-adds, the widest the CPU has (AVX-512, else AVX2 + FMA, else
// SSE2 multiply and add), run
//   1. on every CPU of the affinity mask at once, one pinned thread each;
//   2. on the first CPU alone;
// each for SECONDS, best of REPEAT. Prints one JSON line:
//   {"isa":"avx512","cpus":2,"gflops_all":…,"gflops_per_cpu":[…],"gflops_one_thread":…, …}
// One FMA counts as 2 FLOPs (SSE2: one multiply and one add, 2 FLOPs too).
// Usage: mptrain_fma_peak [--seconds S=1] [--repeat R=3] [--isa avx512|avx2|sse2]
//
// The loop is `acc = acc * a + b` on `accumulators` independent vectors with a
// and b read at run time (no closed form the compiler could use); the sum of
// the accumulators is returned, so nothing is dead. 12 accumulators cover the
// FMA latency (4–5 cycles) times the FMA units (2) of current x86 cores.
// `objdump -d --no-show-raw-insn build/bench/mptrain_fma_peak | grep vfmadd`
// shows the loops really are vfmadd…ps on zmm / ymm registers.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <immintrin.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <numeric>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "affinity/bind.hpp"
#include "bench/usable_cpus.hpp"

using namespace mptrain;

namespace {

using Clock = std::chrono::steady_clock;

constexpr int accumulators = 12;
constexpr long chunk = 1L << 14;  // iterations between two looks at the clock (~0.1 ms)

// The loop's operands, read through volatile so the compiler cannot fold them.
volatile float multiplier = 0.999999f;
volatile float addend = 1e-6f;

// An instruction set the loop can use: its name, float lanes per vector and the loop itself.
struct Isa {
  std::string_view name;
  int lanes = 0;
  float (*loop)(long iterations) = nullptr;
};

__attribute__((target("avx512f"), noinline)) float loop_avx512(long iterations) {
  const __m512 a = _mm512_set1_ps(multiplier);
  const __m512 b = _mm512_set1_ps(addend);
  __m512 acc[accumulators];
  for (int k = 0; k < accumulators; ++k) acc[k] = _mm512_set1_ps(static_cast<float>(k));
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < accumulators; ++k) acc[k] = _mm512_fmadd_ps(acc[k], a, b);
  }
  __m512 sum = acc[0];
  for (int k = 1; k < accumulators; ++k) sum = _mm512_add_ps(sum, acc[k]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  return std::accumulate(lanes, lanes + 16, 0.0f);
}

__attribute__((target("avx2,fma"), noinline)) float loop_avx2(long iterations) {
  const __m256 a = _mm256_set1_ps(multiplier);
  const __m256 b = _mm256_set1_ps(addend);
  __m256 acc[accumulators];
  for (int k = 0; k < accumulators; ++k) acc[k] = _mm256_set1_ps(static_cast<float>(k));
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < accumulators; ++k) acc[k] = _mm256_fmadd_ps(acc[k], a, b);
  }
  __m256 sum = acc[0];
  for (int k = 1; k < accumulators; ++k) sum = _mm256_add_ps(sum, acc[k]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  return std::accumulate(lanes, lanes + 8, 0.0f);
}

// SSE2 has no FMA: a multiply and an add, the same 2 FLOPs per lane.
__attribute__((noinline)) float loop_sse2(long iterations) {
  const __m128 a = _mm_set1_ps(multiplier);
  const __m128 b = _mm_set1_ps(addend);
  __m128 acc[accumulators];
  for (int k = 0; k < accumulators; ++k) acc[k] = _mm_set1_ps(static_cast<float>(k));
  for (long i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < accumulators; ++k) acc[k] = _mm_add_ps(_mm_mul_ps(acc[k], a), b);
  }
  __m128 sum = acc[0];
  for (int k = 1; k < accumulators; ++k) sum = _mm_add_ps(sum, acc[k]);
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, sum);
  return std::accumulate(lanes, lanes + 4, 0.0f);
}

constexpr Isa avx512{"avx512", 16, loop_avx512};
constexpr Isa avx2{"avx2", 8, loop_avx2};
constexpr Isa sse2{"sse2", 4, loop_sse2};

// The widest instruction set this CPU (and its OS) supports.
Isa widest_isa() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return avx2;
  return sse2;
}

// FLOPs of one iteration of `isa`'s loop.
double flops_per_iteration(const Isa& isa) { return 2.0 * accumulators * isa.lanes; }

// Runs `isa`'s loop on each CPU of `cpus` at once (one pinned thread each)
// for `seconds` after a common start; returns each thread's GFLOP/s.
std::vector<double> run_on(const Isa& isa, const std::vector<int>& cpus, double seconds) {
  std::vector<double> gflops(cpus.size());
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<float> sink{0};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < cpus.size(); ++t) {
    threads.emplace_back([&, t] {
      if (!affinity::bind_this_thread(CpuSet({cpus[t]})).ok()) {
        fmt::print(stderr, "mptrain_fma_peak: cannot pin a thread to CPU {}\n", cpus[t]);
        std::exit(1);
      }
      ready.fetch_add(1);
      while (!go.load()) {
      }
      const auto start = Clock::now();
      const auto end = start + std::chrono::duration<double>(seconds);
      long iterations = 0;
      float total = 0;
      for (auto now = start; now < end; now = Clock::now()) {
        total += isa.loop(chunk);
        iterations += chunk;
      }
      const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
      gflops[t] = static_cast<double>(iterations) * flops_per_iteration(isa) / elapsed * 1e-9;
      sink.store(total);
    });
  }
  while (ready.load() < static_cast<int>(cpus.size())) std::this_thread::yield();
  go.store(true);
  for (auto& thread : threads) thread.join();
  return gflops;
}

double sum(const std::vector<double>& values) { return std::accumulate(values.begin(), values.end(), 0.0); }

struct Options {
  double seconds = 1.0;
  int repeat = 3;
  Isa isa = widest_isa();
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view name = argv[i];
    const std::string_view value = argv[i + 1];
    if (name == "--seconds") {
      options.seconds = std::atof(argv[i + 1]);
    } else if (name == "--repeat") {
      options.repeat = std::max(1, std::atoi(argv[i + 1]));
    } else if (name == "--isa" && value == "avx512") {
      options.isa = avx512;
    } else if (name == "--isa" && value == "avx2") {
      options.isa = avx2;
    } else if (name == "--isa" && value == "sse2") {
      options.isa = sse2;
    } else {
      fmt::print(stderr, "usage: mptrain_fma_peak [--seconds S] [--repeat R] [--isa avx512|avx2|sse2]\n");
      std::exit(2);
    }
  }
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const CpuSet usable = bench::usable_cpus_or_exit("mptrain_fma_peak");
  const std::vector<int>& cpus = usable.cpus();
  // Best of `repeat`, the all-CPU and the one-CPU runs alternating so a burst of outside load hits both alike.
  std::vector<double> best_all(cpus.size(), 0.0);
  double best_one = 0;
  for (int r = 0; r < options.repeat; ++r) {
    const auto all = run_on(options.isa, cpus, options.seconds);
    if (sum(all) > sum(best_all)) best_all = all;
    best_one = std::max(best_one, run_on(options.isa, {cpus.front()}, options.seconds).front());
  }
  fmt::print(
      "{{\"isa\":\"{}\",\"cpus\":{},\"cpu_list\":\"{}\",\"gflops_all\":{:.1f},\"gflops_per_cpu\":[{:.1f}],"
      "\"gflops_one_thread\":{:.1f},\"seconds\":{},\"repeat\":{},\"accumulators\":{}}}\n",
      options.isa.name, cpus.size(), usable.to_string(), sum(best_all), fmt::join(best_all, ","), best_one,
      options.seconds, options.repeat, accumulators);
  return 0;
}
