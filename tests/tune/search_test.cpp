#include "tune/search.hpp"

#include <catch2/catch.hpp>

using namespace mptrain::tune;

TEST_CASE("a candidate's trial is `mptrain run OPTIONS --json` with each rank's output in the trial's folder") {
  const Program program{{"python3", "train.py", "--epochs", "1"}, {}, "/opt/mptrain"};
  const Candidate candidate{{"-n", "2", "-t", "1"}, false, "split"};
  const TrialCommand command = trial_command(program, candidate, "/tmp/t/trial-1");
  CHECK(command.argv == std::vector<std::string>{"/opt/mptrain", "run", "-n", "2", "-t", "1", "--json", "--log-dir",
                                                 "/tmp/t/trial-1", "--redirects", "3", "--", "python3", "train.py",
                                                 "--epochs", "1"});
  CHECK_FALSE(command.read_mptrain_stderr);
  CHECK(user_command(program, candidate) == "mptrain run -n 2 -t 1 -- python3 train.py --epochs 1");
}

TEST_CASE("the baseline runs bare under the doctor, its output in the rank-0 files, and is typed as it is") {
  const Program program{{"./train", "a b"}, {}, "/opt/mptrain"};
  const Candidate baseline{{}, true, "baseline"};
  const TrialCommand command = trial_command(program, baseline, "/d");
  REQUIRE(command.argv.size() == 12);
  CHECK(command.argv[1] == "doctor");
  CHECK(command.argv[9] == "/d/rank-0");
  CHECK(command.argv[10] == "./train");
  CHECK(user_command(program, baseline) == "./train 'a b'");
}

TEST_CASE("the built-in training's trial reads mptrain's own progress lines and runs until stopped") {
  const Program program{{}, {"--model", "mlp"}, "/opt/mptrain"};
  const Candidate candidate{{"--bind", "none"}, false, "unbound"};
  const TrialCommand command = trial_command(program, candidate, "/d");
  CHECK(command.read_mptrain_stderr);
  CHECK(command.argv[1] == "run");
  CHECK(command.argv[2] == "--bind");
  CHECK(command.argv[4] == "--model");
  CHECK(std::find(command.argv.begin(), command.argv.end(), "--") == command.argv.end());
  CHECK(user_command(program, candidate) == "mptrain run --bind none --model mlp");
}
