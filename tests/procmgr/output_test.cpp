#include "procmgr/output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

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

TEST_CASE("empty lines are kept and an over-long partial line is emitted") {
  LineTagger tagger("> ", Timestamps::off, 4);
  std::string out;
  tagger.feed("\n", out);
  CHECK(out == "> \n");
  out.clear();
  tagger.feed("abcdef", out);
  CHECK(out == "> abcdef\n");
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
  CHECK(logs.error().message == "the log directory " + (dir / "file").string() +
                                    " is not a directory; remove that file or choose another directory");
  logs = open_logs(dir / "file/logs", LogLayout::per_attempt, 0, {{0, Streams::all}});
  REQUIRE_FALSE(logs.ok());
  CHECK(logs.error().message.starts_with("cannot create the log directory " + (dir / "file/logs").string() + ": "));
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
