#include "tune/candidates.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace mptrain::tune {
namespace {

// Adds `candidate` unless one with the same options is there; a --try
// replaces the generated one.
void add(std::vector<Candidate>& list, Candidate candidate) {
  const auto same = std::find_if(list.begin(), list.end(), [&](const Candidate& c) {
    return !c.baseline && !candidate.baseline && c.options == candidate.options;
  });
  if (same == list.end()) {
    list.push_back(std::move(candidate));
  } else if (candidate.origin == Origin::user_try) {
    *same = std::move(candidate);
  }
}

// Options with which `mptrain run` runs nothing (it prints and exits):
// never a candidate, which would "win" at no cost.
constexpr std::array<std::string_view, 5> runs_nothing{"--dry-run", "--help", "-h", "--help-all", "--version"};

Candidate plan(std::vector<std::string> options, Origin origin) { return Candidate{std::move(options), false, origin}; }

// The variations of the default launch: its own options plus one change each.
void add_variations(std::vector<Candidate>& list, const CandidateInputs& inputs, const std::vector<std::string>& base) {
  const auto with = [&](std::initializer_list<std::string> more) {
    std::vector<std::string> options = base;
    options.insert(options.end(), more);
    return options;
  };
  add(list, plan(with({"--bind", "none"}), Origin::unbound));
  if (inputs.smt) add(list, plan(with({"--physical-cores"}), Origin::physical_cores));
  // The built-in training allocates once, before it trains: run takes --allocator for a program only;
  // its pool is oneTBB's, which has no OpenMP wait policy.
  if (inputs.builtin) return;
  for (const auto& allocator : inputs.allocators) add(list, plan(with({"--allocator", allocator}), Origin::allocator));
  // How OpenMP threads wait: spinning answers a barrier fastest with a CPU each, sleeping leaves the CPU to others.
  add(list, plan(with({"--wait-policy", "passive"}), Origin::wait_policy));
  add(list, plan(with({"--wait-policy", "active"}), Origin::wait_policy));
}

}  // namespace

std::string Candidate::label() const {
  if (baseline) return "(bare)";
  if (options.empty()) return "(default plan)";
  return fmt::format("{}", fmt::join(options, " "));
}

std::vector<int> divisors_up_to(int n, int cap) {
  std::vector<int> divisors;
  for (int m = 1; m <= n && static_cast<int>(divisors.size()) < cap; ++m) {
    if (n % m == 0) divisors.push_back(m);
  }
  return divisors;
}

Result<std::vector<std::string>> try_words(std::string_view text) { return option_words(text, "--try"); }

Result<std::vector<std::string>> option_words(std::string_view text, std::string_view option) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (const char c : text) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0) return Error{fmt::format("{} '{}' has an unclosed quote", option, text), 0};
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return Error{fmt::format("{} needs run options, such as {} \"-n 2 -t 1\"", option, option), 0};
  if (!words.front().starts_with("-")) {
    return Error{fmt::format("{} '{}' starts with '{}', which is no option: give run options only (the "
                             "command goes after tune's --)",
                             option, text, words.front()),
                 0};
  }
  for (const auto& given : words) {
    const std::string name = given.substr(0, given.find('='));
    if (std::find(runs_nothing.begin(), runs_nothing.end(), name) != runs_nothing.end()) {
      return Error{fmt::format("{} '{}' holds {}, with which run runs nothing: a candidate must run the program",
                               option, text, name),
                   0};
    }
  }
  if (std::find(words.begin(), words.end(), "--") != words.end()) {
    return Error{
        fmt::format("{} '{}' holds '--': give run options only (the command goes after tune's --)", option, text), 0};
  }
  return words;
}

Result<std::vector<Candidate>> make_candidates(const CandidateInputs& inputs) {
  std::vector<Candidate> list;
  if (!inputs.builtin) list.push_back(Candidate{{}, true, Origin::baseline});
  add(list, plan({}, inputs.builtin ? Origin::baseline : Origin::default_plan));
  if (!inputs.only_tries) {
    const std::vector<int> counts =
        inputs.process_counts.empty() ? divisors_up_to(inputs.usable_cpus, 8) : inputs.process_counts;
    if (!inputs.children) {
      for (const int m : counts) {
        // More processes than CPUs only when asked for (-n), as one thread each.
        if (m < 1 || m == inputs.default_processes || (m > inputs.usable_cpus && inputs.process_counts.empty()))
          continue;
        add(list,
            plan({"-n", std::to_string(m), "-t", std::to_string(std::max(1, inputs.usable_cpus / m))}, Origin::split));
      }
    }
    std::vector<std::string> base;
    if (inputs.children) {
      base = {"--children", std::to_string(*inputs.children)};
      add(list, plan(base, Origin::children));
    }
    add_variations(list, inputs, base);
  }
  for (const auto& text : inputs.tries) {
    auto words = try_words(text);
    if (!words.ok()) return words.error();
    add(list, plan(std::move(words).value(), Origin::user_try));
  }
  return list;
}

}  // namespace mptrain::tune
