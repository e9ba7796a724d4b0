#include "hogwild/isa.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>

#include "util/names.hpp"

namespace mptrain::hogwild {

namespace {

constexpr std::array isa_names{Named<Isa>{Isa::sse2, "sse2"}, Named<Isa>{Isa::avx2, "avx2"},
                               Named<Isa>{Isa::avx512, "avx512"}, Named<Isa>{Isa::generic, "generic"},
                               Named<Isa>{Isa::native, "native"}};

// "avx512, avx2 or sse2": the names of `isas` as a list for a message.
std::string name_list(std::span<const Isa> isas, std::string_view last_separator) {
  std::string names;
  for (std::size_t i = 0; i < isas.size(); ++i) {
    if (i > 0) names += i + 1 == isas.size() ? last_separator : ", ";
    names += to_string(isas[i]);
  }
  return names;
}

bool contains(std::span<const Isa> isas, Isa isa) { return std::find(isas.begin(), isas.end(), isa) != isas.end(); }

}  // namespace

std::string_view to_string(Isa isa) { return name_of(isa_names, isa); }

std::vector<Isa> runnable_isas() {
  std::vector<Isa> runnable;
  for (Isa isa : built_isas()) {
    if (cpu_supports(isa)) runnable.push_back(isa);
  }
  return runnable;
}

Result<Isa> choose_isa(std::string_view requested, std::span<const Isa> built, std::span<const Isa> runnable) {
  if (requested.empty()) return runnable.front();
  for (Isa isa : built) {
    if (requested != to_string(isa)) continue;
    if (contains(runnable, isa)) return isa;
    return Error{"MPTRAIN_ISA=" + std::string(requested) + ": this CPU cannot run the " + std::string(requested) +
                 " kernels; set MPTRAIN_ISA to " + name_list(runnable, " or ") + ", or unset it for the best one"};
  }
  return Error{"MPTRAIN_ISA=" + std::string(requested) + " names no kernel build of this binary; set it to " +
               name_list(built, " or ") + ", or unset it for the best one this CPU runs"};
}

const Result<IsaChoice>& isa_choice() {
  static const Result<IsaChoice> choice = []() -> Result<IsaChoice> {
    const char* value = std::getenv("MPTRAIN_ISA");
    const std::string_view requested = value != nullptr ? value : "";
    std::vector<Isa> runnable = runnable_isas();
    const Result<Isa> isa = choose_isa(requested, built_isas(), runnable);
    if (!isa.ok()) return isa.error();
    return IsaChoice{isa.value(), !requested.empty(), std::move(runnable)};
  }();
  return choice;
}

std::string describe(const IsaChoice& choice) {
  std::string text(to_string(choice.isa));
  text += " (this CPU runs " + name_list(choice.runnable, ", ");
  if (choice.forced) text += "; forced by MPTRAIN_ISA";
  return text + ")";
}

}  // namespace mptrain::hogwild
