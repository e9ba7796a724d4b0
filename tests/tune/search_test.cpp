#include "tune/search.hpp"

#include <catch2/catch.hpp>

#include "tune/trial.hpp"

using namespace mptrain::tune;

TEST_CASE("a candidate's trial is `mptrain run OPTIONS --json` with each rank's output in the trial's folder") {
  const Program program{{"python3", "train.py", "--epochs", "1"}, {}, "/opt/mptrain"};
  const Candidate candidate{{"-n", "2", "-t", "1"}, false, Origin::split};
  const TrialCommand command = trial_command(program, candidate, "/tmp/t/trial-1");
  CHECK(command.argv == std::vector<std::string>{"/opt/mptrain", "run", "-n", "2", "-t", "1", "--json", "--grace", "2",
                                                 "--log-dir", "/tmp/t/trial-1", "--redirects", "3", "--", "python3",
                                                 "train.py", "--epochs", "1"});
  CHECK_FALSE(command.read_mptrain_stderr);
  CHECK(user_command(program, candidate) == "mptrain run -n 2 -t 1 -- python3 train.py --epochs 1");
}

TEST_CASE("the baseline runs bare under the doctor, its output in the rank-0 files, and is typed as it is") {
  const Program program{{"./train", "a b"}, {}, "/opt/mptrain"};
  const Candidate baseline{{}, true, Origin::baseline};
  const TrialCommand command = trial_command(program, baseline, "/d");
  REQUIRE(command.argv.size() == 12);
  CHECK(command.argv[1] == "doctor");
  CHECK(command.argv[9] == "/d/rank-0");
  CHECK(command.argv[10] == "./train");
  CHECK(user_command(program, baseline) == "./train 'a b'");
}

TEST_CASE("the built-in training's trial reads mptrain's own progress lines and runs until stopped") {
  const Program program{{}, {"--model", "mlp"}, "/opt/mptrain"};
  const Candidate candidate{{"--bind", "none"}, false, Origin::unbound};
  const TrialCommand command = trial_command(program, candidate, "/d");
  CHECK(command.read_mptrain_stderr);
  CHECK(command.argv[1] == "run");
  CHECK(command.argv[2] == "--bind");
  CHECK(command.argv[4] == "--model");
  CHECK(std::find(command.argv.begin(), command.argv.end(), "--") == command.argv.end());
  CHECK(user_command(program, candidate) == "mptrain run --bind none --model mlp");
}

TEST_CASE("a trial never writes the user's files: the built-in training's --save-model stays out of it") {
  const Program program{{}, {"--resume", "m.bin", "--save-model", "m.bin", "--save-model=other.bin"}, "/opt/mptrain"};
  const Candidate candidate{{}, false, Origin::baseline};
  const TrialCommand command = trial_command(program, candidate, "/d");
  CHECK(std::count(command.argv.begin(), command.argv.end(), "m.bin") == 1);  // --resume's, read only
  for (const auto& word : command.argv) CHECK_FALSE(word.starts_with("--save-model"));
  // What the user is told to run keeps it.
  CHECK(user_command(program, candidate) == "mptrain run --resume m.bin --save-model m.bin --save-model=other.bin");
}

TEST_CASE("the warm-up starts when the program started, at the latest the longest start-up after the trial's") {
  TrialTiming timing;
  timing.warmup = 3;
  timing.window = 5;
  // A launch that took 2 s to start the program does not eat its warm-up.
  const TrialWindow late = window_of(timing, 2.0);
  CHECK(late.from == Approx(5));
  CHECK(late.to == Approx(10));
  // Started at once: the window as the options say.
  const TrialWindow prompt = window_of(timing, 0.0);
  CHECK(prompt.from == Approx(3));
  CHECK(prompt.to == Approx(8));
  // Not seen to start, or seen only after the longest start-up: measured from then.
  for (const std::optional<double> started : {std::optional<double>(100.0), std::optional<double>()}) {
    const TrialWindow stuck = window_of(timing, started);
    CHECK(stuck.from == Approx(longest_startup + 3));
    CHECK(stuck.to == Approx(longest_startup + 8));
  }
}
