#include "cli/run.hpp"
#include "util/failure.hpp"

namespace mptrain::cli {

struct TrainOptions {};

std::shared_ptr<TrainOptions> add_train_options(CLI::App&) { return std::make_shared<TrainOptions>(); }

int run_training(const RunOptions&) { runtime_failure("not implemented yet"); }

}  // namespace mptrain::cli
