// What a built-in training reports: the figures of the run (`TrainReport`),
// and the report they make, as text and as the JSON document of SPEC.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "affinity/plan.hpp"
#include "hogwild/isa.hpp"
#include "hogwild/trainer.hpp"

namespace mptrain::hogwild {

struct TrainConfig;  // training.hpp

// One test-set evaluation after an epoch.
struct EpochEvaluation {
  int epoch = 0;
  Evaluation result;
};

// What --resume started from: the checkpoint's epochs and samples (0 and 0: a fresh model).
struct Resumed {
  std::uint64_t epochs = 0;
  std::uint64_t samples = 0;
};

// Everything the report shows.
struct TrainReport {
  std::uint64_t samples = 0;
  double train_seconds = 0;
  Evaluation test;
  std::vector<std::uint64_t> worker_samples;
  std::uint64_t flops = 0;             // performed by the workers' kernels (Network::flops_done)
  std::vector<double> worker_seconds;  // each worker's wall time
  std::vector<EpochEvaluation> epochs;
  int interrupted_by = 0;          // the signal that stopped training early, 0: none
  int signal_checkpoints = 0;      // checkpoints saved on SIGUSR1 while training went on
  std::optional<int> failed_rank;  // the worker whose failure stopped training, if any
  int failure_code = 0;            // its exit code, as a shell reports it
  std::string failed_worker;       // "rank 1 (pid 1234) killed by SIGKILL"
  std::string failure;             // what main prints about it
  std::string saved_model;         // where the model was saved; empty: not saved
  std::string save_error;          // why --save-model could not be written; empty: no error
  int save_errno = 0;              // the errno behind save_error, 0: none known
  // This node: its rank, the node count and where they came from ("single node", "Open MPI").
  int node_rank = 0;
  int node_count = 1;
  std::string node_source;
  // Across nodes (empty / 0 on one node):
  std::vector<double> node_samples_per_second;  // each node's samples/s, in node order
  int sync_rounds = 0;                          // rounds of averaging
  double sync_seconds = 0;                      // time this node spent averaging
  std::string model_checksum;                   // CRC-32 of the final parameters, the same on every node
  Isa kernels = Isa::sse2;                      // the instruction set the workers' kernels were built for
  Resumed resumed;
};

// The run's samples per second (0 before any time passed).
double samples_per_second(const TrainReport& report);
// Worker `rank`'s samples per second.
double worker_rate(const TrainReport& report, std::size_t rank);
// The learning rate this node's workers stepped at: --lr, times the node count with --lr-scaling linear.
float node_learning_rate(const TrainConfig& config, const TrainReport& report);

// The text report of `report` for `plan` and `config`; `workers` says the
// plan's size ("2 workers x 1 thread"), `monitor` is the monitor's part.
std::string text_report(const affinity::Plan& plan, const TrainConfig& config, const TrainReport& report,
                        std::string_view workers, std::string_view monitor);

// The JSON report of `report` for `plan` and `config`, whose training set
// held `train_samples` samples; `monitor` is the monitor's part.
nlohmann::json json_report(const affinity::Plan& plan, const TrainConfig& config, const TrainReport& report,
                           int train_samples, nlohmann::json monitor);

}  // namespace mptrain::hogwild
