// Small text helpers for parsing kernel files and option values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace mptrain {

// `text` without leading and trailing whitespace (spaces, tabs, newlines).
std::string_view trim(std::string_view text);
// The pieces of `text` between `separator`s (empty pieces kept).
std::vector<std::string_view> split(std::string_view text, char separator);
// The whitespace-separated words of `text`.
std::vector<std::string_view> split_words(std::string_view text);
// `text` (trimmed) as a base-10 integer, a leading '+' allowed as everywhere
// mptrain reads a number; an Error when it is not one entirely.
Result<long long> parse_int(std::string_view text);
// `text` (whole, no whitespace or sign) as an unsigned base-10 integer, or
// nullopt: the fast path for the kernel's counters, which are never signed.
std::optional<std::uint64_t> parse_u64(std::string_view text);
// `n` and `noun`, the noun plural unless `n` is 1: "1 thread", "2 threads",
// "3 processes" (a noun ending in s takes "es").
std::string counted(long long n, std::string_view noun);
// `amount` (written as {:g} writes it) and `noun`, the noun plural unless
// `amount` is exactly 1: "1 CPU", "0.5 CPUs", "2.5 CPUs".
std::string counted_amount(double amount, std::string_view noun);
// `items` joined as a person lists them: "a", "a or b", "a, b or c" (`last` joins the last two).
std::string joined_list(const std::vector<std::string>& items, std::string_view last);
// `fraction` as a whole percentage: 0.254 → "25%".
std::string percent(double fraction);
// `text` safe to show on a terminal: each control character but tab, DEL,
// and each C1 control (U+0080-U+009F in UTF-8) written as \xHH instead.
std::string printable(std::string_view text);
// `text` (trimmed) as a floating-point number, a leading '+' allowed as in
// parse_int; an Error when it is not one entirely, or one with code ERANGE when it is beyond the largest double
// ("1e400"). A number too small for a double ("1e-400") reads as 0 (or the
// nearest subnormal), as strtod reads it.
Result<double> parse_double(std::string_view text);
// `word` as one word for a POSIX shell: unchanged when it holds only
// characters no shell treats specially, else in single quotes; a word with
// a control character other than tab and newline in bash's $'…' with each
// such byte as \xHH (safe to print on a terminal, and it still runs in bash).
std::string shell_quote(std::string_view word);
// `words` as one command line for a POSIX shell: each word shell_quote()d, joined by spaces.
std::string shell_command(const std::vector<std::string>& words);
}  // namespace mptrain
