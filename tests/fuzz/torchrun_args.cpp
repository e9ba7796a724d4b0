// Fuzz target: torchrun command lines (words separated by newlines) and
// error files. A parsed command line names a program unless it asks for
// help, keeps every word after the program, and its endpoint, node count,
// rendezvous config and rank filter parse or refuse without crashing; the
// whole input is also read as an error file.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/torchrun.hpp"
#include "util/text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> words;
  for (const auto word : mptrain::split(text, '\n')) words.emplace_back(word);
  const auto args = mptrain::cluster::parse_torchrun_args(words, {"PET_NNODES=2:2", "PET_RDZV_ID=fuzz"});
  if (args.ok()) {
    if (!args->help && args->program.empty()) __builtin_trap();
    if (args->program_args.size() >= words.size()) __builtin_trap();
    for (const auto* value : {&args->nnodes, &args->rdzv_endpoint, &args->rdzv_conf, &args->local_ranks_filter}) {
      if (!*value) continue;
      const auto nodes = mptrain::cluster::parse_torchrun_nnodes((*value)->value);
      if (nodes.ok() && *nodes < 1) __builtin_trap();
      const auto endpoint = mptrain::cluster::parse_endpoint((*value)->value);
      if (endpoint.ok() &&
          (endpoint->host.empty() || (endpoint->port && (*endpoint->port < 0 || *endpoint->port > 65535))))
        __builtin_trap();
      (void)mptrain::cluster::parse_rdzv_conf((*value)->value);
      const auto ranks = mptrain::cluster::parse_local_ranks((*value)->value, 4);
      if (ranks.ok()) {
        for (int rank : *ranks) {
          if (rank < 0 || rank >= 4) __builtin_trap();
        }
      }
    }
  }
  (void)mptrain::cluster::parse_error_file(text);
  return 0;
}
