// One trial: start a candidate launch as a child process (`mptrain run …`,
// or the program bare under `mptrain doctor`), read the program's output
// while it runs, stop it after the measured window as a failed run is
// stopped (SIGTERM to the whole tree, SIGKILL after the grace), and return
// what was measured.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "procmgr/signals.hpp"
#include "tune/metric.hpp"

namespace mptrain::tune {

// How a trial is started and where its output goes.
struct TrialCommand {
  std::vector<std::string> argv;  // argv[0] an absolute path
  std::string directory;          // the trial's own empty folder
  // Where the program's output is read: the files DIRECTORY/rank-R.out and
  // .err (R the source), or mptrain's own stderr (DIRECTORY/mptrain.err,
  // the built-in training's progress lines) as source 0.
  bool read_mptrain_stderr = false;
};

// A trial's clock, in seconds from its start.
struct TrialTiming {
  double warmup = 0;  // not measured
  double window = 0;  // measured after the warm-up; 0 for a whole-run trial
  double limit = 0;   // a whole-run trial is stopped (and not counted) after this long
  double grace = 15;  // from SIGTERM to SIGKILL of the trial's process
};

// A windowed trial's measured span, in seconds from the trial's start. The
// warm-up starts when the program started (`program_started`: when its
// output showed it; nullopt while it has not), so that a launch slow to
// start it (a loaded machine, a sanitizer build) does not eat its warm-up;
// a program not seen to start within `longest_startup` seconds is measured
// from then.
inline constexpr double longest_startup = 30;
struct TrialWindow {
  double from = 0;
  double to = 0;
};
TrialWindow window_of(const TrialTiming& timing, std::optional<double> program_started);

// How a trial ended.
enum class TrialEnd {
  measured,     // the window passed (or a whole run ended with code 0)
  failed,       // the program ended on its own with a non-zero code
  ended_early,  // the program ended (code 0) inside the warm-up of a windowed trial
  over_limit,   // a whole run lasted longer than the limit
  interrupted,  // tune received a stop signal
};

// What a trial measured.
struct TrialResult {
  TrialEnd end = TrialEnd::measured;
  std::optional<double> throughput;        // in the metric's unit (seconds for a whole run)
  std::string unit;                        // the unit a --metric's numbers were read in ("" when none)
  int exit_code = 0;                       // the trial process's exit code (shell style)
  int stop_signal = 0;                     // the signal tune received (interrupted)
  double seconds = 0;                      // from start to exit (or to the moment tune stopped it)
  double wall_seconds = 0;                 // from start until the trial's process was gone (its teardown too)
  nlohmann::json report;                   // the run's or the doctor's JSON report; null when none
  std::vector<std::string> last_lines;     // the program's last output segments
  std::vector<std::string> mptrain_lines;  // the last lines mptrain itself printed on stderr
};

// The absolute path of the running mptrain binary (/proc/self/exe), which runs the trials.
Result<std::string> this_binary();

// A folder for the trials' output (mkdtemp mptrain-tune-XXXXXX under
// $TMPDIR or /tmp), removed with everything in it when this object goes.
// Its owner holds a lock on it while it lives (the kernel drops it when the
// owner dies); making one first removes this user's folders whose lock
// nobody holds, left by a tune that was killed (SIGKILL).
class WorkDirectory {
 public:
  static Result<std::unique_ptr<WorkDirectory>> make();
  ~WorkDirectory();
  WorkDirectory(const WorkDirectory&) = delete;
  WorkDirectory& operator=(const WorkDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  WorkDirectory(std::string path, int lock) : path_(std::move(path)), lock_(lock) {}
  std::string path_;
  int lock_ = -1;  // the folder itself, open and locked (flock)
};

// Removes the folders named mptrain-tune-* in `parent` that this user owns,
// that nobody holds locked and that have not changed for `quiet_s` seconds
// (a folder just made is locked at once). Returns how many it removed.
int remove_stale_work_directories(const std::string& parent, double quiet_s);

// Runs one trial of `command`, feeding its output to `reader`; stop signals
// arriving on `relay` interrupt it (the trial is stopped, nothing outlives
// it). An Error when the child cannot be started.
Result<TrialResult> run_trial(const TrialCommand& command, const TrialTiming& timing, MetricReader& reader,
                              procmgr::SignalRelay& relay);

}  // namespace mptrain::tune
