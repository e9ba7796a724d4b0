// Pinning through util/pinning.hpp, and reading masks with sched_getaffinity.
#include <sched.h>

#include <climits>
#include <string>
#include <vector>

#include "affinity/bind.hpp"
#include "util/pinning.hpp"

namespace mptrain::affinity {

namespace {

constexpr int word_bits = static_cast<int>(sizeof(unsigned long) * CHAR_BIT);

CpuSet mask_to_set(const unsigned long* words, std::size_t count) {
  std::vector<int> cpus;
  for (std::size_t w = 0; w < count; ++w) {
    for (int bit = 0; bit < word_bits; ++bit) {
      if ((words[w] >> bit) & 1UL) cpus.push_back(static_cast<int>(w) * word_bits + bit);
    }
  }
  return CpuSet(std::move(cpus));
}

}  // namespace

Status bind_this_thread(const CpuSet& cpus) {
  const char* what = "sched_setaffinity (this thread) to CPUs";
  if (cpus.empty()) return errno_error(what, "(none)", EINVAL);
  auto mask = IdMask::of(cpus, "CPU");
  if (!mask.ok()) return errno_error(what, cpus.to_short_string(), EINVAL);
  if (const int err = set_thread_affinity(*mask); err != 0) return errno_error(what, cpus.to_short_string(), err);
  return ok_status();
}

Result<CpuSet> current_affinity(pid_t pid) {
  // The kernel's mask may be larger than IdMask: grow until it fits.
  for (std::size_t words = IdMask::bytes() / sizeof(unsigned long);; words *= 2) {
    std::vector<unsigned long> mask(words, 0);
    if (sched_getaffinity(pid, words * sizeof(unsigned long), reinterpret_cast<cpu_set_t*>(mask.data())) == 0) {
      return mask_to_set(mask.data(), words);
    }
    const int err = errno;
    if (err != EINVAL || words > (1u << 16)) return errno_error("sched_getaffinity", "", err);
  }
}

}  // namespace mptrain::affinity
