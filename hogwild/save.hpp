// Where the built-in training saves its model (--save-model): the checks the
// path passes before training, the lock held on it for the run's life, the
// save after training, a copy saved on SIGUSR1 while the workers go on, and
// what to do when a save fails. Only node 0 saves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hogwild/report.hpp"
#include "hogwild/store.hpp"
#include "util/file_lock.hpp"
#include "util/fs.hpp"

namespace mptrain::hogwild {

struct TrainConfig;  // training.hpp

// The files a run reads that --save-model must not replace: the IDX files
// of --data. The --resume checkpoint is not one of them: it is read before
// training, so saving over it (to go on from it next time) is allowed.
std::vector<RunInput> run_inputs(const TrainConfig& config);

// Refuses a --save-model path that would fail or do harm only after
// training: a name too long for the file system, an input of this run, a
// file that is not a checkpoint (usage Failures), a directory where the
// checkpoint cannot be created with the owner of the file it replaces
// (runtime Failure). Nothing to check without --save-model.
void check_save_path(const TrainConfig& config);

// The lock on --save-model held for the run's life, so that a second run
// given the same path is refused before it trains (a runtime Failure); none
// without --save-model.
std::optional<FileLock> lock_save_path(const TrainConfig& config);

// Writes --save-model with the run's totals (`report.resumed` included),
// recording in `report` where it went or why it could not be written.
void save_model(const TrainConfig& config, ParameterStore& store, TrainReport& report);

// What a SIGUSR1 during training did: `saved`, and the line that says so
// (`warning`: something went wrong; else a note).
struct SignalSave {
  bool saved = false;
  bool warning = false;
  std::string message;
};
// On SIGUSR1 during training: saves a copy of the shared model, as the
// workers have it now, to --save-model while they go on (a model that is
// not finite is never saved).
SignalSave save_on_signal(const TrainConfig& config, const ParameterStore& store, const Resumed& resumed);

// True when something (a file, a link) is at `path` now.
bool exists_now(const std::string& path);
// What to do when the model could not be saved for errno `code`.
std::string save_advice(int code);

}  // namespace mptrain::hogwild
