// mptrain_mpi_probe: run under `mpirun -n K`, it starts MPI through
// mptrain's plugin and checks every collective mptrain uses, printing one
// line per rank: "rank R of K: broadcast ok, sum ok, max ok". Exit 1 with
// the reason when a check fails. Used by tests/e2e/cluster/mpi_plugin.sh.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cluster/mpi.hpp"

using mptrain::cluster::Mpi;

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "mptrain_mpi_probe: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main() {
  auto started = Mpi::start();
  if (!started.ok()) return fail(started.error().message);
  Mpi& mpi = **started;
  const int rank = mpi.rank(), size = mpi.size();
  // Text from rank 0, of a length only rank 0 knows.
  const std::string sent = rank == 0 ? std::string("node 0 says hello ") + std::string(1000, 'x') : std::string();
  auto text = mpi.broadcast(sent, 0);
  if (!text.ok()) return fail(text.error().message);
  if (*text != std::string("node 0 says hello ") + std::string(1000, 'x')) return fail("broadcast lost bytes");
  // Sums of floats and doubles: element i is rank + i on each rank.
  std::vector<float> floats(100000);
  std::vector<double> doubles(3);
  for (std::size_t i = 0; i < floats.size(); ++i) floats[i] = static_cast<float>(rank) + static_cast<float>(i % 7);
  for (std::size_t i = 0; i < doubles.size(); ++i) doubles[i] = rank + static_cast<double>(i);
  if (auto s = mpi.sum(floats); !s.ok()) return fail(s.error().message);
  if (auto s = mpi.sum(doubles); !s.ok()) return fail(s.error().message);
  const double ranks = size * (size - 1) / 2.0;
  for (std::size_t i = 0; i < floats.size(); ++i) {
    if (floats[i] != static_cast<float>(ranks + size * static_cast<double>(i % 7))) return fail("float sum wrong");
  }
  for (std::size_t i = 0; i < doubles.size(); ++i) {
    if (doubles[i] != ranks + size * static_cast<double>(i)) return fail("double sum wrong");
  }
  std::vector<std::int64_t> maxima = {rank, -rank};
  if (auto s = mpi.max(maxima); !s.ok()) return fail(s.error().message);
  if (maxima[0] != size - 1 || maxima[1] != 0) return fail("max wrong");
  if (auto s = mpi.barrier(); !s.ok()) return fail(s.error().message);
  std::printf("rank %d of %d: broadcast ok, sum ok, max ok\n", rank, size);
  return 0;
}
