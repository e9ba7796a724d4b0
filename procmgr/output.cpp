#include "procmgr/output.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <optional>
#include <system_error>
#include <utility>

#include "util/file_lock.hpp"
#include "util/fs.hpp"
#include "util/names.hpp"
#include "util/text.hpp"

namespace mptrain::procmgr {

bool includes(Streams set, Streams streams) {
  const auto bits = static_cast<unsigned>(streams);
  return (static_cast<unsigned>(set) & bits) == bits;
}

namespace {

constexpr std::array stream_names{Named<Streams>{Streams::none, "none"}, Named<Streams>{Streams::out, "out"},
                                  Named<Streams>{Streams::err, "err"}, Named<Streams>{Streams::all, "all"}};
static_assert(static_cast<int>(stream_names[3].value) == 3, "row N is torchrun's number N");

}  // namespace

std::string to_string(Streams streams) { return std::string(name_of(stream_names, streams, "none")); }

Streams StreamChoice::for_rank(int rank) const {
  const auto it = per_rank.find(rank);
  return it == per_rank.end() ? every_rank : it->second;
}

namespace {

constexpr std::string_view accepted_forms =
    "give 0 (none), 1 (out), 2 (err) or 3 (all) for every rank, or RANK:VALUE pairs such as 0:3,1:err";

// `text` as a stream VALUE: a digit 0-3 or its word.
std::optional<Streams> parse_streams(std::string_view text) {
  // torchrun's numbers (0 none, 1 out, 2 err, 3 both) or the stream names.
  if (text.size() == 1 && text[0] >= '0' && text[0] <= '3')
    return stream_names[static_cast<std::size_t>(text[0] - '0')].value;
  return value_named(stream_names, text);
}

// "'PAIR'" or "'PAIR' in 'TEXT'" when `text` holds more than `pair`.
std::string quoted(std::string_view pair, std::string_view text) {
  return pair == text ? fmt::format("'{}'", pair) : fmt::format("'{}' in '{}'", pair, text);
}

// `text` as a rank: digits only, at most INT_MAX.
std::optional<int> parse_rank(std::string_view text) {
  const auto value = parse_u64(text);
  if (!value || *value > static_cast<std::uint64_t>(INT_MAX)) return std::nullopt;
  return static_cast<int>(*value);
}

}  // namespace

Result<StreamChoice> parse_stream_choice(std::string_view text) {
  if (text.empty()) return Error{fmt::format("the value is empty; {}", accepted_forms)};
  StreamChoice choice;
  if (text.find(':') == std::string_view::npos) {
    const auto streams = parse_streams(text);
    if (!streams) return Error{fmt::format("'{}' is not a stream choice; {}", text, accepted_forms)};
    choice.every_rank = *streams;
    return choice;
  }
  for (const auto pair : split(text, ',')) {
    const auto colon = pair.find(':');
    if (colon == std::string_view::npos) {
      return Error{fmt::format("{} is not RANK:VALUE; {}", quoted(pair, text), accepted_forms)};
    }
    const auto rank = parse_rank(pair.substr(0, colon));
    if (!rank) return Error{fmt::format("{} does not start with a rank (a whole number from 0)", quoted(pair, text))};
    const auto streams = parse_streams(pair.substr(colon + 1));
    if (!streams) return Error{fmt::format("{} is not RANK:VALUE; {}", quoted(pair, text), accepted_forms)};
    if (!choice.per_rank.emplace(*rank, *streams).second) {
      return Error{fmt::format("rank {} is named twice in '{}'; name each rank once", *rank, text)};
    }
  }
  return choice;
}

Destination destination(const StreamChoice& redirects, const StreamChoice& tee, int rank, Streams stream) {
  if (includes(tee.for_rank(rank), stream)) return Destination::file_and_console;
  if (includes(redirects.for_rank(rank), stream)) return Destination::file;
  return Destination::console;
}

std::string format_timestamp(std::chrono::system_clock::time_point time) {
  using namespace std::chrono;
  const auto milliseconds_since_epoch = floor<milliseconds>(time);
  const auto seconds_since_epoch = floor<std::chrono::seconds>(milliseconds_since_epoch);
  const std::time_t whole_seconds = system_clock::to_time_t(seconds_since_epoch);
  std::tm local{};
  ::localtime_r(&whole_seconds, &local);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}", local.tm_year + 1900, local.tm_mon + 1, local.tm_mday,
                     local.tm_hour, local.tm_min, local.tm_sec,
                     (milliseconds_since_epoch - seconds_since_epoch).count());
}

LineTagger::LineTagger(std::string tag, Timestamps timestamps, std::size_t max_line)
    : tag_(std::move(tag)), timestamps_(timestamps), max_line_(max_line) {}

void LineTagger::stamp() {
  if (timestamps_ == Timestamps::on) stamp_ = format_timestamp(std::chrono::system_clock::now()) + ' ';
}

void LineTagger::emit(std::string_view line, std::string& out) const {
  out += stamp_;
  out += tag_;
  out += line;
  out += '\n';
}

void LineTagger::cut_pieces(std::string& out) {
  if (partial_.size() <= max_line_) return;
  if (open_) {
    out += '\n';
    line_ended_elsewhere();
  }
  if (!splitting_) ++split_lines_;
  splitting_ = true;
  std::size_t start = 0;
  for (; partial_.size() - start > max_line_; start += max_line_) {
    emit(std::string_view(partial_).substr(start, max_line_), out);
  }
  partial_.erase(0, start);
}

void LineTagger::end_line(std::string& out) {
  cut_pieces(out);
  const std::string& last = partial_.empty() ? last_update_ : partial_;
  if (open_ && last == shown_) {
    out += '\n';  // its last update is on the console already
  } else {
    if (open_) out += '\r';
    emit(last, out);
  }
  partial_.clear();
  if (partial_.capacity() > 1024 * 1024) partial_.shrink_to_fit();  // a line of megabytes is rare: give it back
  last_update_.clear();
  shown_.clear();
  splitting_ = false;
  redrawn_ = false;
  open_ = false;
}

void LineTagger::show_update(std::string& out) {
  if (!redrawn_ || splitting_) return;
  const std::string& update = partial_.empty() ? last_update_ : partial_;
  if (update.empty() || (open_ && update == shown_)) return;
  out += '\r';
  out += stamp_;
  out += tag_;
  out += update;
  shown_ = update;
  open_ = true;
}

void LineTagger::line_ended_elsewhere() {
  open_ = false;
  shown_.clear();
}

void LineTagger::feed(std::string_view data, std::string& out) {
  stamp();
  while (!data.empty()) {
    const auto end = data.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      partial_ += data;
      break;
    }
    if (data[end] == '\n' && partial_.empty() && last_update_.empty() && !open_ && end <= max_line_) {
      emit(data.substr(0, end), out);  // the common case: a whole line in one piece of input
      redrawn_ = false;
    } else if (data[end] == '\n') {
      partial_ += data.substr(0, end);
      end_line(out);
    } else {
      // '\r': the update so far is whole; what follows draws over it.
      partial_ += data.substr(0, end);
      cut_pieces(out);
      if (!partial_.empty()) last_update_ = std::move(partial_);
      partial_.clear();
      redrawn_ = true;
    }
    data.remove_prefix(end + 1);
  }
  cut_pieces(out);
  show_update(out);
}

void LineTagger::finish(std::string& out) {
  if (partial_.empty() && last_update_.empty()) {
    if (open_) out += '\n';
    open_ = false;
    return;
  }
  stamp();
  end_line(out);
}

namespace {

// Waits until `fd` can be written (or has an error the next write reports).
void wait_writable(int fd) {
  pollfd entry{fd, POLLOUT, 0};
  while (::poll(&entry, 1, -1) < 0 && errno == EINTR) {
  }
}

}  // namespace

OutputSink::OutputSink(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}

void OutputSink::write(std::string_view data) {
  if (fd_ < 0) return;
  while (error_ == 0 && !data.empty()) {
    const ssize_t n = ::write(fd_, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EAGAIN) {
      wait_writable(fd_);
    } else if (n == 0 || errno != EINTR) {
      error_ = n < 0 ? errno : EIO;
    }
  }
  lost_ += data.size();
}

std::string OutputLoss::describe() const {
  return fmt::format("rank {}'s {}: {} {} not written to {}: {}", rank, stream == Streams::err ? "stderr" : "stdout",
                     bytes, bytes == 1 ? "byte" : "bytes", destination, std::strerror(error));
}

TailBuffer::TailBuffer(std::size_t max_lines, std::size_t max_line) : max_lines_(max_lines), max_line_(max_line) {}

void TailBuffer::push(std::string line) {
  if (line.size() > max_line_) line.resize(max_line_);
  lines_.push_back(std::move(line));
  while (lines_.size() > max_lines_) lines_.pop_front();
}

void TailBuffer::feed(std::string_view data) {
  while (!data.empty()) {
    const auto newline = data.find('\n');
    if (newline == std::string_view::npos) {
      if (partial_.size() < max_line_) partial_ += data.substr(0, max_line_ - partial_.size());
      break;
    }
    partial_ += data.substr(0, newline);
    push(std::exchange(partial_, std::string()));
    data.remove_prefix(newline + 1);
  }
}

std::string TailBuffer::text() const {
  std::string text;
  for (const auto& line : lines_) {
    if (!text.empty()) text += '\n';
    text += line;
  }
  if (!partial_.empty()) {
    if (!text.empty()) text += '\n';
    text += partial_;
  }
  return text;
}

std::string log_file_name(int rank, Streams stream) {
  return fmt::format("rank-{}.{}", rank, stream == Streams::err ? "err" : "out");
}

std::filesystem::path torchrun_rank_dir(const std::filesystem::path& dir, int attempt, int rank) {
  return dir / fmt::format("attempt_{}", attempt) / std::to_string(rank);
}

Status make_log_directory(const std::filesystem::path& dir) {
  std::error_code error;
  if (std::filesystem::exists(dir, error) && !std::filesystem::is_directory(dir, error)) {
    return Error{fmt::format(
        "the log directory {} is not a directory; give --log-dir a directory (one that does not exist yet is created)",
        dir.string())};
  }
  std::filesystem::create_directories(dir, error);
  if (!error) return ok_status();
  if (const auto blocker = first_non_directory(dir); !blocker.empty()) {
    return Error{fmt::format("--log-dir {}: {}, not a directory; give another path", dir.string(), blocker)};
  }
  return Error{fmt::format("--log-dir {}: cannot create it: {}; give a directory you can write to", dir.string(),
                           error.message())};
}

namespace {

// Removes a symbolic link at `path`, where mptrain makes a file or folder of its own: another user
// may have planted it to have mptrain write through it.
Status remove_link(const std::filesystem::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode) && ::unlink(path.c_str()) != 0) {
    return errno_error("cannot remove the old link", path.string());
  }
  return ok_status();
}

// Makes `dir`, a folder of mptrain's own inside --log-dir (attempt-N, torchrun's), never through a link.
Status make_own_directory(const std::filesystem::path& dir) {
  if (auto removed = remove_link(dir); !removed.ok()) return removed.error();
  return make_log_directory(dir);
}

// Opens `path` for writing, created or truncated, never through a symbolic
// link (one there is removed first, so the file is a new regular one, in every layout).
// Anything else that is not a regular file (a FIFO, a device, a directory)
// is refused at once: opened without blocking, never written.
Result<UniqueFd> open_log(const std::filesystem::path& path) {
  struct stat info {};
  if (auto removed = remove_link(path); !removed.ok()) return removed.error();
  const auto not_regular = [&path](const struct stat& found) {
    return Error{
        fmt::format("the log file {} is {}, not a regular file; mptrain leaves it as it is: remove it, or "
                    "give another --log-dir",
                    path.string(), file_kind(found.st_mode))};
  };
  if (::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) return not_regular(info);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW, 0644));
  if (!fd.valid()) return errno_error("cannot write the log file", path.string());
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) return not_regular(info);
  if (::ftruncate(fd.get(), 0) != 0) return errno_error("cannot truncate the log file", path.string());
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags >= 0) (void)::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

// Makes `dir`/`name` a symbolic link to `target` (relative to `dir`): a new
// link beside it renamed over it, so a reader never finds the name missing.
Status link_latest(const std::filesystem::path& dir, const std::string& target, const std::string& name) {
  const auto link = dir / name;
  const auto temp = dir / fmt::format(".{}.{}.tmp", name, ::getpid());
  ::unlink(temp.c_str());  // left by a run that died between the two steps
  if (::symlink(target.c_str(), temp.c_str()) != 0) return errno_error("cannot create the link", temp.string());
  if (::rename(temp.c_str(), link.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return errno_error("cannot replace", link.string(), error);
  }
  return ok_status();
}

}  // namespace

Result<std::vector<RankLogs>> open_logs(const std::filesystem::path& dir, LogLayout layout, int attempt,
                                        const std::vector<LoggedStreams>& ranks) {
  if (auto made = make_log_directory(dir); !made.ok()) return made.error();
  const std::string attempt_name = fmt::format("attempt-{}", attempt);
  const auto files_dir = layout == LogLayout::per_attempt ? dir / attempt_name : dir;
  if (layout == LogLayout::per_attempt) {
    if (auto made = make_own_directory(files_dir); !made.ok()) return made.error();
  }
  std::vector<RankLogs> logs;
  for (const auto& rank : ranks) {
    RankLogs rank_logs;
    const auto rank_dir = layout == LogLayout::torchrun ? torchrun_rank_dir(dir, attempt, rank.rank) : files_dir;
    if (layout == LogLayout::torchrun) {
      for (const auto& own : {rank_dir.parent_path(), rank_dir}) {  // attempt_N, then the rank's
        if (auto made = make_own_directory(own); !made.ok()) return made.error();
      }
    }
    for (const Streams stream : {Streams::out, Streams::err}) {
      if (!includes(rank.streams, stream)) continue;
      const auto name = layout == LogLayout::torchrun
                            ? std::string(stream == Streams::err ? "stderr.log" : "stdout.log")
                            : log_file_name(rank.rank, stream);
      auto fd = open_log(rank_dir / name);
      if (!fd.ok()) return fd.error();
      if (layout == LogLayout::per_attempt) {
        if (auto linked = link_latest(dir, fmt::format("{}/{}", attempt_name, name), name); !linked.ok())
          return linked.error();
      }
      (stream == Streams::out ? rank_logs.out : rank_logs.err) = std::move(*fd);
      (stream == Streams::out ? rank_logs.out_path : rank_logs.err_path) = rank_dir / name;
    }
    logs.push_back(std::move(rank_logs));
  }
  return logs;
}

namespace {

// The pid written in the lock file `fd`; 0 when it holds none.
long lock_holder(int fd) {
  char text[32] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  if (n <= 0) return 0;
  const auto pid = parse_u64(trim(std::string_view(text, static_cast<std::size_t>(n))));
  return pid && *pid <= static_cast<std::uint64_t>(INT_MAX) ? static_cast<long>(*pid) : 0;
}

// The message for a log directory `dir` whose lock file `fd` another process holds.
std::string in_use_message(const std::filesystem::path& dir, int fd) {
  const long pid = lock_holder(fd);
  return fmt::format(
      "--log-dir {} is in use by another mptrain run{}; wait for that run to end or give this one another "
      "directory (two runs would mix their workers' logs)",
      dir.string(), pid > 0 ? fmt::format(" (pid {})", pid) : std::string());
}

// Replaces the contents of lock file `fd` (at `path`) with this process's pid.
Status write_pid(int fd, const std::filesystem::path& path) {
  const auto text = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd, 0) != 0) return errno_error("cannot write the lock file", path.string());
  const ssize_t n = ::pwrite(fd, text.data(), text.size(), 0);
  // A short write sets no errno: say EIO rather than a stale one (or "Success").
  if (n != static_cast<ssize_t>(text.size())) {
    return errno_error("cannot write the lock file", path.string(), n < 0 ? errno : EIO);
  }
  return ok_status();
}

}  // namespace

Result<UniqueFd> lock_log_dir(const std::filesystem::path& dir) {
  if (auto made = make_log_directory(dir); !made.ok()) return made.error();
  const auto path = dir / log_lock_name;
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644));
  if (!fd.valid()) return errno_error("cannot create the log directory's lock file", path.string());
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return Error{fmt::format("the lock file {} is not a regular file; remove it", path.string())};
  }
  while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return Error{in_use_message(dir, fd.get())};
    if (errno != EINTR) return errno_error("cannot lock", path.string());
  }
  if (!holds_lock_content(fd.get())) {
    return Error{
        fmt::format("--log-dir {}: {} is a file of yours, not an mptrain lock file; mptrain leaves it as "
                    "it is: move it away, or give another --log-dir",
                    dir.string(), path.string())};
  }
  if (auto written = write_pid(fd.get(), path); !written.ok()) return written.error();
  return fd;
}

}  // namespace mptrain::procmgr
