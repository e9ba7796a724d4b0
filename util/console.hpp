// mptrain's lines on stderr: errors, warnings, notes and progress, each
// line's control bytes shown as \xHH so that nothing from a file name, an
// argument or the environment reaches the terminal raw.
#pragma once

#include <functional>
#include <string_view>

namespace mptrain {

// Prints "mptrain: error: `message`" on stderr; never throws. Control
// characters in `message` are shown as \xHH (printable()), its own line
// breaks kept.
void print_error(std::string_view message);
// Prints "mptrain: warning: `message`" on stderr, as print_error does.
void print_warning(std::string_view message);
// Prints "mptrain: note: `message`" on stderr, as print_error does.
void print_notice(std::string_view message);
// Prints `text` on stderr (progress, notes); never throws, a failed write is ignored.
void print_note(std::string_view text);
// Sets the function called before each of the prints above writes (empty:
// none) and returns the one it replaces. The launcher's is one that ends a
// worker's progress bar left mid-line, so that mptrain's line never joins it.
std::function<void()> set_console_line_hook(std::function<void()> hook);

}  // namespace mptrain
