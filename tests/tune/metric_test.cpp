#include "tune/metric.hpp"

#include <catch2/catch.hpp>

using namespace mptrain::tune;

namespace {
std::unique_ptr<MetricReader> reader(MetricKind kind, std::string pattern, bool higher = true) {
  auto made = MetricReader::make(MetricSpec{kind, std::move(pattern), higher});
  REQUIRE(made.ok());
  return std::move(made).value();
}
}  // namespace

namespace {
double value_of(std::string_view number, std::string_view after, bool higher = true) {
  const auto reading = read_number(number, after, higher);
  REQUIRE(reading.has_value());
  return reading->value;
}
std::string unit_of_reading(std::string_view number, std::string_view after, bool higher = true) {
  const auto reading = read_number(number, after, higher);
  REQUIRE(reading.has_value());
  return reading->unit;
}
}  // namespace

TEST_CASE("a number is read with tqdm's prefixes and its seconds per iteration turned into a rate") {
  CHECK(value_of("12.5", "it/s]") == Approx(12.5));
  CHECK(value_of("1.5", "kit/s]") == Approx(1500));
  CHECK(value_of("2", "Mit/s") == Approx(2e6));
  CHECK(value_of("4.00", "s/it]") == Approx(0.25));
  CHECK(value_of("3", "") == Approx(3));
  CHECK(value_of("250", "ms/step") == Approx(4));
  CHECK_FALSE(read_number("abc", "").has_value());
  CHECK_FALSE(read_number("inf", "").has_value());
  CHECK_FALSE(read_number("0", "s/it").has_value());
}

TEST_CASE("the unit is the word after the number, turned with the value") {
  CHECK(unit_of_reading("141", " step/s, loss 0.3") == "step/s");
  CHECK(unit_of_reading("12.5", "it/s]") == "it/s");
  CHECK(unit_of_reading("1.2", "ksamples/s") == "samples/s");
  CHECK(unit_of_reading("4.00", "s/it]") == "it/s");
  CHECK(unit_of_reading("0.5", ", acc 0.9") == "");
}

TEST_CASE("a time with --lower-is-better stays a time: the direction is turned once, not twice") {
  // tqdm's "1.00s/it" under --lower-is-better: seconds per iteration, lower is faster.
  CHECK(value_of("1.00", "s/it]", false) == Approx(1.0));
  CHECK(unit_of_reading("1.00", "s/it]", false) == "s/it");
  CHECK(value_of("0.10", "s/it]", false) == Approx(0.10));
  // The same bar once faster than one a second prints it/s: as a time, 1/x.
  CHECK(value_of("4.00", "it/s]", false) == Approx(0.25));
  CHECK(unit_of_reading("4.00", "it/s]", false) == "s/it");
  auto r = reader(MetricKind::value, R"(([0-9.]+)s/it)", false);
  r->feed(1, 0, "\r 10%| 1/10 [00:01<00:09, 0.10s/it]\r", 2.0);
  CHECK(r->throughput(1.0, 3.0) == Approx(0.10));
  CHECK(r->unit() == "s/it");
}

TEST_CASE("a negative or infinite metric is no throughput - a capture that is no number is told apart") {
  CHECK_FALSE(read_number("-3", "").has_value());
  CHECK_FALSE(read_number("1e400", "").has_value());
  auto negative = reader(MetricKind::value, R"(speed (\S+))");
  negative->feed(1, 0, "speed -3\n", 2.0);
  CHECK(negative->matched());
  CHECK_FALSE(negative->read_any());
  CHECK(negative->unreadable() == "'-3'");
  CHECK(negative->capture_is_number());
  CHECK_FALSE(negative->throughput(1.0, 3.0).has_value());
  auto words = reader(MetricKind::value, R"((it/s))");
  words->feed(1, 0, "12.3it/s\n", 2.0);
  CHECK(words->unreadable() == "'it/s'");
  CHECK_FALSE(words->capture_is_number());
  // Two sources near the largest double: their sum is no finite rate, so no throughput, never inf or nan.
  auto huge = reader(MetricKind::value, R"(([0-9.e+]+) it/s)");
  huge->feed(1, 0, "1.5e308 it/s\n", 2.0);
  huge->feed(2, 1, "1.5e308 it/s\n", 2.0);
  CHECK_FALSE(huge->throughput(1.0, 3.0).has_value());
}

TEST_CASE("a pattern that is no regular expression is an error naming it") {
  auto made = MetricReader::make(MetricSpec{MetricKind::value, "([0-9", true});
  REQUIRE_FALSE(made.ok());
  CHECK(made.error().message.find("([0-9") != std::string::npos);
}

TEST_CASE("a tqdm bar redrawn with carriage returns is read segment by segment, in the window only") {
  auto r = reader(MetricKind::value, R"(([0-9.]+)(?:it/s|s/it))");
  r->feed(1, 0, "\r  5%|#   | 5/100 [00:01<00:19,  2.00it/s]", 0.5);
  r->feed(1, 0, "\r 10%|#   | 10/100 [00:02<00:18, 10.00it/s]\r 20%|##  | 20/100 [00:03<00:16, 12.00it/s]", 3.0);
  r->feed(1, 0, "\r 30%|### | 30/100 [00:04<00:14, 14.00it/s]", 4.0);
  CHECK(r->matched());
  // The segment at 0.5 s is in the warm-up; the last one ends only at the next '\r' or the end.
  CHECK(r->throughput(1.0, 5.0) == Approx(11.0));
  r->finish();
  CHECK(r->throughput(1.0, 5.0) == Approx(12.0));
}

TEST_CASE("the rates of several ranks add up - a time per item combines as 1 over the summed rates") {
  auto rates = reader(MetricKind::value, R"(rate=(\d+))");
  rates->feed(0, 0, "rate=100\nrate=110\n", 2);
  rates->feed(2, 1, "rate=50\n", 2);
  CHECK(rates->throughput(1, 3) == Approx(105 + 50));
  auto times = reader(MetricKind::value, R"(step ([0-9.]+) s)", false);
  times->feed(0, 0, "step 0.5 s\n", 2);
  times->feed(2, 1, "step 0.5 s\n", 2);
  CHECK(times->throughput(1, 3) == Approx(0.25));
}

TEST_CASE("a source that printed nothing inside the window counts with its latest value before it") {
  auto r = reader(MetricKind::value, R"((\d+) it/s)");
  r->feed(0, 0, "7 it/s\n", 0.5);
  CHECK(r->throughput(1, 2) == Approx(7));
  CHECK_FALSE(r->throughput(0.1, 0.2).has_value());
}

TEST_CASE("progress lines count per second over the window, from every stream") {
  auto r = reader(MetricKind::lines, "^step");
  for (int i = 0; i < 10; ++i) r->feed(0, 0, "step\nother\n", 1 + 0.2 * i);
  r->feed(1, 0, "step\n", 2.5);
  // In (1, 3]: the steps at 1.2 … 2.8 (9) and the one on stderr.
  CHECK(r->throughput(1, 3) == Approx(10.0 / 2));
}

TEST_CASE("a counter's growth per second is read between its last value before the window and its last in it") {
  auto r = reader(MetricKind::counter, std::string(training_progress_pattern));
  r->feed(0, 0, "mptrain:  1%  epoch 1/9  1000/90000 samples  1000 samples/s\n", 1);
  r->feed(0, 0, "mptrain:  3%  epoch 1/9  3000/90000 samples  1500 samples/s\n", 3);
  r->feed(0, 0, "mptrain:  6%  epoch 1/9  6000/90000 samples  2000 samples/s\n", 5);
  CHECK(r->throughput(1, 5) == Approx(5000.0 / 4));
  CHECK(r->throughput(2, 5) == Approx(5000.0 / 4));
  CHECK(r->throughput(3, 5) == Approx(3000.0 / 2));
  CHECK_FALSE(r->throughput(5.5, 9).has_value());
}

TEST_CASE("the last lines printed are kept for an error message, and binary output is read in pieces") {
  auto r = reader(MetricKind::value, R"((\d+) it/s)");
  r->feed(0, 0, "first\nsecond\r", 1);
  r->feed(1, 0, "third", 1);
  r->finish();
  CHECK(r->last_lines(2) == std::vector<std::string>{"second", "third"});
  CHECK_FALSE(r->matched());
  const std::string blob(200'000, 'x');
  r->feed(0, 0, blob + " 9 it/s", 3);
  r->finish();
  CHECK(r->matched());
  // A line-less output is kept short for the error message, not 200 kB of it.
  for (const auto& line : r->last_lines()) CHECK(line.size() <= 1024);
}

TEST_CASE("the documented tqdm pattern reads any unit: it/s, a custom step/s and s/it, all as rates") {
  auto r = reader(MetricKind::value, R"(([0-9.]+) ?(?:[a-z]+/s|s/[a-z]+))");
  r->feed(1, 0, "\r 10%| 10/100 [00:01<00:09, 12.00it/s]", 1.5);
  r->feed(2, 1, "\r 10%| 10/100 [00:01<00:09, 4.00 step/s]", 1.5);
  r->feed(3, 2, "\r 10%| 10/100 [00:01<00:09, 2.00s/it]", 1.5);
  r->finish();
  CHECK(r->throughput(1.0, 2.0) == Approx(12.0 + 4.0 + 0.5));
}
