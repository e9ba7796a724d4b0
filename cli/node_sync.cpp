#include "cli/node_sync.hpp"

#include <algorithm>

#include "util/failure.hpp"

namespace mptrain::cli {

namespace {

// node 0's parameters in `parameters` on every node.
std::span<float> from_node_zero(cluster::Mpi& mpi, std::span<float> parameters) {
  if (auto status = mpi.broadcast(parameters, 0); !status.ok()) runtime_failure("{}", status.error().message);
  return parameters;
}

}  // namespace

NodeSync::NodeSync(cluster::Mpi& mpi, hogwild::ParameterStore& store, double every_seconds)
    : mpi_(mpi),
      store_(store),
      every_(every_seconds),
      average_(from_node_zero(mpi, store.parameters())),
      buffer_(store.parameters().size() + 1),
      own_(store.parameters().size()),
      step_(store.parameters().size()),
      last_(Clock::now()) {}

bool NodeSync::round(bool finished) {
  const auto start = Clock::now();
  const std::size_t n = own_.size();
  store_.snapshot(own_);  // relaxed reads: the workers may be writing
  average_.progress(own_, own_);
  std::copy(own_.begin(), own_.end(), buffer_.begin());
  buffer_[n] = finished ? 1.0f : 0.0f;
  if (auto status = mpi_.sum(buffer_); !status.ok()) runtime_failure("{}", status.error().message);
  const std::span<const float> summed(buffer_.data(), n);
  average_.finish_round(own_, summed, mpi_.size(), step_);
  const bool last = static_cast<int>(buffer_[n]) == mpi_.size();
  if (last) {
    // No worker runs anywhere: every node takes the average itself, then node 0's copy of it.
    const auto average = average_.average();
    std::copy(average.begin(), average.end(), store_.parameters().begin());
    from_node_zero(mpi_, store_.parameters());
  } else {
    store_.apply_update(step_);  // + (mean progress − own progress), beside the workers' updates
  }
  ++rounds_;
  seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
  last_ = Clock::now();
  return last;
}

void NodeSync::tick() {
  if (Clock::now() - last_ >= every_) (void)round(false);
}

void NodeSync::finish() {
  while (!round(true)) {
  }
}

std::vector<double> NodeSync::gather(double value) {
  std::vector<double> values(static_cast<std::size_t>(mpi_.size()), 0.0);
  values[static_cast<std::size_t>(mpi_.rank())] = value;
  if (auto status = mpi_.sum(values); !status.ok()) runtime_failure("{}", status.error().message);
  return values;
}

}  // namespace mptrain::cli
