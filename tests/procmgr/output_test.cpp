#include "procmgr/output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/procmgr/temp_files.hpp"

using namespace mptrain::procmgr;
using mptrain::test::make_temp_dir;
using mptrain::test::slurp;
using namespace std::chrono_literals;

namespace {

// Parses `text`, which must be a valid stream choice.
StreamChoice parsed(std::string_view text) {
  auto choice = parse_stream_choice(text);
  REQUIRE(choice.ok());
  return *choice;
}

// The message of parsing `text`, which must be refused.
std::string refusal(std::string_view text) {
  auto choice = parse_stream_choice(text);
  REQUIRE_FALSE(choice.ok());
  return choice.error().message;
}

// Writes `text` to descriptor `fd`.
void write_text(const mptrain::UniqueFd& fd, std::string_view text) {
  REQUIRE(::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size()));
}

// Runs the rest of a test with the local time zone set to `zone`, restoring it after.
class LocalZone {
 public:
  explicit LocalZone(const char* zone) {
    if (const char* old = std::getenv("TZ")) old_ = old;
    ::setenv("TZ", zone, 1);
    ::tzset();
  }
  ~LocalZone() {
    if (old_.empty()) {
      ::unsetenv("TZ");
    } else {
      ::setenv("TZ", old_.c_str(), 1);
    }
    ::tzset();
  }

 private:
  std::string old_;
};

}  // namespace

TEST_CASE("complete lines are tagged one by one") {
  LineTagger tagger("[1] ");
  std::string out;
  tagger.feed("a\nbb\n", out);
  CHECK(out == "[1] a\n[1] bb\n");
  tagger.finish(out);
  CHECK(out == "[1] a\n[1] bb\n");  // nothing was held back
}

TEST_CASE("a partial line is held until its newline arrives") {
  LineTagger tagger("[0] ");
  std::string out;
  tagger.feed("hel", out);
  CHECK(out.empty());
  tagger.feed("lo\nwor", out);
  CHECK(out == "[0] hello\n");
  tagger.feed("ld\n", out);
  CHECK(out == "[0] hello\n[0] world\n");
}

TEST_CASE("an unfinished last line is flushed with a newline at the end") {
  LineTagger tagger("[2] ");
  std::string out;
  tagger.feed("done\nno newline", out);
  tagger.finish(out);
  CHECK(out == "[2] done\n[2] no newline\n");
  out.clear();
  tagger.finish(out);
  CHECK(out.empty());
}

TEST_CASE("two streams fed in alternating pieces never mix within a line") {
  LineTagger first("[0] ");
  LineTagger second("[1] ");
  std::string out;
  first.feed("aaa", out);
  second.feed("bbb", out);
  first.feed("AAA\n", out);
  second.feed("BBB\nccc\n", out);
  CHECK(out == "[0] aaaAAA\n[1] bbbBBB\n[1] ccc\n");
}

TEST_CASE("empty lines are kept and an over-long partial line is emitted in pieces of the limit") {
  LineTagger tagger("> ", Timestamps::off, 4);
  std::string out;
  tagger.feed("\n", out);
  CHECK(out == "> \n");
  out.clear();
  tagger.feed("abcdefghi", out);
  CHECK(out == "> abcd\n> efgh\n");  // "i" may still be followed by more of the line
  tagger.feed("j\n", out);
  CHECK(out == "> abcd\n> efgh\n> ij\n");
  CHECK(tagger.split_lines() == 1);
}

TEST_CASE("a line of exactly the limit is whole, one byte more is split, a long complete line too") {
  LineTagger tagger("", Timestamps::off, 4);
  std::string out;
  tagger.feed("abcd", out);
  tagger.feed("\n", out);
  CHECK(out == "abcd\n");
  CHECK(tagger.split_lines() == 0);
  out.clear();
  tagger.feed("abcde\n12345678\nxy\n", out);
  CHECK(out == "abcd\ne\n1234\n5678\nxy\n");
  CHECK(tagger.split_lines() == 2);
  out.clear();
  tagger.feed("vwxyz", out);
  tagger.finish(out);
  CHECK(out == "vwxy\nz\n");
  CHECK(tagger.split_lines() == 3);
}

TEST_CASE("lines of megabytes fed in small pieces by two streams come out whole, tagged once") {
  const std::string first_line(3 * 1024 * 1024, 'a');
  const std::string second_line(3 * 1024 * 1024, 'b');
  LineTagger first("[0] ");
  LineTagger second("[1] ");
  std::string out;
  for (std::size_t at = 0; at < first_line.size(); at += 16 * 1024) {
    first.feed(std::string_view(first_line).substr(at, 16 * 1024), out);
    second.feed(std::string_view(second_line).substr(at, 16 * 1024), out);
  }
  CHECK(out.empty());
  second.feed("b\n", out);
  first.feed("\n", out);
  const bool whole = out == "[1] " + second_line + "b\n[0] " + first_line + "\n";  // not printed: megabytes
  CHECK(whole);
  CHECK(first.split_lines() + second.split_lines() == 0);
  CHECK(max_line_bytes == 16u * 1024 * 1024);
}

TEST_CASE("the tail keeps the last lines only") {
  TailBuffer tail(2);
  CHECK(tail.text().empty());
  tail.feed("one\ntwo\nth");
  tail.feed("ree\nfour");
  CHECK(tail.text() == "two\nthree\nfour");
}

TEST_CASE("the tail cuts long lines") {
  TailBuffer tail(3, 5);
  tail.feed("0123456789\n");
  CHECK(tail.text() == "01234");
}

TEST_CASE("without a tag lines are still emitted whole") {
  LineTagger tagger("");
  std::string out;
  tagger.feed("par", out);
  CHECK(out.empty());
  tagger.feed("tial\nnext", out);
  CHECK(out == "partial\n");
  tagger.finish(out);
  CHECK(out == "partial\nnext\n");
}

TEST_CASE("a progress bar redrawn with carriage returns is passed on live, each whole update tagged") {
  LineTagger tagger("[0] ");
  std::string out;
  // tqdm's way: "\r" before each update, no newline until the bar closes.
  tagger.feed("\r  5%|#    | 5/100", out);
  CHECK(out == "\r[0]   5%|#    | 5/100");
  CHECK(tagger.open());
  out.clear();
  // Two updates in one read: the latest is shown, the one it replaces is not.
  tagger.feed("\r 10%|#    | 10/100\r 20%|##   | 20/100", out);
  CHECK(out == "\r[0]  20%|##   | 20/100");
  out.clear();
  // The bar closes: its last update is on the console already, so only the newline.
  tagger.feed("\n", out);
  CHECK(out == "\n");
  CHECK_FALSE(tagger.open());
  out.clear();
  // The other way: text, then "\r" after it; the next plain line ends it.
  tagger.feed("epoch 1 50%\r", out);
  CHECK(out == "\r[0] epoch 1 50%");
  out.clear();
  tagger.feed("epoch 1 done\nnext line\n", out);
  CHECK(out == "\r[0] epoch 1 done\n[0] next line\n");
}

TEST_CASE("a bar left open by one stream is ended by another writer, and starts afresh after") {
  LineTagger bar("[0] ");
  std::string out;
  bar.feed("\r 50%", out);
  bar.line_ended_elsewhere();  // another rank printed a line (the launcher wrote "\n" first)
  CHECK_FALSE(bar.open());
  out.clear();
  bar.feed("\n", out);
  CHECK(out == "[0]  50%\n");  // its last state, on a line of its own
  out.clear();
  // A stream that ends inside an update: its last state and a newline.
  bar.feed("\r 70%", out);
  out.clear();
  bar.finish(out);
  CHECK(out == "\n");
  // A plain unfinished line is still held back, not drawn: it has no carriage return.
  LineTagger plain("[1] ");
  out.clear();
  plain.feed("Loading", out);
  CHECK(out.empty());
  CHECK_FALSE(plain.open());
  // Windows line ends: the carriage return is no update, the line comes out once.
  plain.feed("... done\r\n", out);
  CHECK(out == "[1] Loading... done\n");
}

TEST_CASE("a timestamp is local time to the millisecond") {
  const LocalZone utc("UTC");
  const auto time = std::chrono::system_clock::from_time_t(1795317011) + 123ms;  // 2026-11-22 03:10:11 UTC
  CHECK(format_timestamp(time) == "2026-11-22T03:10:11.123");
  CHECK(format_timestamp(std::chrono::system_clock::from_time_t(1795317011)) == "2026-11-22T03:10:11.000");
  const LocalZone tokyo("JST-9");
  CHECK(format_timestamp(time) == "2026-11-22T12:10:11.123");
}

TEST_CASE("timestamped lines start with the time, then the tag") {
  LineTagger tagger("[1] ", Timestamps::on);
  std::string out;
  tagger.feed("hello\nworld\nrest", out);
  tagger.finish(out);
  const std::regex three_lines("(" + std::string(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} \[1\] [a-z]+\n)") + "){3}");
  CHECK(std::regex_match(out, three_lines));
  CHECK(out.find(" [1] hello\n") != std::string::npos);
  CHECK(out.find(" [1] rest\n") != std::string::npos);
  std::string untagged;
  LineTagger("", Timestamps::on).feed("x\n", untagged);
  CHECK(std::regex_match(untagged, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} x\n)")));
}

TEST_CASE("a stream choice is a digit or word for every rank") {
  CHECK(parsed("0").every_rank == Streams::none);
  CHECK(parsed("1").every_rank == Streams::out);
  CHECK(parsed("2").every_rank == Streams::err);
  CHECK(parsed("3").every_rank == Streams::all);
  CHECK(parsed("none").every_rank == Streams::none);
  CHECK(parsed("out").every_rank == Streams::out);
  CHECK(parsed("err").every_rank == Streams::err);
  const auto all = parsed("all");
  CHECK(all.every_rank == Streams::all);
  CHECK(all.per_rank.empty());
  CHECK(all.for_rank(7) == Streams::all);
}

TEST_CASE("a per-rank stream choice gives ranks it does not name no streams") {
  const auto choice = parsed("0:3,1:0,12:err,2:out");
  CHECK(choice.for_rank(0) == Streams::all);
  CHECK(choice.for_rank(1) == Streams::none);
  CHECK(choice.for_rank(2) == Streams::out);
  CHECK(choice.for_rank(12) == Streams::err);
  CHECK(choice.for_rank(3) == Streams::none);
  CHECK(choice.per_rank.size() == 4);
}

TEST_CASE("a malformed stream choice is refused with the accepted forms") {
  CHECK(refusal("").find("the value is empty") != std::string::npos);
  CHECK(refusal("4") ==
        "'4' is not a stream choice; give 0 (none), 1 (out), 2 (err) or 3 (all) for every rank, "
        "or RANK:VALUE pairs such as 0:3,1:err");
  CHECK(refusal("both").starts_with("'both' is not a stream choice"));
  CHECK(refusal("ALL").starts_with("'ALL' is not a stream choice"));
  CHECK(refusal(" 1").starts_with("' 1' is not a stream choice"));
  CHECK(refusal("0:4").starts_with("'0:4' is not RANK:VALUE"));
  CHECK(refusal("0:1,1").starts_with("'1' in '0:1,1' is not RANK:VALUE"));
  CHECK(refusal("0:1,").starts_with("'' in '0:1,' is not RANK:VALUE"));
  CHECK(refusal("x:1").starts_with("'x:1' does not start with a rank"));
  CHECK(refusal("-1:1").starts_with("'-1:1' does not start with a rank"));
  CHECK(refusal("99999999999:1").starts_with("'99999999999:1' does not start with a rank"));
  CHECK(refusal("0:1,0:2") == "rank 0 is named twice in '0:1,0:2'; name each rank once");
}

TEST_CASE("tee wins over redirects, and a stream named by neither goes to the console") {
  const auto redirects = parsed("0:3,1:1");
  const auto tee = parsed("0:2,2:3");
  CHECK(destination(redirects, tee, 0, Streams::out) == Destination::file);
  CHECK(destination(redirects, tee, 0, Streams::err) == Destination::file_and_console);
  CHECK(destination(redirects, tee, 1, Streams::out) == Destination::file);
  CHECK(destination(redirects, tee, 1, Streams::err) == Destination::console);
  CHECK(destination(redirects, tee, 2, Streams::out) == Destination::file_and_console);
  CHECK(destination(redirects, tee, 3, Streams::err) == Destination::console);
}

TEST_CASE("a set of streams includes its parts") {
  CHECK(includes(Streams::all, Streams::out));
  CHECK(includes(Streams::all, Streams::err));
  CHECK(includes(Streams::err, Streams::err));
  CHECK_FALSE(includes(Streams::out, Streams::err));
  CHECK_FALSE(includes(Streams::none, Streams::out));
  CHECK(to_string(Streams::err) == "err");
}

TEST_CASE("flat logs are rank-R.out and rank-R.err for the streams logged only") {
  const auto dir = make_temp_dir();
  auto logs = open_logs(dir / "logs", LogLayout::flat, 0, {{0, Streams::all}, {1, Streams::err}});
  REQUIRE(logs.ok());
  REQUIRE(logs->size() == 2);
  CHECK((*logs)[0].out.valid());
  CHECK((*logs)[0].err.valid());
  CHECK_FALSE((*logs)[1].out.valid());
  write_text((*logs)[1].err, "oops\n");
  CHECK(slurp(dir / "logs/rank-1.err") == "oops\n");
  CHECK(std::filesystem::exists(dir / "logs/rank-0.out"));
  CHECK_FALSE(std::filesystem::exists(dir / "logs/rank-1.out"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("per-attempt logs keep each attempt apart and link the latest") {
  const auto dir = make_temp_dir();
  for (int attempt : {0, 1}) {
    auto logs = open_logs(dir, LogLayout::per_attempt, attempt, {{0, Streams::all}});
    REQUIRE(logs.ok());
    write_text((*logs)[0].out, "attempt " + std::to_string(attempt) + "\n");
  }
  CHECK(slurp(dir / "attempt-0/rank-0.out") == "attempt 0\n");
  CHECK(slurp(dir / "attempt-1/rank-0.out") == "attempt 1\n");
  CHECK(std::filesystem::is_symlink(dir / "rank-0.out"));
  CHECK(std::filesystem::read_symlink(dir / "rank-0.out") == "attempt-1/rank-0.out");
  CHECK(std::filesystem::read_symlink(dir / "rank-0.err") == "attempt-1/rank-0.err");
  CHECK(slurp(dir / "rank-0.out") == "attempt 1\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++entries;
  CHECK(entries == 4);  // two attempts and two links: no temporary link left behind
  std::filesystem::remove_all(dir);
}

TEST_CASE("flat logs replace a link an earlier per-attempt run left instead of writing through it") {
  const auto dir = make_temp_dir();
  {
    auto logs = open_logs(dir, LogLayout::per_attempt, 0, {{0, Streams::out}});
    REQUIRE(logs.ok());
    write_text((*logs)[0].out, "kept\n");
  }
  auto logs = open_logs(dir, LogLayout::flat, 0, {{0, Streams::out}});
  REQUIRE(logs.ok());
  write_text((*logs)[0].out, "new\n");
  CHECK_FALSE(std::filesystem::is_symlink(dir / "rank-0.out"));
  CHECK(slurp(dir / "rank-0.out") == "new\n");
  CHECK(slurp(dir / "attempt-0/rank-0.out") == "kept\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a log directory that is a file or under one is an error naming it") {
  const auto dir = make_temp_dir();
  std::ofstream(dir / "file") << "x";
  auto logs = open_logs(dir / "file", LogLayout::flat, 0, {{0, Streams::all}});
  REQUIRE_FALSE(logs.ok());
  CHECK(logs.error().message ==
        "the log directory " + (dir / "file").string() +
            " is not a directory; give --log-dir a directory (one that does not exist yet is created)");
  logs = open_logs(dir / "file/logs", LogLayout::per_attempt, 0, {{0, Streams::all}});
  REQUIRE_FALSE(logs.ok());
  CHECK(logs.error().message == "--log-dir " + (dir / "file/logs").string() + ": " + (dir / "file").string() +
                                    " is a regular file, not a directory; give another path");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a log directory that cannot be written is an error naming the file") {
  if (::geteuid() == 0) return;  // root writes into a read-only directory: nothing to check
  const auto dir = make_temp_dir();
  std::filesystem::create_directory(dir / "ro");
  ::chmod((dir / "ro").c_str(), 0555);
  auto logs = open_logs(dir / "ro", LogLayout::flat, 0, {{0, Streams::all}});
  REQUIRE_FALSE(logs.ok());
  CHECK(logs.error().message ==
        "cannot write the log file " + (dir / "ro/rank-0.out").string() + ": Permission denied");
  std::filesystem::remove_all(dir);
}

TEST_CASE("a sink to /dev/full keeps the first error and counts every byte it could not write") {
  mptrain::UniqueFd full(::open("/dev/full", O_WRONLY | O_CLOEXEC));
  REQUIRE(full.valid());
  OutputSink sink(full.get(), "/dev/full");
  sink.write("hello\n");
  sink.write(std::string(100000, 'x'));
  CHECK(sink.error() == ENOSPC);
  CHECK(sink.lost() == 100006);
  CHECK(sink.name() == "/dev/full");
  OutputSink none;
  none.write("dropped");
  CHECK_FALSE(none.valid());
  CHECK(none.error() == 0);
  CHECK(none.lost() == 0);
}

TEST_CASE("a sink to a pipe whose reader left stops at EPIPE and writes nothing more") {
  auto pipe = mptrain::make_pipe(mptrain::PipeMode::blocking);
  REQUIRE(pipe.ok());
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previous);
  OutputSink sink(pipe->write.get(), "/dev/stdout");
  sink.write("read\n");
  char buffer[16] = {};
  REQUIRE(::read(pipe->read.get(), buffer, sizeof buffer) == 5);
  pipe->read.reset();
  sink.write("lost\n");
  ::sigaction(SIGPIPE, &previous, nullptr);
  CHECK(sink.error() == EPIPE);
  CHECK(sink.lost() == 5);
}

TEST_CASE("a sink to a full non-blocking pipe waits for room instead of losing bytes") {
  auto pipe = mptrain::make_pipe(mptrain::PipeMode::nonblocking_both);
  REQUIRE(pipe.ok());
  const std::string data(1024 * 1024, 'z');  // far more than a pipe holds
  std::size_t received = 0;
  std::thread reader([&] {
    ::fcntl(pipe->read.get(), F_SETFL, 0);  // blocking reads
    char buffer[65536];
    for (ssize_t n; (n = ::read(pipe->read.get(), buffer, sizeof buffer)) > 0;) received += static_cast<std::size_t>(n);
  });
  OutputSink sink(pipe->write.get(), "pipe");
  sink.write(data);
  pipe->write.reset();
  reader.join();
  CHECK(sink.error() == 0);
  CHECK(sink.lost() == 0);
  CHECK(received == data.size());
}

TEST_CASE("a loss names the rank, the stream, the bytes, the destination and why") {
  CHECK(OutputLoss{0, Streams::out, "/dev/stdout", ENOSPC, 123456}.describe() ==
        "rank 0's stdout: 123456 bytes not written to /dev/stdout: No space left on device");
  CHECK(OutputLoss{3, Streams::err, "logs/rank-3.err", EPIPE, 1}.describe() ==
        "rank 3's stderr: 1 byte not written to logs/rank-3.err: Broken pipe");
}

TEST_CASE("a log directory is locked by one holder at a time, which it names") {
  const auto dir = make_temp_dir();
  {
    auto held = lock_log_dir(dir / "logs");
    REQUIRE(held.ok());
    CHECK(slurp(dir / "logs" / std::string(log_lock_name)) == std::to_string(::getpid()) + "\n");
    auto refused = lock_log_dir(dir / "logs");  // another open file description: flock refuses it
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.starts_with("--log-dir " + (dir / "logs").string() +
                                              " is in use by another mptrain run (pid " + std::to_string(::getpid()) +
                                              "); wait for that run to end"));
  }
  auto again = lock_log_dir(dir / "logs");  // released with its descriptor
  CHECK(again.ok());
  std::filesystem::remove_all(dir);
}

TEST_CASE("a lock file that is a link or a directory is refused") {
  const auto dir = make_temp_dir();
  std::filesystem::create_directory(dir / "a");
  std::filesystem::create_symlink(dir / "elsewhere", dir / "a" / std::string(log_lock_name));
  auto linked = lock_log_dir(dir / "a");
  REQUIRE_FALSE(linked.ok());
  CHECK(linked.error().message.starts_with("cannot create the log directory's lock file " +
                                           (dir / "a/.mptrain.lock").string()));
  CHECK_FALSE(std::filesystem::exists(dir / "elsewhere"));
  std::filesystem::create_directories(dir / "b" / std::string(log_lock_name));
  auto directory = lock_log_dir(dir / "b");
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().message.starts_with("cannot create the log directory's lock file " +
                                              (dir / "b/.mptrain.lock").string()));
  std::filesystem::remove_all(dir);
}
