// Fuzz target: `mptrain tune` reading a program's output. The first byte
// picks the metric kind and the pattern; the rest is what the program
// printed, fed in pieces on two streams of two ranks, then read over windows.
#include <cstdint>
#include <string_view>

#include "tune/metric.hpp"

using namespace mptrain::tune;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const patterns[] = {R"(([0-9.]+)(?:it/s|s/it))", R"(loss ([0-9.eE+-]+))", "^step",
                                         std::string_view(training_progress_pattern).data()};
  const MetricKind kinds[] = {MetricKind::value, MetricKind::value, MetricKind::lines, MetricKind::counter};
  const int choice = data[0] % 4;
  auto reader = MetricReader::make(MetricSpec{kinds[choice], patterns[choice], (data[0] & 4) == 0});
  if (!reader.ok()) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  double seconds = 0;
  for (std::size_t at = 0, piece = 0; at < text.size(); ++piece) {
    const std::size_t length = 1 + (piece * 7919 + at) % 97;
    (*reader)->feed(static_cast<int>(piece % 4), static_cast<int>(piece % 2), text.substr(at, length), seconds);
    at += length;
    seconds += 0.1;
  }
  (*reader)->finish();
  (void)(*reader)->throughput(0, seconds);
  (void)(*reader)->throughput(seconds / 2, seconds);
  (void)(*reader)->last_lines();
  return 0;
}
