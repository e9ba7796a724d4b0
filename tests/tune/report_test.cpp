#include "tune/report.hpp"

#include <catch2/catch.hpp>

using namespace mptrain::tune;

namespace {

CandidateResult measured(Candidate candidate, std::vector<double> values) {
  CandidateResult result;
  result.candidate = std::move(candidate);
  result.trials = static_cast<int>(values.size());
  result.values = std::move(values);
  return result;
}

Candidate launch(std::vector<std::string> options, Origin origin) {
  return Candidate{std::move(options), false, origin};
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

const Program program{{"python3", "train.py"}, {}, "/usr/bin/mptrain"};
const MetricSpec step_rate{MetricKind::value, R"(([0-9.]+) step/s)", true};

}  // namespace

TEST_CASE("a launch 25x faster than bare: a winner against the baseline, the top tied, the loss measured") {
  SearchOutcome outcome;
  outcome.candidates = {measured(Candidate{{}, true, Origin::baseline}, {6.1}),
                        measured(launch({}, Origin::default_plan), {150, 141, 160}),
                        measured(launch({"--children", "2"}, Origin::children), {156, 150, 199}),
                        measured(launch({"--children", "2", "--bind", "none"}, Origin::unbound), {149, 170, 155})};
  outcome.candidates[0].dropped = true;
  outcome.candidates[0].estimated_loss = 0.68;
  outcome.rounds = 3;
  outcome.unit = "step/s";
  const Report report(program, outcome, step_rate, 60, 5);
  const auto json = report.json();
  REQUIRE(json["winner"].is_object());
  CHECK(json["winner"]["label"] == "--children 2");
  CHECK(json["winner"]["speedup"].get<double>() == Approx(156 / 6.1));
  CHECK(json["tied"].size() == 3);
  CHECK(json["simplest_tied"]["label"] == "(default plan)");
  CHECK(json["measured_throughput_loss"].get<double>() == Approx(1 - 6.1 / 156));
  CHECK(json["metric"]["kind"] == "step/s");
  CHECK(json["candidates"][1]["throughput"]["unit"] == "step/s");
  const std::string text = report.text();
  CHECK(contains(text, "throughput in step/s"));
  CHECK(contains(text, "winner: --children 2, 25.57x the baseline"));
  CHECK(contains(text, "the top 3 are within the noise"));
  CHECK(contains(text, "the simplest is (default plan)\n  mptrain run -- python3 train.py"));
  CHECK(contains(text, "tune measured 96% (the baseline against the best)"));
  CHECK_FALSE(contains(text, "no measurable difference"));
}

TEST_CASE("nothing beats the baseline: no measurable difference, and the simplest is the program as it runs") {
  SearchOutcome outcome;
  outcome.candidates = {measured(Candidate{{}, true, Origin::baseline}, {100, 110}),
                        measured(launch({}, Origin::default_plan), {104, 106})};
  const Report report(program, outcome, step_rate, 60, 5);
  CHECK(report.json()["winner"].is_null());
  CHECK(report.json()["measured_throughput_loss"].get<double>() == Approx(0));
  CHECK(contains(report.text(), "no measurable difference: nothing beat the baseline"));
  CHECK(contains(report.text(), "the simplest of the tied is (bare)\n  python3 train.py"));
}

TEST_CASE("odd values never break the report: negative, near the largest double, a failure's control bytes") {
  SearchOutcome outcome;
  outcome.candidates = {measured(Candidate{{}, true, Origin::baseline}, {-3}),
                        measured(launch({}, Origin::default_plan), {1e308, 1.7e308}),
                        measured(launch({"-n", "2", "-t", "1"}, Origin::split), {})};
  outcome.candidates[2].failed = true;
  outcome.candidates[2].exit_code = 3;
  outcome.candidates[2].failure_lines = {"Traceback", "\x1b]0;owned\x07ValueError: " + std::string(5000, 'x')};
  const Report report(program, outcome, step_rate, 60, 5);
  std::string text;
  REQUIRE_NOTHROW(text = report.text());
  CHECK_FALSE(contains(text, "nan"));
  CHECK_FALSE(contains(text, "\x1b"));
  CHECK(contains(text, "-n 2 -t 1 failed with exit code 3; its last lines:\n  Traceback\n  \\x1b]0;owned"));
  CHECK(contains(text, "more characters)"));
  REQUIRE_NOTHROW(report.json().dump());
}

TEST_CASE("whole runs of every launch within 2%: a program of fixed length gets no winner and a hint") {
  SearchOutcome outcome;
  outcome.candidates = {measured(Candidate{{}, true, Origin::baseline}, {10.83, 10.84, 10.85}),
                        measured(launch({"--allocator", "jemalloc"}, Origin::allocator), {10.80, 10.80, 10.81}),
                        measured(launch({}, Origin::default_plan), {10.86, 10.85, 10.87})};
  const Report report(program, outcome, MetricSpec{MetricKind::whole_run, "", false}, 60, 0);
  CHECK(report.json()["winner"].is_null());
  CHECK(report.json()["simplest_tied"]["label"] == "(bare)");
  CHECK(contains(report.text(), "a program that runs a fixed time"));
  CHECK(contains(report.text(), "--metric REGEX or --progress REGEX"));
  // Whole runs 5% apart are a measurement, judged as usual.
  outcome.candidates[1].values = {10.30, 10.31, 10.29};
  CHECK(Report(program, outcome, MetricSpec{MetricKind::whole_run, "", false}, 60, 0).json()["winner"].is_object());
}
