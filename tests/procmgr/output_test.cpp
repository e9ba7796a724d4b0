#include "procmgr/output.hpp"

#include <catch2/catch.hpp>

using mptrain::procmgr::LineTagger;
using mptrain::procmgr::TailBuffer;

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
  LineTagger tagger("> ", 4);
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
