// The launches `mptrain tune` tries: the program as the user runs it, then
// mptrain's plans and their variations. Pure: what the machine has comes in
// as arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/names.hpp"
#include "util/result.hpp"

namespace mptrain::tune {

// Why a launch is tried.
enum class Origin {
  baseline,
  default_plan,
  split,
  children,
  unbound,
  physical_cores,
  allocator,
  wait_policy,
  user_try
};

// Origin's names, as the report shows them.
inline constexpr std::array origin_names{
    Named<Origin>{Origin::baseline, "baseline"},   Named<Origin>{Origin::default_plan, "default plan"},
    Named<Origin>{Origin::split, "split"},         Named<Origin>{Origin::children, "children"},
    Named<Origin>{Origin::unbound, "unbound"},     Named<Origin>{Origin::physical_cores, "one PU per core"},
    Named<Origin>{Origin::allocator, "allocator"}, Named<Origin>{Origin::wait_policy, "wait policy"},
    Named<Origin>{Origin::user_try, "--try"},
};

// The name of `origin` in the report.
constexpr std::string_view to_string(Origin origin) { return name_of(origin_names, origin); }

// One launch to try.
struct Candidate {
  std::vector<std::string> options;      // `mptrain run` placement options ({} with !baseline: the default plan)
  bool baseline = false;                 // the program bare, as the user runs it (no mptrain)
  Origin origin = Origin::default_plan;  // why it is tried
  // How many option words it adds to the program's command (0: the baseline), to pick the simplest of a tie.
  int simplicity() const { return baseline ? 0 : 1 + static_cast<int>(options.size()); }
  // The options as one string ("-n 2 -t 1"; "(bare)" for the baseline, "(default plan)" for none).
  std::string label() const;
  // Whether it is what the user runs today, which a winner must beat: the program bare, or for the
  // built-in training its default plan.
  bool runs_today() const { return baseline || origin == Origin::baseline; }
};

// What the candidates are made from.
struct CandidateInputs {
  bool builtin = false;                 // no CMD: the built-in training (its default plan is the baseline)
  int usable_cpus = 1;                  // N
  int default_processes = 1;            // M of mptrain's default plan for this program
  bool smt = false;                     // the usable CPUs include SMT siblings
  std::vector<int> process_counts;      // -n values to split N by (--num-processes; empty: divisors_up_to)
  std::optional<int> children;          // K: the program starts K working processes itself (from a probe)
  std::vector<std::string> allocators;  // installed allocators besides the C library's, by --allocator name
  std::vector<std::string> tries;       // --try "OPTIONS", each a candidate
  bool only_tries = false;              // --only-tries: the baseline and the tries alone
};

// The divisors of `n` from 1 up, at most `cap` of them (the -n values of the M×T splits).
std::vector<int> divisors_up_to(int n, int cap);

// The candidates, baseline first, each launch once: the default plan; each
// split M × floor(N/M) of the process counts (not for a program that starts
// its own workers: several copies of it would each start theirs; an M above
// N only when --num-processes asks for it, as M × 1); with
// `children`, --children K, alone and unbound; --bind none; --physical-cores
// on SMT; each allocator (for a program: run refuses --allocator for the
// built-in training); then each --try, which replaces a generated
// candidate with the same options. An Error for a --try that holds no
// option or names a program (the command comes after tune's --).
Result<std::vector<Candidate>> make_candidates(const CandidateInputs& inputs);

// The words of an option string such as --try's: split at white space, with
// '…' and "…" quoting; an Error, naming `option`, when it holds no option,
// starts with a word that is none, holds "--" (the command goes after
// tune's --), or an option with which run runs nothing (--dry-run, --help, --version).
Result<std::vector<std::string>> option_words(std::string_view text, std::string_view option);
// option_words(text, "--try").
Result<std::vector<std::string>> try_words(std::string_view text);

}  // namespace mptrain::tune
