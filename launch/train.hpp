// The built-in Hogwild training as a launch: the phases of `mptrain run`
// without a command after its plan (cli/run_train.cpp plans, then calls
// these in order): the data and the shared model, the pinned workers with
// progress, the live verdict, each epoch's evaluation and the averaging
// across nodes, then the refusal of a diverged model, the save and the
// final evaluation. The policy is hogwild/training.hpp's.
#pragma once

#include <memory>
#include <optional>
#include <span>

#include "affinity/plan.hpp"
#include "cluster/identity.hpp"
#include "cluster/rendezvous.hpp"
#include "hogwild/checkpoint.hpp"
#include "hogwild/isa.hpp"
#include "hogwild/node_sync.hpp"
#include "hogwild/progress.hpp"
#include "hogwild/save.hpp"
#include "hogwild/training.hpp"
#include "monitor/run_monitor.hpp"
#include "procmgr/signals.hpp"
#include "util/file_lock.hpp"
#include "util/run_registry.hpp"

namespace mptrain::launch {

// MPI as the exchange of the nodes' averaging.
class MpiExchange final : public hogwild::NodeExchange {
 public:
  explicit MpiExchange(cluster::Mpi& mpi) : mpi_(mpi) {}
  int rank() const override { return mpi_.rank(); }
  int size() const override { return mpi_.size(); }
  Status broadcast(std::span<float> values, int root) override { return mpi_.broadcast(values, root); }
  Status sum(std::span<float> values) override { return mpi_.sum(values); }
  Status sum(std::span<double> values) override { return mpi_.sum(values); }

 private:
  cluster::Mpi& mpi_;
};

// What the phases of a run share, made in place (the averaging refers to the store and the exchange).
struct TrainRun {
  hogwild::TrainConfig config;
  cluster::NodeIdentity node;
  affinity::Plan plan;
  hogwild::Isa kernels = hogwild::Isa::sse2;    // the kernels training uses (hogwild/isa.hpp), for the report
  std::optional<FileLock> save_lock;            // node 0 alone saves, so it alone holds --save-model's lock
  std::optional<RunRegistration> registration;  // what this run holds, for the runs beside it
  std::unique_ptr<cluster::Mpi> mpi;            // null on one node
  std::optional<MpiExchange> exchange;
  hogwild::Dataset train_data;
  hogwild::Dataset test_data;
  hogwild::ParameterStore store;
  hogwild::Resumed resumed;
  std::optional<hogwild::NodeSync> sync;
  bool leader() const { return node.rank == 0; }
};

// The MPI session of built-in training across nodes; null on one node.
// Several nodes need an MPI launcher: only MPI can average their models;
// throws a usage Failure when the nodes were not started by one.
std::unique_ptr<cluster::Mpi> start_nodes(const cluster::NodeIdentity& node);

// Phases 2 and 3 of `run` (planned, its nodes started), each followed by a
// look at the signals held during start-up (`startup`):
// 2. Data: loaded once into shared read-only memory, inherited by every
//    worker; across nodes, each node trains its own shard.
// 3. The shared parameter store: initialised, or the checkpoint to resume
//    (across nodes, node 0's, so every node starts from the same model).
void load(TrainRun& run, procmgr::PendingSignals& startup);

// 4. Forks the pinned workers and shows progress, the monitor's live
// verdict and each epoch's evaluation, and averages with the other nodes,
// until they end; a worker's failure is recorded in the report, not
// thrown, so the shared model can still be saved. SIGUSR1 saves a
// checkpoint while the workers go on; every other stop signal stops them
// (SIGTERM: after their batch) and is reported.
hogwild::TrainReport train(TrainRun& run, monitor::RunMonitor& monitor, hogwild::EpochEvaluator& evaluator,
                           hogwild::Progress& progress);

// Phases 5 to 7, on the report of `train`: the figures across nodes, then
// 5. a model whose loss became NaN or infinite is never saved (exit 1);
// 6. save, also after SIGINT/SIGTERM or a worker's death (the shared model
//    survives it), before anything else can go wrong; node 0 only;
// 7. evaluate the final model on the test set (node 0).
void finish_training(TrainRun& run, hogwild::EpochEvaluator& evaluator, hogwild::Progress& progress,
                     hogwild::TrainReport& report);

}  // namespace mptrain::launch
