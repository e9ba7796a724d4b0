// The training progress on stderr: on a terminal, a bar redrawn in place
// that fits the terminal's width (read again when SIGWINCH says it
// changed); otherwise a plain line every few seconds.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "hogwild/store.hpp"

namespace mptrain::hogwild {

// What one progress update shows.
struct ProgressFigures {
  std::uint64_t samples = 0;  // samples trained so far, all workers together
  std::uint64_t total = 0;    // samples the whole run trains
  int epochs = 1;             // epochs each worker trains (the run's --epochs)
  double rate = 0;            // samples per second so far
  double loss = 0;            // the workers' mean recent batch loss
  std::string verdict;        // the monitor's live verdict ("healthy")
};

// The figures of `store`'s published counters for a run of `total` samples
// over `epochs` epochs, `elapsed` seconds in, with the monitor's `verdict`.
ProgressFigures progress_figures(const ParameterStore& store, std::uint64_t total, int epochs, double elapsed,
                                 std::string verdict);

// The epoch `figures` is in, from 1 to its epochs.
int current_epoch(const ProgressFigures& figures);
// "ETA 1:05" (h:mm:ss from an hour): the time left at the rate so far; "" before there is a rate.
std::string eta_text(const ProgressFigures& figures);

// The bar's text for `figures` in at most `columns` - 1 characters (the last
// column stays free, so the terminal never wraps it): the bar, percentage,
// epoch, counts, rate, ETA, loss and verdict where they fit, the counts,
// then the epoch and rate, then the ETA left out where not, and below 60
// columns only the percentage, loss and verdict (cut at the width on a tiny
// terminal).
std::string progress_bar(const ProgressFigures& figures, int columns);

// The plain line printed every few seconds when stderr is not a terminal.
std::string progress_line(const ProgressFigures& figures);

// Shows progress on stderr. On a terminal it catches SIGWINCH while the bar
// is shown (the handler only sets a flag), and restores the previous
// handler when the bar's line ends.
class Progress {
 public:
  // Writes what it shows with `print` (stderr's writer, which never throws).
  explicit Progress(std::function<void(std::string_view)> print);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Shows `figures` when due: a changed verdict or a resized terminal at
  // once, otherwise the bar 5 times a second, or off a terminal a line
  // after the first second and then every 2 seconds (so a short run shows
  // its progress too, not one line at 0%; MPTRAIN_PROGRESS_INTERVAL
  // seconds, 0.1-3600, instead of 2: tune's trials read it in short windows).
  // Call it from the parent only, after the workers are forked.
  void update(const ProgressFigures& figures);
  // Ends the bar's line (so other text can follow); the next update draws a new one.
  void finish();
  // Takes the bar off the screen (on a terminal: its line blanked, the
  // cursor back at its start) so that a note printed now replaces it instead
  // of leaving a frozen copy above; the next update draws it again below.
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  // Redraws the bar in place, as wide as the terminal is now.
  void draw_bar(const ProgressFigures& figures);

  std::function<void(std::string_view)> print_;
  bool terminal_;
  double line_period_;            // seconds between lines off a terminal (MPTRAIN_PROGRESS_INTERVAL, default 2)
  bool watching_resize_ = false;  // our SIGWINCH handler is installed
  std::size_t drawn_ = 0;         // characters of the bar's line on screen (0: none)
  Clock::time_point shown_{};
  Clock::time_point started_ = Clock::now();
  std::string shown_verdict_;
};

}  // namespace mptrain::hogwild
