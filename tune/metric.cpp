#include "tune/metric.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "util/text.hpp"

namespace mptrain::tune {
namespace {

// How many segments last_lines() can give.
constexpr std::size_t kept_lines = 32;
// The most of one segment last_lines() keeps (a program that prints no line end gives a long one).
constexpr std::size_t longest_kept_line = 1024;
// The longest segment kept whole; a longer one is matched in pieces.
constexpr std::size_t longest_segment = 64 * 1024;

// The letters a unit word is made of ("it/s", "samples/s", "ms/step").
constexpr std::string_view unit_letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/_%";

// The scale of a decimal prefix letter, 1 for anything else.
double prefix_scale(char letter) {
  switch (letter) {
    case 'k':
      return 1e3;
    case 'M':
      return 1e6;
    case 'G':
      return 1e9;
    default:
      return 1;
  }
}

// The rate of one source over [from, to] for a counter: growth per second
// between the last count before or at the window's start and the last in it.
std::optional<double> counter_rate(const std::vector<Observation>& seen, double from, double to) {
  const Observation* first = nullptr;
  const Observation* last = nullptr;
  for (const auto& observation : seen) {
    if (observation.seconds > to) break;
    if (observation.seconds <= from || first == nullptr) first = &observation;
    last = &observation;
  }
  if (first == nullptr || last == first || last->seconds <= first->seconds) return std::nullopt;
  return (last->value - first->value) / (last->seconds - first->seconds);
}

// The value of one source over [from, to]: the median of its values in the
// window, else its latest value before the window.
std::optional<double> window_value(const std::vector<Observation>& seen, double from, double to) {
  std::vector<double> inside;
  std::optional<double> before;
  for (const auto& observation : seen) {
    if (observation.seconds > to) break;
    if (observation.seconds < from) {
      before = observation.value;
    } else {
      inside.push_back(observation.value);
    }
  }
  if (!inside.empty()) return median(std::move(inside));
  return before;
}

// Whether `text` (trimmed) is a number as strtod reads one, whole.
bool is_number(std::string_view text) {
  const std::string trimmed(trim(text));
  char* end = nullptr;
  std::strtod(trimmed.c_str(), &end);
  return !trimmed.empty() && end == trimmed.c_str() + trimmed.size();
}

}  // namespace

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  // a + (b − a)/2: two values near the largest double have a mean, not inf.
  return values.size() % 2 == 1 ? values[middle] : values[middle - 1] + (values[middle] - values[middle - 1]) / 2;
}

std::optional<Reading> read_number(std::string_view number, std::string_view after, bool higher_is_better) {
  const std::string text(trim(number));
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  Reading reading{std::strtod(text.c_str(), &end), ""};
  if (end != text.c_str() + text.size() || !std::isfinite(reading.value) || reading.value < 0) return std::nullopt;
  if (!after.empty() && prefix_scale(after.front()) != 1) {
    reading.value *= prefix_scale(after.front());
    after.remove_prefix(1);
  }
  while (after.starts_with(' ')) after.remove_prefix(1);
  const std::size_t length = std::min(after.find_first_not_of(unit_letters), after.size());
  reading.unit = std::string(after.substr(0, length));
  while (reading.unit.ends_with('/')) reading.unit.pop_back();
  const std::size_t slash = reading.unit.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == reading.unit.size()) return reading;
  const std::string top = reading.unit.substr(0, slash);
  const std::string bottom = reading.unit.substr(slash + 1);
  const double time_scale = top == "s" ? 1 : top == "ms" ? 1e-3 : top == "us" ? 1e-6 : 0;
  if (time_scale != 0 && higher_is_better) {  // a time per item where a rate is compared
    if (reading.value <= 0) return std::nullopt;
    return Reading{1 / (reading.value * time_scale), fmt::format("{}/s", bottom)};
  }
  if (bottom == "s" && time_scale == 0 && !higher_is_better) {  // a rate where a time is compared
    if (reading.value <= 0) return std::nullopt;
    return Reading{1 / reading.value, fmt::format("s/{}", top)};
  }
  return reading;
}

Result<std::unique_ptr<MetricReader>> MetricReader::make(const MetricSpec& spec) {
  std::unique_ptr<MetricReader> reader(new MetricReader(spec));
  if (spec.kind == MetricKind::whole_run) return reader;
  RE2::Options options;
  options.set_log_errors(false);
  reader->pattern_ = std::make_unique<re2::RE2>(spec.pattern, options);
  if (!reader->pattern_->ok()) {
    return Error{"the pattern '" + spec.pattern + "' is no regular expression: " + reader->pattern_->error(), 0};
  }
  return reader;
}

MetricReader::MetricReader(MetricSpec spec) : spec_(std::move(spec)) {}
MetricReader::~MetricReader() = default;

void MetricReader::feed(int stream, int source, std::string_view bytes, double seconds) {
  Pending& pending_stream = pending_[stream];
  pending_stream.source = source;
  std::string& pending = pending_stream.text;
  while (!bytes.empty()) {
    const std::size_t end = bytes.find_first_of("\r\n");
    if (end != 0) pending_stream.seconds = seconds;
    if (end == std::string_view::npos) {
      pending.append(bytes);
      // A stream that never ends a segment (binary output) is read in pieces.
      if (pending.size() > longest_segment) {
        segment(source, pending, pending_stream.seconds);
        pending.clear();
      }
      return;
    }
    pending.append(bytes.substr(0, end));
    segment(source, pending, pending_stream.seconds);
    pending.clear();
    bytes.remove_prefix(end + 1);
  }
}

void MetricReader::finish() {
  for (auto& [stream, pending] : pending_) {
    if (!pending.text.empty()) segment(pending.source, pending.text, pending.seconds);
    pending.text.clear();
  }
}

void MetricReader::segment(int source, std::string_view text, double seconds) {
  if (trim(text).empty()) return;
  recent_.emplace_back(text.substr(0, longest_kept_line));
  if (recent_.size() > kept_lines) recent_.pop_front();
  if (!pattern_) return;
  const int groups = pattern_->NumberOfCapturingGroups();
  re2::StringPiece whole;
  re2::StringPiece capture;
  const re2::StringPiece input(text.data(), text.size());
  if (groups >= 1) {
    re2::StringPiece pieces[2];
    if (!pattern_->Match(input, 0, input.size(), RE2::UNANCHORED, pieces, 2)) return;
    whole = pieces[0];
    capture = pieces[1];
  } else {
    if (!pattern_->Match(input, 0, input.size(), RE2::UNANCHORED, &whole, 1)) return;
    capture = whole;
  }
  matched_ = true;
  if (spec_.kind == MetricKind::lines) {
    observations_[source].push_back({seconds, 1});
    return;
  }
  const std::size_t after_start = static_cast<std::size_t>(capture.data() + capture.size() - text.data());
  const std::string_view after = spec_.kind == MetricKind::value ? text.substr(after_start) : std::string_view{};
  const std::string_view number(capture.data(), capture.size());
  if (const auto reading = read_number(number, after, spec_.higher_is_better)) {
    observations_[source].push_back({seconds, reading->value});
    ++units_[reading->unit];
  } else if (unreadable_.empty()) {
    unreadable_ = fmt::format("'{}'", printable(number.substr(0, 40)));
    capture_is_number_ = is_number(number);
  }
}

bool MetricReader::matched() const { return matched_; }

std::string MetricReader::unit() const {
  std::string most;
  int count = 0;
  for (const auto& [unit, seen] : units_) {
    if (!unit.empty() && seen > count) {
      most = unit;
      count = seen;
    }
  }
  return most;
}

std::optional<double> MetricReader::throughput(double from, double to) const {
  if (to <= from) return std::nullopt;
  if (spec_.kind == MetricKind::lines) {
    std::size_t count = 0;
    for (const auto& [source, seen] : observations_) {
      count += static_cast<std::size_t>(std::count_if(
          seen.begin(), seen.end(), [&](const Observation& o) { return o.seconds > from && o.seconds <= to; }));
    }
    return static_cast<double>(count) / (to - from);
  }
  double sum = 0;
  bool any = false;
  for (const auto& [source, seen] : observations_) {
    const auto rate = spec_.kind == MetricKind::counter ? counter_rate(seen, from, to) : window_value(seen, from, to);
    if (!rate) continue;
    if (spec_.kind == MetricKind::value && !spec_.higher_is_better) {
      if (*rate <= 0) continue;
      sum += 1 / *rate;
    } else {
      sum += *rate;
    }
    any = true;
  }
  if (!any || !std::isfinite(sum)) return std::nullopt;
  if (spec_.kind == MetricKind::value && !spec_.higher_is_better)
    return sum > 0 ? std::optional(1 / sum) : std::nullopt;
  return sum;
}

std::vector<std::string> MetricReader::last_lines(std::size_t count) const {
  const std::size_t start = recent_.size() > count ? recent_.size() - count : 0;
  return {recent_.begin() + static_cast<std::ptrdiff_t>(start), recent_.end()};
}

}  // namespace mptrain::tune
