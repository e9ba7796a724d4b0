#include "affinity/plan.hpp"

#include <array>

#include "util/names.hpp"

namespace mptrain::affinity {

std::string_view to_string(Bind bind) { return name_of(bind_names, bind, "none"); }

Result<Bind> parse_bind(std::string_view text) {
  if (const auto bind = value_named(bind_names, text)) return *bind;
  return Error{"unknown binding '" + std::string(text) + "'; use " + names_list(bind_names)};
}

}  // namespace mptrain::affinity
