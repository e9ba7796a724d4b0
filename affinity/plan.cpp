#include "affinity/plan.hpp"

namespace mptrain::affinity {

std::string_view to_string(Bind bind) {
  switch (bind) {
    case Bind::core:
      return "core";
    case Bind::numa:
      return "numa";
    case Bind::package:
      return "package";
    case Bind::none:
      return "none";
  }
  return "none";
}

Result<Bind> parse_bind(std::string_view text) {
  for (Bind bind : {Bind::core, Bind::numa, Bind::package, Bind::none}) {
    if (text == to_string(bind)) return bind;
  }
  return Error{"unknown binding '" + std::string(text) + "'; use core, numa, package or none"};
}

}  // namespace mptrain::affinity
