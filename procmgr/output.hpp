// Workers' output: which streams go to log files and which to the console
// (torchrun's redirects and tee), whole console lines with an optional
// timestamp and rank tag, writes that count what a failing destination lost,
// the log files of each attempt and the lock on their directory, and the
// last lines of a stream for the failure summary.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/fd.hpp"
#include "util/result.hpp"

namespace mptrain::procmgr {

// A set of a worker's standard streams, numbered as torchrun numbers them.
enum class Streams { none = 0, out = 1, err = 2, all = 3 };

// True when the set `set` holds every stream of `streams`.
bool includes(Streams set, Streams streams);
// "none", "out", "err" or "all".
std::string to_string(Streams streams);

// Which streams of which rank an option such as --redirects or --tee names.
struct StreamChoice {
  Streams every_rank = Streams::none;  // for every rank `per_rank` does not name
  std::map<int, Streams> per_rank;     // from the "RANK:VALUE,..." form

  // The streams chosen for rank `rank`.
  Streams for_rank(int rank) const;
};

// Parses `text` as torchrun writes a --redirects or --tee value: one VALUE
// for every rank, or "RANK:VALUE" pairs separated by commas (ranks not named
// get none); a VALUE is 0, 1, 2, 3 or the word none, out, err, all. Returns
// an Error saying what is wrong (an empty text, an unknown value, a rank named
// twice) and what the accepted forms are.
Result<StreamChoice> parse_stream_choice(std::string_view text);

// Where one stream of a worker goes.
enum class Destination { console, file, file_and_console };

// Where stream `stream` (out or err) of rank `rank` goes: its log file and
// the console when `tee` names it (tee wins over redirects), its log file
// only when `redirects` does, the console only otherwise.
Destination destination(const StreamChoice& redirects, const StreamChoice& tee, int rank, Streams stream);

// Whether console lines start with the time mptrain read them.
enum class Timestamps { off, on };

// `time` as local wall-clock time to the millisecond, "2026-11-22T03:10:11.123".
std::string format_timestamp(std::chrono::system_clock::time_point time);

// The longest line LineTagger holds whole by default: 16 MiB.
inline constexpr std::size_t max_line_bytes = 16 * 1024 * 1024;

// Splits a byte stream into whole lines, each emitted with a prefix; a
// progress bar that redraws itself with carriage returns is passed on live.
class LineTagger {
 public:
  // Lines get `tag` (e.g. "[1] "; "" for none), preceded with
  // Timestamps::on by format_timestamp() of the time the line's end was fed
  // and a space; a line longer than `max_line` bytes is emitted in pieces of
  // `max_line` bytes, each a line of its own.
  explicit LineTagger(std::string tag, Timestamps timestamps = Timestamps::off, std::size_t max_line = max_line_bytes);

  // Appends to `out` every line completed by `data`, prefixed and with its
  // newline. A line redrawn with '\r' (a progress bar) is shown as it is
  // drawn: the latest whole update of each call, "\r" + prefix + update,
  // with no newline (open() is then true), so the prefix is never drawn
  // over; updates replaced within one call are not shown, and the line's
  // end writes its last update and the newline. Any other unfinished line
  // is held back for later calls.
  void feed(std::string_view data, std::string& out);
  // Appends the held unfinished line (if any), prefixed and newline-terminated.
  void finish(std::string& out);
  // Whether the console shows an unfinished update of this stream (its cursor mid-line).
  bool open() const { return open_; }
  // Another writer ended the console line this stream had left open: its next update starts afresh.
  void line_ended_elsewhere();
  // How many lines so far were longer than `max_line` and emitted in pieces.
  std::uint64_t split_lines() const { return split_lines_; }

 private:
  void stamp();
  void emit(std::string_view line, std::string& out) const;
  // Emits pieces of `max_line_` bytes from the held line while it is longer.
  void cut_pieces(std::string& out);
  // Ends the current line: its last update (or the held text) and a newline.
  void end_line(std::string& out);
  // Shows the current update of a line drawn with '\r', when it changed.
  void show_update(std::string& out);

  std::string tag_;
  Timestamps timestamps_;
  std::size_t max_line_;
  std::string partial_;      // the line's text since its last '\r' or '\n'
  std::string last_update_;  // the line's last whole update, ended by '\r'
  std::string shown_;        // the update on the console now (open_)
  std::string stamp_;        // the timestamp and space of the lines emitted by the current call
  std::uint64_t split_lines_ = 0;
  bool splitting_ = false;  // the held line continues one already emitted in part
  bool redrawn_ = false;    // the current line holds a '\r': a progress bar, shown live
  bool open_ = false;       // an update of this line is on the console without its newline
};

// One destination of a worker's stream, a log file or the console, that
// writes everything it is given until a write fails, then writes nothing
// more and counts the bytes it did not write.
class OutputSink {
 public:
  // A sink that writes nothing and loses nothing (a stream not sent there).
  OutputSink() = default;
  // A sink writing to `fd` (not owned), named `name` in messages ("/dev/stdout", a log file's path).
  OutputSink(int fd, std::string name);

  // True when the sink has a destination.
  bool valid() const { return fd_ >= 0; }
  // Writes all of `data`, retrying on EINTR and short writes and waiting
  // while a non-blocking `fd` is full; after a failed write (now or
  // before) the bytes not written are counted instead.
  void write(std::string_view data);
  // The errno of the first failed write; 0 while none failed.
  int error() const { return error_; }
  // The bytes not written since the first failed write.
  std::uint64_t lost() const { return lost_; }
  // The destination's name, as given.
  const std::string& name() const { return name_; }

 private:
  int fd_ = -1;
  std::string name_;
  int error_ = 0;
  std::uint64_t lost_ = 0;
};

// Output of a worker that mptrain could not write where it was to go.
struct OutputLoss {
  int rank = 0;
  Streams stream = Streams::out;  // out or err
  std::string destination;        // "/dev/stdout", "/dev/stderr" or a log file's path
  int error = 0;                  // errno of the first failed write
  std::uint64_t bytes = 0;        // bytes not written from that write on

  // "rank 0's stdout: 123456 bytes not written to /dev/stdout: No space left on device".
  std::string describe() const;
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

// Where the log files of the attempts of a group are.
enum class LogLayout {
  flat,         // DIR/rank-R.out and DIR/rank-R.err (one attempt)
  per_attempt,  // DIR/attempt-A/rank-R.out and .err, with DIR/rank-R.out and .err links to the latest attempt's
  torchrun,     // DIR/attempt_A/R/stdout.log and stderr.log, as torchrun writes them (R: the local rank)
};

// The folder of rank `rank`'s files in attempt `attempt` under LogLayout::torchrun: DIR/attempt_A/R.
std::filesystem::path torchrun_rank_dir(const std::filesystem::path& dir, int attempt, int rank);

// The log file name of stream `stream` (out or err) of rank `rank`: "rank-1.out".
std::string log_file_name(int rank, Streams stream);

// Which streams of a rank go to log files.
struct LoggedStreams {
  int rank = 0;
  Streams streams = Streams::none;
};

// One rank's open log files; a descriptor is invalid (and its path empty) for a stream not logged.
struct RankLogs {
  UniqueFd out;
  UniqueFd err;
  std::filesystem::path out_path;
  std::filesystem::path err_path;
};

// Creates `dir` (with LogLayout::per_attempt its attempt-`attempt`
// folder; with torchrun every rank's folder, logged or not) and opens,
// truncated, the log file of each stream of `ranks`; with per_attempt,
// DIR/rank-R.out and .err are then made symbolic links to the new files,
// each replaced atomically (a new link renamed over the old name); with
// flat, a link left there by an earlier per-attempt run is removed first,
// so it is not written through. Returns one RankLogs per entry of `ranks`,
// or an Error naming the path that cannot be created or written.
Result<std::vector<RankLogs>> open_logs(const std::filesystem::path& dir, LogLayout layout, int attempt,
                                        const std::vector<LoggedStreams>& ranks);

// Creates the log directory `dir` and its parents; an Error naming
// --log-dir when it cannot, or when `dir` (or a folder above it) is
// something else.
Status make_log_directory(const std::filesystem::path& dir);

// The file in a log directory that a run holding it locks: ".mptrain.lock".
inline constexpr std::string_view log_lock_name = ".mptrain.lock";

// Creates `dir` if needed and takes an exclusive advisory lock (flock) on
// its lock file (log_lock_name), writing this process's pid there; the lock
// lasts while the returned descriptor is open. Returns an Error saying
// "--log-dir DIR is in use by another mptrain run (pid N)" when another
// process holds it, or naming the path that cannot be created or opened.
Result<UniqueFd> lock_log_dir(const std::filesystem::path& dir);

}  // namespace mptrain::procmgr
