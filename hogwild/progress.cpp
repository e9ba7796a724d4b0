#include "hogwild/progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <utility>

#include "util/text.hpp"

namespace mptrain::hogwild {

namespace {

// Set by SIGWINCH while a Progress watches for it; read and cleared by its redraw.
volatile std::sig_atomic_t resized = 0;

extern "C" void on_resize(int) { resized = 1; }

// The SIGWINCH action before ours, restored when the bar's line ends.
struct sigaction previous_resize_action {};

// Below this many columns the bar gives way to the shortest form.
constexpr int narrow_columns = 60;
// The bar's cells between its brackets: at least this many, or no bar ...
constexpr int min_bar_cells = 10;
// ... and at most this many, however wide the terminal.
constexpr int max_bar_cells = 30;
// The width assumed when the terminal does not say (a serial console).
constexpr int default_columns = 80;

// The width of the terminal on stderr.
int terminal_columns() {
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return default_columns;
}

// The share of the run done, from 0 to 1.
double done_fraction(const ProgressFigures& figures) {
  if (figures.total == 0) return 1.0;
  return std::clamp(static_cast<double>(figures.samples) / static_cast<double>(figures.total), 0.0, 1.0);
}

// "loss 0.2345"; a huge loss in exponent form, so it cannot push the rest off the line.
std::string loss_text(double loss) {
  if (std::isfinite(loss) && std::fabs(loss) >= 1e4) return fmt::format("loss {:.3g}", loss);
  return fmt::format("loss {:.4f}", loss);
}

// The non-empty `pieces` joined by two spaces.
std::string join(std::initializer_list<std::string> pieces) {
  std::string line;
  for (const auto& piece : pieces) {
    if (piece.empty()) continue;
    if (!line.empty()) line += "  ";
    line += piece;
  }
  return line;
}

// "[#####.....]" with `cells` cells, `fraction` of them filled.
std::string bar(double fraction, int cells) {
  const int filled = std::clamp(static_cast<int>(fraction * cells), 0, cells);
  return fmt::format("[{}{}]", std::string(static_cast<std::size_t>(filled), '#'),
                     std::string(static_cast<std::size_t>(cells - filled), '.'));
}

}  // namespace

ProgressFigures progress_figures(const ParameterStore& store, std::uint64_t total, int epochs, double elapsed,
                                 std::string verdict) {
  const auto totals = store.totals();
  ProgressFigures figures;
  figures.total = total;
  figures.epochs = epochs;
  figures.samples = totals.samples;
  figures.loss = totals.mean_loss;
  figures.rate = elapsed > 0 ? static_cast<double>(figures.samples) / elapsed : 0.0;
  figures.verdict = std::move(verdict);
  return figures;
}

int current_epoch(const ProgressFigures& figures) {
  const int epochs = std::max(1, figures.epochs);
  if (figures.total == 0) return epochs;
  const auto done = static_cast<double>(figures.samples) / static_cast<double>(figures.total);
  return std::clamp(1 + static_cast<int>(done * epochs), 1, epochs);
}

std::string eta_text(const ProgressFigures& figures) {
  if (figures.rate <= 0 || figures.samples >= figures.total) return "";
  const auto left =
      static_cast<long long>(std::ceil(static_cast<double>(figures.total - figures.samples) / figures.rate));
  if (left >= 3600) return fmt::format("ETA {}:{:02}:{:02}", left / 3600, left / 60 % 60, left % 60);
  return fmt::format("ETA {}:{:02}", left / 60, left % 60);
}

std::string progress_bar(const ProgressFigures& figures, int columns) {
  const int width = std::max(1, columns - 1);
  const double fraction = done_fraction(figures);
  const std::string percent = fmt::format("{:3.0f}%", 100 * fraction);
  const std::string epoch = fmt::format("epoch {}/{}", current_epoch(figures), std::max(1, figures.epochs));
  const std::string counts = fmt::format("{}/{} samples", figures.samples, figures.total);
  const std::string rate = fmt::format("{:.0f} samples/s", figures.rate);
  const std::string eta = eta_text(figures);
  const std::string loss = loss_text(figures.loss);
  if (columns >= narrow_columns) {
    // The richest form whose text leaves room for a bar of at least min_bar_cells.
    for (const auto& text : {join({percent, epoch, counts, rate, eta, loss, figures.verdict}),
                             join({percent, epoch, rate, eta, loss, figures.verdict}),
                             join({percent, eta, loss, figures.verdict}), join({percent, loss, figures.verdict})}) {
      const int room = width - static_cast<int>(text.size()) - 4;  // the brackets and two spaces
      if (room >= min_bar_cells) return fmt::format("{}  {}", bar(fraction, std::min(room, max_bar_cells)), text);
    }
  }
  const std::string shortest = join({percent, loss, figures.verdict});
  return shortest.substr(0, static_cast<std::size_t>(width));
}

std::string progress_line(const ProgressFigures& figures) {
  return "mptrain: " + join({fmt::format("{:3.0f}%", 100 * done_fraction(figures)),
                             fmt::format("epoch {}/{}", current_epoch(figures), std::max(1, figures.epochs)),
                             fmt::format("{}/{} samples", figures.samples, figures.total),
                             fmt::format("{:.0f} samples/s", figures.rate), eta_text(figures), loss_text(figures.loss),
                             "monitor " + figures.verdict});
}

namespace {

// The seconds between progress lines off a terminal: MPTRAIN_PROGRESS_INTERVAL when it is a number
// of seconds from 0.1 to 3600, else 2.
double line_period() {
  const char* text = std::getenv("MPTRAIN_PROGRESS_INTERVAL");
  if (text == nullptr) return 2.0;
  const auto seconds = parse_double(text);
  return seconds.ok() && *seconds >= 0.1 && *seconds <= 3600 ? *seconds : 2.0;
}

}  // namespace

Progress::Progress(std::function<void(std::string_view)> print)
    : print_(std::move(print)), terminal_(::isatty(STDERR_FILENO) != 0), line_period_(line_period()) {}

Progress::~Progress() { finish(); }

void Progress::update(const ProgressFigures& figures) {
  const auto now = Clock::now();
  const double since_shown = std::chrono::duration<double>(now - shown_).count();
  const double since_start = std::chrono::duration<double>(now - started_).count();
  // Off a terminal: nothing in the first second (a line at 0% says nothing), then a line every 2 seconds.
  if (!terminal_ && since_start < 1.0) return;
  const bool due = since_shown >= (terminal_ ? 0.2 : line_period_) || figures.verdict != shown_verdict_ ||
                   (watching_resize_ && resized != 0);
  if (!due) return;
  shown_ = now;
  shown_verdict_ = figures.verdict;
  if (terminal_) {
    draw_bar(figures);
  } else {
    print_(progress_line(figures) + "\n");
  }
  std::fflush(stderr);
}

void Progress::draw_bar(const ProgressFigures& figures) {
  if (!watching_resize_) {
    // Installed here, in the parent once the workers are forked, so no worker inherits it.
    struct sigaction action {};
    action.sa_handler = on_resize;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    watching_resize_ = ::sigaction(SIGWINCH, &action, &previous_resize_action) == 0;
  }
  resized = 0;
  const int columns = terminal_columns();
  const std::string line = progress_bar(figures, columns);
  // Spaces over the rest of a longer line drawn before, within the width.
  const std::size_t cover = std::min(drawn_, static_cast<std::size_t>(std::max(1, columns - 1)));
  const std::size_t pad = cover > line.size() ? cover - line.size() : 0;
  print_(fmt::format("\r{}{}", line, std::string(pad, ' ')));
  drawn_ = line.size();
}

void Progress::clear() {
  if (drawn_ > 0) print_(fmt::format("\r{}\r", std::string(drawn_, ' ')));
  drawn_ = 0;
}

void Progress::finish() {
  if (drawn_ > 0) print_("\n");
  drawn_ = 0;
  if (watching_resize_) ::sigaction(SIGWINCH, &previous_resize_action, nullptr);
  watching_resize_ = false;
}

}  // namespace mptrain::hogwild
