#include "util/environment.hpp"

#include <unistd.h>

namespace mptrain {

std::vector<std::string> current_environment() {
  std::vector<std::string> entries;
  for (char** entry = ::environ; entry != nullptr && *entry != nullptr; ++entry) entries.emplace_back(*entry);
  return entries;
}

std::string_view variable_name(std::string_view entry) { return entry.substr(0, entry.find('=')); }

bool find_variable(const std::vector<std::string>& environment, std::string_view name, std::string* value) {
  for (const auto& entry : environment) {
    if (variable_name(entry) != name || entry.size() == name.size()) continue;
    if (value != nullptr) *value = entry.substr(name.size() + 1);
    return true;
  }
  if (value != nullptr) value->clear();
  return false;
}

}  // namespace mptrain
