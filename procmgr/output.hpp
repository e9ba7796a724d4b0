// Turning workers' raw output bytes into whole, rank-tagged lines, and
// keeping the last lines of a stream for the failure summary.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace mptrain::procmgr {

// Splits a byte stream into whole lines, each emitted with a prefix.
class LineTagger {
 public:
  // Lines get `prefix` (e.g. "[1] "; "" for none); a partial line longer
  // than `max_line` bytes is emitted as a line of its own.
  explicit LineTagger(std::string prefix, std::size_t max_line = 64 * 1024);

  // Appends to `out` every line completed by `data`, prefixed and with its
  // newline; an unfinished last line is held back for later calls.
  void feed(std::string_view data, std::string& out);
  // Appends the held unfinished line (if any), prefixed and newline-terminated.
  void finish(std::string& out);

 private:
  void emit(std::string_view line, std::string& out) const;

  std::string prefix_;
  std::size_t max_line_;
  std::string partial_;
};

// The last few lines of a byte stream.
class TailBuffer {
 public:
  // Keeps at most `max_lines` lines, each cut to `max_line` bytes.
  explicit TailBuffer(std::size_t max_lines = 10, std::size_t max_line = 512);

  // Adds the bytes `data` to the stream.
  void feed(std::string_view data);
  // The kept lines, newline-separated, with any unfinished last line; "" when none.
  std::string text() const;

 private:
  void push(std::string line);

  std::size_t max_lines_;
  std::size_t max_line_;
  std::deque<std::string> lines_;
  std::string partial_;
};

}  // namespace mptrain::procmgr
