// Throughput read from a program's own output: a number it prints
// (--metric), lines it prints (--progress), or a counter of mptrain's own
// progress lines (the built-in training). Pure: the trial runner feeds the
// bytes it read with the time it read them, and asks for the rate over the
// trial's window.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace re2 {
class RE2;
}

namespace mptrain::tune {

enum class MetricKind {
  value,      // --metric: a number the program prints (a rate, or a time with lower_is_better)
  lines,      // --progress: lines matching per second
  counter,    // a running count the program prints (mptrain's "N/M samples"): its growth per second
  whole_run,  // neither: a trial is timed start to exit
};

// What a trial measures and how to read it.
struct MetricSpec {
  MetricKind kind = MetricKind::whole_run;
  std::string pattern;  // RE2 syntax; the first capture group (or the whole match) is the number
  bool higher_is_better = true;
};

// The pattern that reads mptrain's own progress lines ("  120000/600000 samples").
inline constexpr std::string_view training_progress_pattern = R"((\d+)/\d+ samples)";

// One number seen in the output, at `seconds` since the trial started.
struct Observation {
  double seconds = 0;
  double value = 0;
};

// A number read from a match: `value` in the direction the metric is
// compared (a rate for a metric where higher is better, a time for one
// where lower is), `unit` the word that followed it as it stands after
// that turn ("it/s", "s/it", "step/s"; "" when none).
struct Reading {
  double value = 0;
  std::string unit;
};

// The number a match reads, from the matched text: `number` (the capture),
// and the text that follows it on the line. A decimal prefix right after it
// scales it (tqdm's unit_scale: 1.2k, 3.4M, 5G). The unit word after it
// (letters and '/') says what it is: a time per item ("s/it", "ms/step")
// or a rate ("it/s", "samples/s"). Where that disagrees with the
// direction (`higher_is_better` with a time, or not with a rate) the
// value is turned over (1/x, the unit with it), so tqdm's bar reads the
// same whether it prints it/s or s/it. nullopt when `number` is no
// finite number of at least 0 (or a time of 0 to turn over).
std::optional<Reading> read_number(std::string_view number, std::string_view after, bool higher_is_better = true);

// Reads one trial's output. Each stream (a rank's stdout, its stderr) is
// split into segments at '\n' and '\r' (a progress bar redraws itself with
// '\r'); a segment is matched when its end is seen, at the time its text was read. A stream belongs to a
// source (a rank): rates of several sources add up.
class MetricReader {
 public:
  // An Error naming the pattern and RE2's complaint when it does not compile.
  static Result<std::unique_ptr<MetricReader>> make(const MetricSpec& spec);
  ~MetricReader();
  MetricReader(const MetricReader&) = delete;
  MetricReader& operator=(const MetricReader&) = delete;

  // Takes `bytes` that stream `stream` of source `source` printed, read at `seconds`.
  void feed(int stream, int source, std::string_view bytes, double seconds);
  // Matches what each stream left without an end (the program ended), at
  // the time it was printed.
  void finish();

  // Whether the pattern has matched anything yet.
  bool matched() const;
  // Whether any match read as a number (a --metric); what the first match
  // that did not read as one captured, quoted ("" when every match read),
  // and whether that was a number at all (a negative or infinite one is,
  // but no throughput) or the pattern captured the wrong text.
  bool read_any() const { return !observations_.empty(); }
  const std::string& unreadable() const { return unreadable_; }
  bool capture_is_number() const { return capture_is_number_; }
  // The unit most of the numbers were read in ("" when none followed them).
  std::string unit() const;
  // The throughput over [from, to] seconds: for `value`, each source's
  // median in the window (its latest value before the window when it
  // printed none inside), summed over sources — for a time
  // (lower_is_better), the combined time 1/Σ(1/tᵢ); for `lines`, matching
  // segments per second; for `counter`, each source's growth per second
  // over the window, summed. nullopt when the window holds too little.
  std::optional<double> throughput(double from, double to) const;
  // The last segments the program printed (at most `count`), oldest first,
  // for an error message.
  std::vector<std::string> last_lines(std::size_t count = 8) const;

 private:
  explicit MetricReader(MetricSpec spec);
  void segment(int source, std::string_view text, double seconds);

  MetricSpec spec_;
  std::unique_ptr<re2::RE2> pattern_;
  struct Pending {
    int source = 0;
    std::string text;    // what the stream printed since its last end of segment
    double seconds = 0;  // when the text last grew: the segment's time
  };
  std::map<int, Pending> pending_;                        // per stream
  std::map<int, std::vector<Observation>> observations_;  // per source
  std::deque<std::string> recent_;
  std::map<std::string, int> units_;  // how many numbers were read in each unit
  std::string unreadable_;
  bool capture_is_number_ = false;
  bool matched_ = false;
};

// The median of `values` (not empty).
double median(std::vector<double> values);

}  // namespace mptrain::tune
