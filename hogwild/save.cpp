#include "hogwild/save.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "hogwild/checkpoint.hpp"
#include "hogwild/training.hpp"
#include "util/failure.hpp"
#include "util/output_file.hpp"
#include "util/text.hpp"

namespace mptrain::hogwild {

std::vector<RunInput> run_inputs(const TrainConfig& config) {
  std::vector<RunInput> inputs;
  for (auto split : {Split::train, Split::test}) {
    const char* role = split == Split::train ? "the training data (--data)" : "the test data (--data)";
    for (const auto& stem : idx_stems(split)) {
      if (auto path = find_idx_file(config.data, stem); path.ok()) inputs.push_back({*path, role});
    }
  }
  return inputs;
}

void check_save_path(const TrainConfig& config) {
  if (config.save_model.empty()) return;
  check_output_file({config.save_model, "--save-model", checkpoint_file, run_inputs(config)});
}

std::optional<FileLock> lock_save_path(const TrainConfig& config) {
  if (config.save_model.empty()) return std::nullopt;
  return value_or_fail(FileLock::acquire(config.save_model, "--save-model"));
}

void save_model(const TrainConfig& config, ParameterStore& store, TrainReport& report) {
  if (config.save_model.empty()) return;
  const auto epochs = report.resumed.epochs + static_cast<std::uint64_t>(store.totals().completed_epochs);
  const auto saved = save_checkpoint(config.save_model, model_layout(config.settings.model), store.parameters(), epochs,
                                     report.resumed.samples + report.samples);
  if (saved.ok()) {
    report.saved_model = config.save_model;
  } else {
    report.save_error = saved.error().message;
    report.save_errno = saved.error().code;
  }
}

SignalSave save_on_signal(const TrainConfig& config, const ParameterStore& store, const Resumed& resumed) {
  if (config.save_model.empty()) {
    return {false, false, "SIGUSR1: no --save-model PATH was given, so nothing was saved; training goes on"};
  }
  // A copy: the workers keep updating the shared parameters, and the
  // checkpoint's checksum must match the bytes it holds.
  const auto layout = model_layout(config.settings.model);
  std::vector<float> parameters(layout.parameter_count);
  store.snapshot(parameters);
  if (!all_finite(parameters)) {
    return {
        false, true,
        fmt::format("SIGUSR1: the model is NaN or infinite; not saved over {}; training goes on", config.save_model)};
  }
  const auto totals = store.totals();
  const auto epochs = resumed.epochs + static_cast<std::uint64_t>(totals.completed_epochs);
  const auto saved = save_checkpoint(config.save_model, layout, parameters, epochs, resumed.samples + totals.samples);
  if (!saved.ok()) {
    return {false, true, fmt::format("SIGUSR1: cannot save the model: {}; training goes on", saved.error().message)};
  }
  return {true, false,
          fmt::format("SIGUSR1: saved the model after {} to {}; training goes on",
                      counted(static_cast<long long>(totals.samples), "sample"), config.save_model)};
}

bool exists_now(const std::string& path) {
  std::error_code error;
  return std::filesystem::exists(std::filesystem::symlink_status(path, error));
}

std::string save_advice(int code) { return write_failure_advice(code, "choose another --save-model path"); }

}  // namespace mptrain::hogwild
