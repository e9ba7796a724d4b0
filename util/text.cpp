#include "util/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace mptrain {

std::string percent(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

std::string_view trim(std::string_view text) {
  constexpr std::string_view space = " \t\r\n\f\v";
  const auto first = text.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(space);
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    std::size_t j = i;
    while (j < text.size() && !std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) words.push_back(text.substr(i, j - i));
    i = j;
  }
  return words;
}

namespace {

// `text` without the one '+' a number may start with (as people write "+2"), when a digit or '.' follows.
std::string_view without_plus(std::string_view text) {
  if (text.size() > 1 && text[0] == '+' && (std::isdigit(static_cast<unsigned char>(text[1])) || text[1] == '.')) {
    text.remove_prefix(1);
  }
  return text;
}

}  // namespace

Result<long long> parse_int(std::string_view text) {
  text = without_plus(trim(text));
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return Error{"not an integer: '" + std::string(text) + "'"};
  }
  return value;
}

std::optional<std::uint64_t> parse_u64(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string counted(long long n, std::string_view noun) {
  std::string out = std::to_string(n) + " " + std::string(noun);
  if (n != 1) out += noun.ends_with("s") ? "es" : "s";
  return out;
}

std::string counted_amount(double amount, std::string_view noun) {
  std::string out = fmt::format("{:g} {}", amount, noun);
  if (amount != 1) out += noun.ends_with("s") ? "es" : "s";
  return out;
}

std::string joined_list(const std::vector<std::string>& items, std::string_view last) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? fmt::format(" {} ", last) : std::string(", ");
    out += items[i];
  }
  return out;
}

Result<double> parse_double(std::string_view text) {
  text = without_plus(trim(text));
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || end != text.data() + text.size() || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return Error{"not a number: '" + std::string(text) + "'"};
  }
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves `value` alone; strtod says which way it is out of range.
    const std::string whole(text);
    value = std::strtod(whole.c_str(), nullptr);
    if (std::isinf(value)) return Error{"too large to be a number: '" + whole + "'", ERANGE};
  }
  return value;
}

std::string shell_command(const std::vector<std::string>& words) {
  std::string line;
  for (const auto& word : words) {
    if (!line.empty()) line += ' ';
    line += shell_quote(word);
  }
  return line;
}

std::string shell_quote(std::string_view word) {
  const auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return std::string(word);
  // A control character (C0 but tab and newline, DEL, or a C1 in UTF-8) is
  // written as \xHH in bash's $'…', so the line is safe on a terminal and
  // still runs as given; tab and newline stay in single quotes, as POSIX
  // sh reads them.
  const auto control_at = [&](std::size_t i) {
    const auto c = static_cast<unsigned char>(word[i]);
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) return 1;
    const bool c1 = c == 0xc2 && i + 1 < word.size() && static_cast<unsigned char>(word[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(word[i + 1]) <= 0x9f;
    return c1 ? 2 : 0;
  };
  bool controls = false;
  for (std::size_t i = 0; i < word.size() && !controls; ++i) controls = control_at(i) != 0;
  if (controls) {
    std::string quoted = "$'";
    for (std::size_t i = 0; i < word.size(); ++i) {
      if (const int bytes = control_at(i); bytes != 0) {
        for (int b = 0; b < bytes; ++b)
          quoted += fmt::format("\\x{:02x}", static_cast<unsigned char>(word[i + static_cast<std::size_t>(b)]));
        i += static_cast<std::size_t>(bytes - 1);
      } else if (word[i] == '\n' || word[i] == '\t') {
        quoted += word[i] == '\n' ? "\\n" : "\\t";
      } else if (word[i] == '\'' || word[i] == '\\') {
        quoted += '\\';
        quoted += word[i];
      } else {
        quoted += word[i];
      }
    }
    return quoted + "'";
  }
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    // C1 controls (U+0080-U+009F) are 0xC2 0x80-0x9F in UTF-8; some terminals obey them.
    const bool c1 = byte == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if ((byte < 0x20 && byte != '\t') || byte == 0x7F || c1) {
      static constexpr char hex[] = "0123456789abcdef";
      const unsigned char shown = c1 ? static_cast<unsigned char>(text[++i]) : byte;
      out += "\\x";
      out += hex[shown >> 4];
      out += hex[shown & 0xF];
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace mptrain
