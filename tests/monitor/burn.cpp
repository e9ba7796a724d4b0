// mptrain_burn: a controllable CPU load for the monitor's tests and benchmark.
//   mptrain_burn THREADS SECONDS [idle]
// starts THREADS threads that spin on the CPU (or, with "idle", sleep) for
// SECONDS seconds, then exits 0. The main thread only waits.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

namespace {

// Spins until `end`, checking the clock every few thousand iterations.
void spin_until(std::chrono::steady_clock::time_point end) {
  volatile unsigned long sink = 0;
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < 20000; ++i) sink = sink + static_cast<unsigned long>(i);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: mptrain_burn THREADS SECONDS [idle]\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const double seconds = std::atof(argv[2]);
  const bool idle = argc > 3 && std::string_view(argv[3]) == "idle";
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                          std::chrono::duration<double>(seconds));
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    pool.emplace_back([end, idle] { idle ? std::this_thread::sleep_until(end) : spin_until(end); });
  }
  for (auto& thread : pool) thread.join();
  return 0;
}
