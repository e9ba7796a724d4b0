#include "tune/candidates.hpp"

#include <catch2/catch.hpp>

#include "tune/machine.hpp"

using namespace mptrain::tune;

namespace {
std::vector<std::string> labels(const std::vector<Candidate>& list) {
  std::vector<std::string> out;
  for (const auto& c : list) out.push_back(c.label());
  return out;
}
}  // namespace

TEST_CASE("the divisors of N up to a cap are the process counts of the splits") {
  CHECK(divisors_up_to(12, 8) == std::vector<int>{1, 2, 3, 4, 6, 12});
  CHECK(divisors_up_to(64, 4) == std::vector<int>{1, 2, 4, 8});
  CHECK(divisors_up_to(1, 8) == std::vector<int>{1});
}

TEST_CASE("a program's candidates: bare first, the default plan, the splits, the variations") {
  CandidateInputs inputs;
  inputs.usable_cpus = 4;
  inputs.default_processes = 1;
  inputs.smt = true;
  inputs.allocators = {"jemalloc"};
  auto list = make_candidates(inputs);
  REQUIRE(list.ok());
  CHECK(labels(*list) == std::vector<std::string>{"(bare)", "(default plan)", "-n 2 -t 2", "-n 4 -t 1", "--bind none",
                                                  "--physical-cores", "--allocator jemalloc", "--wait-policy passive",
                                                  "--wait-policy active"});
  CHECK((*list)[7].origin == Origin::wait_policy);
  CHECK(list->front().baseline);
  CHECK(list->front().simplicity() < (*list)[1].simplicity());
}

TEST_CASE("a program that starts its own workers gets --children K and no copies of itself") {
  CandidateInputs inputs;
  inputs.usable_cpus = 4;
  inputs.children = 2;
  auto list = make_candidates(inputs);
  REQUIRE(list.ok());
  CHECK(labels(*list) == std::vector<std::string>{"(bare)", "(default plan)", "--children 2",
                                                  "--children 2 --bind none", "--children 2 --wait-policy passive",
                                                  "--children 2 --wait-policy active"});
}

TEST_CASE("the built-in training's baseline is its default plan - --num-processes chooses the splits") {
  CandidateInputs inputs;
  inputs.builtin = true;
  inputs.usable_cpus = 8;
  inputs.default_processes = 1;
  inputs.process_counts = {2, 8, 16};
  auto list = make_candidates(inputs);
  REQUIRE(list.ok());
  // 16 processes on 8 CPUs, asked for by name, are tried (one thread each), not dropped without a word.
  CHECK(labels(*list) ==
        std::vector<std::string>{"(default plan)", "-n 2 -t 4", "-n 8 -t 1", "-n 16 -t 1", "--bind none"});
  CHECK((*list)[0].origin == Origin::baseline);
  // No --allocator candidates for it: run refuses them without a program.
  inputs.allocators = {"jemalloc"};
  list = make_candidates(inputs);
  REQUIRE(list.ok());
  CHECK(std::none_of(list->begin(), list->end(), [](const Candidate& c) { return c.origin == Origin::allocator; }));
  // Nor wait-policy ones: its pool is oneTBB's.
  CHECK(std::none_of(list->begin(), list->end(), [](const Candidate& c) { return c.origin == Origin::wait_policy; }));
}

TEST_CASE("a --try adds a candidate or replaces the generated one with its options - --only-tries keeps them alone") {
  CandidateInputs inputs;
  inputs.usable_cpus = 2;
  inputs.tries = {"--bind none", "-n 2 -t 1 --omp-bind 'none'"};
  auto list = make_candidates(inputs);
  REQUIRE(list.ok());
  CHECK(labels(*list) == std::vector<std::string>{"(bare)", "(default plan)", "-n 2 -t 1", "--bind none",
                                                  "--wait-policy passive", "--wait-policy active",
                                                  "-n 2 -t 1 --omp-bind none"});
  CHECK((*list)[3].origin == Origin::user_try);
  inputs.only_tries = true;
  list = make_candidates(inputs);
  REQUIRE(list.ok());
  CHECK(labels(*list) ==
        std::vector<std::string>{"(bare)", "(default plan)", "--bind none", "-n 2 -t 1 --omp-bind none"});
}

TEST_CASE("a --try must hold options only") {
  CHECK_FALSE(try_words("").ok());
  CHECK_FALSE(try_words("python3 train.py").ok());
  CHECK_FALSE(try_words("-n 2 -- python3").ok());
  CHECK_FALSE(try_words("-n '2").ok());
  for (const char* nothing : {"--dry-run", "-n 2 --dry-run", "--help", "-h", "--version", "--help-all"}) {
    const auto refused = try_words(nothing);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("runs nothing") != std::string::npos);
  }
  auto words = try_words(" --allocator \"jemalloc\"\t-n 1 ");
  REQUIRE(words.ok());
  CHECK(*words == std::vector<std::string>{"--allocator", "jemalloc", "-n", "1"});
}

TEST_CASE("a synthetic SMT machine gives its N, SMT and the default plan's process count") {
  auto machine = mptrain::affinity::synthetic_machine("package:2 core:2 pu:2");
  REQUIRE(machine.ok());
  auto inputs = machine_inputs(*machine, mptrain::FsRoot());
  REQUIRE(inputs.ok());
  CHECK(inputs->usable_cpus == 8);
  CHECK(inputs->smt);
  CHECK(inputs->default_processes >= 1);
  auto flat = mptrain::affinity::synthetic_machine("package:1 core:4 pu:1");
  REQUIRE(flat.ok());
  CHECK_FALSE(machine_inputs(*flat, mptrain::FsRoot())->smt);
}

TEST_CASE("the doctor's pointer to tune names the command it watched, quoted") {
  CHECK(measure_hint({"python3", "my script.py"}) ==
        "to measure which launch is fastest for it: mptrain tune -- python3 'my script.py'");
  CHECK(measure_hint({}) == "to measure which launch is fastest for it: mptrain tune -- CMD");
}
