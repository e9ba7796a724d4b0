#include "affinity/plan.hpp"

#include <fmt/format.h>

#include <array>

#include "util/names.hpp"

namespace mptrain::affinity {

std::string_view to_string(Bind bind) { return name_of(bind_names, bind, "none"); }

Result<Bind> parse_bind(std::string_view text) {
  if (const auto bind = value_named(bind_names, text)) return *bind;
  return Error{"unknown binding '" + std::string(text) + "'; use " + names_list(bind_names)};
}

Result<ProcessCountWord> process_count_word(std::string_view word) {
  if (word == "auto" || word == "cpu") return ProcessCountWord::one_per_cpu;
  if (word == "gpu" || word == "xpu") {
    return Error{
        fmt::format("{} counts {}s, and mptrain runs CPU workers: give a number of workers, or auto or cpu "
                    "for one per usable CPU",
                    word, word == "gpu" ? "GPU" : "XPU")};
  }
  return ProcessCountWord::number;
}

std::vector<std::string> notes_and_choices(const Plan& plan) {
  std::vector<std::string> notes = plan.notes;
  notes.insert(notes.end(), plan.choices.begin(), plan.choices.end());
  return notes;
}

}  // namespace mptrain::affinity
