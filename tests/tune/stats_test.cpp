#include "tune/stats.hpp"

#include <catch2/catch.hpp>
#include <cmath>

using namespace mptrain::tune;

TEST_CASE("a spread is the median, min and max - the noise is the median relative spread of the repeated") {
  const Spread s = spread_of({10, 12, 11});
  CHECK(s.median == 11);
  CHECK(s.min == 10);
  CHECK(s.max == 12);
  CHECK(relative_spread(s) == Approx(2.0 / 11));
  CHECK_FALSE(round_noise({Measured{{5}}, Measured{{7}}}).has_value());
  CHECK(round_noise({Measured{{100, 110}}, Measured{{50, 51}}, Measured{{20, 30}}, Measured{{9}}}) ==
        Approx(10.0 / 105));
}

TEST_CASE("clearly worse is less than half the best's rate, or more than twice its time") {
  CHECK(clearly_worse(49, 100, true));
  CHECK_FALSE(clearly_worse(51, 100, true));
  CHECK(clearly_worse(2.1, 1, false));
  CHECK_FALSE(clearly_worse(1.9, 1, false));
  CHECK(speedup(200, 100, true) == Approx(2));
  CHECK(speedup(1, 2, false) == Approx(2));
}

namespace {
// The baseline's measurement: what the user runs today.
Measured bare(std::vector<double> values) {
  Measured m{std::move(values), 0};
  m.baseline = true;
  return m;
}
}  // namespace

TEST_CASE("a winner is named when its lead over the baseline exceeds the noise between rounds") {
  const std::vector<Measured> candidates{bare({100, 102, 101}), Measured{{150, 148, 152}, 1}, Measured{{120, 118}, 3}};
  const Decision d = decide(candidates, true);
  REQUIRE(d.winner.has_value());
  CHECK(*d.winner == 1);
  CHECK(d.ranking == std::vector<std::size_t>{1, 2, 0});
  CHECK(*d.reference == 0);
  CHECK(*d.lead == Approx(150.0 / 101 - 1));
  CHECK(d.tied == std::vector<std::size_t>{1});
  CHECK(d.why.find("leads the baseline") != std::string::npos);
}

TEST_CASE("a lead under 2% names no winner however steady the rounds - and splits no tie") {
  // bench/tune.sh's tqdm program: every launch within 3%, the best 0.9% ahead of bare, rounds 0.6% apart.
  const std::vector<Measured> candidates{bare({1394.4, 1394.0, 1395.0}), Measured{{1406.7, 1407.5, 1406.0}, 3},
                                         Measured{{1371.2, 1372.0, 1370.5}, 1}};
  const Decision d = decide(candidates, true);
  CHECK_FALSE(d.winner.has_value());
  REQUIRE(d.noise.has_value());
  CHECK(*d.noise < 0.02);
  CHECK(
      d.why.starts_with("nothing beat the baseline beyond the noise: the best leads it by 0.9%, under the 2.0% a "
                        "change of launch needs"));
  CHECK(d.tied == std::vector<std::size_t>{1, 0});  // 2.6% behind the best is told apart
  CHECK(d.simplest_tied == 0);
}

TEST_CASE("launches far faster than the baseline and close to each other: a winner, the top ones tied") {
  // The bare run of an oversubscribed program, dropped after one trial; three mptrain launches 4% apart.
  const std::vector<Measured> candidates{bare({6.1}), Measured{{150, 141, 160}, 1}, Measured{{156, 150, 199}, 3},
                                         Measured{{149, 170, 155}, 5}, Measured{{60, 61}, 3}};
  const Decision d = decide(candidates, true);
  REQUIRE(d.winner.has_value());
  CHECK(*d.winner == 2);
  CHECK(*d.reference == 0);
  CHECK(*d.lead == Approx(156 / 6.1 - 1));
  CHECK(d.tied == std::vector<std::size_t>{2, 3, 1});
  CHECK(d.simplest_tied == 1);
}

TEST_CASE("no measurable difference only when nothing beats the baseline - the baseline is then the simplest") {
  const std::vector<Measured> candidates{bare({100, 110}), Measured{{104, 106}, 2}, Measured{{40, 41}, 3}};
  const Decision d = decide(candidates, true);
  CHECK_FALSE(d.winner.has_value());
  CHECK(d.simplest_tied == 0);
  CHECK(d.why.find("nothing beat the baseline") != std::string::npos);
  // A launch ahead of the baseline by less than the noise: no winner either.
  const Decision close = decide({bare({100, 110}), Measured{{108, 112}, 2}}, true);
  CHECK_FALSE(close.winner.has_value());
  CHECK(close.simplest_tied == 0);
  CHECK(close.why.find("within the noise") != std::string::npos);
  // The same headline whether the baseline or a launch within the noise of it happens to rank first
  // (CI saw both orders of a program no launch speeds up).
  CHECK(close.why.rfind("nothing beat the baseline", 0) == 0);
  CHECK(d.why.rfind("nothing beat the baseline", 0) == 0);
}

TEST_CASE("with the baseline failed, the best is judged against the runner-up") {
  Measured failed = bare({});
  failed.failed = true;
  const Decision d = decide({failed, Measured{{150, 152}, 1}, Measured{{100, 101}, 2}}, true);
  REQUIRE(d.winner.has_value());
  CHECK(*d.reference == 2);
  CHECK(d.why.find("runner-up") != std::string::npos);
}

TEST_CASE("a median that is negative or not finite is not ranked - a baseline that measured 0 is beaten by any") {
  const Decision d = decide({bare({0, 0}), Measured{{-3, -3}, 1}, Measured{{5, 5.1}, 2}}, true);
  CHECK(d.ranking == std::vector<std::size_t>{2, 0});
  REQUIRE(d.winner.has_value());
  CHECK(std::isinf(*d.lead));
  CHECK(d.why.find("an unbounded margin") != std::string::npos);
  // Nothing measured anything in its window: no lead, no winner, no "-100%".
  const Decision empty = decide({bare({0, 0}), Measured{{0, 0}, 1}}, true);
  CHECK_FALSE(empty.winner.has_value());
  CHECK(*empty.lead == Approx(0));
  CHECK(empty.why.find('-') == std::string::npos);
}

TEST_CASE("for times the lowest wins - failed and unmeasured candidates are not ranked") {
  std::vector<Measured> candidates{Measured{{2.0, 2.02}, 0}, Measured{{1.0, 1.01}, 1}, Measured{{}, 2},
                                   Measured{{0.1}, 1, true}};
  const Decision d = decide(candidates, false);
  REQUIRE(d.winner.has_value());
  CHECK(*d.winner == 1);
  CHECK(d.ranking.size() == 2);
}

TEST_CASE("one round gives no noise: a winner only far ahead - the best measured once wins only far ahead") {
  CHECK_FALSE(decide({bare({100}), Measured{{150}, 1}}, true).winner.has_value());
  CHECK(decide({bare({100}), Measured{{300}, 1}}, true).winner.has_value());
  const Decision d = decide({bare({100, 101}), Measured{{160}, 1}}, true);
  CHECK_FALSE(d.winner.has_value());
  CHECK(d.why.find("measured once") != std::string::npos);
  CHECK(decide({bare({100, 101}), Measured{{300}, 1}}, true).winner.has_value());
}

TEST_CASE("the noise is never taken as finer than what the measurement can show") {
  // Counts of 40 and 41 lines a window: a lead of one line is no lead.
  Measured a{{20.5, 20.5}, 1};
  Measured b{{20, 20}, 2};
  a.resolution = b.resolution = 1.0 / 40;
  const Decision d = decide({a, b}, true);
  CHECK_FALSE(d.winner.has_value());
  CHECK(*d.noise == Approx(2.0 / 40));
}

TEST_CASE("counts a line apart in each of two candidates are no lead, at the edge too") {
  // 31 and 30 lines in 2 s windows (CI saw it: 15.5 against 15 lines/s).
  Measured bare{{16, 15.5, 15}, 0};
  Measured tried{{15, 15}, 2};
  bare.resolution = 1.0 / 30;
  tried.resolution = 1.0 / 30;
  const Decision d = decide({bare, tried}, true);
  CHECK_FALSE(d.winner.has_value());
  CHECK(d.simplest_tied == 0);
  // A lead of 20% against a noise of 20% (both spreads 2 × 1/10) is a tie too.
  const Decision edge = decide({Measured{{11, 9}, 0}, Measured{{13.2, 10.8}, 1}}, true);
  CHECK(*edge.noise == Approx(0.2));
  CHECK(*edge.lead == Approx(0.2));
  CHECK_FALSE(edge.winner.has_value());
  CHECK(edge.simplest_tied == 0);
}

TEST_CASE("one wild round does not make the noise: the spread is robust") {
  // The bare run of an oversubscribed program: mostly 0.4-0.5 s, once 3.5 s.
  const std::vector<double> bare{0.34, 0.45, 1.67, 3.49, 0.50};
  CHECK(robust_spread(bare) < 0.7);
  CHECK(robust_spread({100, 110}) == Approx(10.0 / 105));
  const Decision d = decide({Measured{bare, 0}, Measured{{0.20, 0.198, 0.163, 0.165, 0.19}, 1}}, false);
  REQUIRE(d.winner.has_value());
  CHECK(*d.winner == 1);
}

TEST_CASE("after a later round what is behind the best by more than twice the noise is dropped - the baseline stays") {
  // Noise 2% (each candidate's two rounds 2% apart); the best at 100.
  const std::vector<Measured> candidates{bare({50, 51}), Measured{{99, 101}, 1}, Measured{{96, 98}, 2},
                                         Measured{{80, 81.6}, 3}, Measured{{30, 30.6}, 4, true}};
  CHECK(clearly_behind(candidates, true) == std::vector<std::size_t>{3});
  // For times: 1.0 s the best, 1.3 s behind.
  CHECK(clearly_behind({Measured{{1.0, 1.02}, 1}, Measured{{1.3, 1.32}, 2}}, false) == std::vector<std::size_t>{1});
  // One round each: the noise is unknown, nothing is dropped.
  CHECK(clearly_behind({Measured{{100}, 1}, Measured{{10}, 2}}, true).empty());
}

TEST_CASE("whole runs the same length give or take a launch's own start: 2% or 0.1 s up to a tenth of the run") {
  CHECK(same_length_runs(10.0, 10.2));
  CHECK_FALSE(same_length_runs(10.0, 10.25));
  // A launcher under a sanitizer adds ~30 ms to a 0.8 s sleep (3.7%): the same length.
  CHECK(same_length_runs(0.956, 0.985));
  CHECK(same_length_runs(2.0, 2.1));
  CHECK_FALSE(same_length_runs(2.0, 2.15));
  // A short program that runs a third faster under a launch is no fixed-length program.
  CHECK_FALSE(same_length_runs(0.2, 0.3));
  CHECK_FALSE(same_length_runs(0.5, 0.6));
  CHECK_FALSE(same_length_runs(0.0, 0.0));
  CHECK_FALSE(same_length_runs(1.0, 0.9));
  // Through the decision: the bare sleep and its launch 30 ms apart get no winner.
  const Decision d = decide({bare({0.949, 0.956, 0.957}), Measured{{0.997, 0.974}, 1}}, false, true);
  CHECK_FALSE(d.winner.has_value());
  CHECK(d.why.find("a program that runs a fixed time") != std::string::npos);
}

TEST_CASE("whole runs of every launch within 2% of each other: no winner, all tied, the simplest named") {
  const Decision d =
      decide({bare({10.83, 10.84}), Measured{{10.80, 10.81}, 3}, Measured{{10.86, 10.87}, 1}}, false, true);
  CHECK_FALSE(d.winner.has_value());
  CHECK(d.tied.size() == 3);
  CHECK(d.simplest_tied == 0);
  CHECK(d.why.find("a program that runs a fixed time") != std::string::npos);
  // The same times read as a rate (not whole runs) are judged as usual.
  CHECK(decide({bare({10.0, 10.1}), Measured{{10.3, 10.31}, 1}}, true, false).why.find("fixed time") ==
        std::string::npos);
}
