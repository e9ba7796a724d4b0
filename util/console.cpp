#include "util/console.hpp"

#include <cstdio>
#include <string>
#include <utility>

#include "util/text.hpp"

namespace mptrain {

namespace {

// Called before each line mptrain prints on stderr (set_console_line_hook).
std::function<void()>& line_hook() {
  static std::function<void()> hook;
  return hook;
}

// `message` after `prefix`, each of its lines through printable(): bytes
// from arguments, the environment or file names reach no terminal raw.
std::string prefixed(std::string_view prefix, std::string_view message) {
  std::string out(prefix);
  const auto lines = split(message, '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += '\n';
    out += printable(lines[i]);
  }
  return out + '\n';
}

}  // namespace

void print_error(std::string_view message) { print_note(prefixed("mptrain: error: ", message)); }

void print_warning(std::string_view message) { print_note(prefixed("mptrain: warning: ", message)); }

void print_notice(std::string_view message) { print_note(prefixed("mptrain: note: ", message)); }

void print_note(std::string_view text) {
  if (text.empty()) return;
  if (const auto& hook = line_hook()) hook();
  (void)std::fwrite(text.data(), 1, text.size(), stderr);
}

std::function<void()> set_console_line_hook(std::function<void()> hook) {
  std::swap(line_hook(), hook);
  return hook;
}

}  // namespace mptrain
