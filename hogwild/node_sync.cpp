#include "hogwild/node_sync.hpp"

#include <algorithm>

namespace mptrain::hogwild {

NodeSync::NodeSync(NodeExchange& exchange, ParameterStore& store, double every_seconds)
    : exchange_(exchange),
      store_(store),
      every_(every_seconds),
      average_(store.parameters()),
      buffer_(store.parameters().size() + 1),
      own_(store.parameters().size()),
      step_(store.parameters().size()),
      last_(Clock::now()) {}

Status NodeSync::start() {
  if (auto status = exchange_.broadcast(store_.parameters(), 0); !status.ok()) return status;
  average_ = NodeAverage(store_.parameters());
  last_ = Clock::now();
  return ok_status();
}

Result<bool> NodeSync::round(bool finished) {
  const auto start = Clock::now();
  const std::size_t n = own_.size();
  store_.snapshot(own_);  // relaxed reads: the workers may be writing
  average_.progress(own_, own_);
  std::copy(own_.begin(), own_.end(), buffer_.begin());
  buffer_[n] = finished ? 1.0f : 0.0f;
  if (auto status = exchange_.sum(buffer_); !status.ok()) return status.error();
  const std::span<const float> summed(buffer_.data(), n);
  average_.finish_round(own_, summed, exchange_.size(), step_);
  const bool last = static_cast<int>(buffer_[n]) == exchange_.size();
  if (last) {
    // No worker runs anywhere: every node takes the average itself, then node 0's copy of it.
    const auto average = average_.average();
    std::copy(average.begin(), average.end(), store_.parameters().begin());
    if (auto status = exchange_.broadcast(store_.parameters(), 0); !status.ok()) return status.error();
  } else {
    store_.apply_update(step_);  // + (mean progress − own progress), beside the workers' updates
  }
  ++rounds_;
  seconds_ += std::chrono::duration<double>(Clock::now() - start).count();
  last_ = Clock::now();
  return last;
}

Status NodeSync::tick() {
  if (Clock::now() - last_ < every_) return ok_status();
  if (auto done = round(false); !done.ok()) return done.error();
  return ok_status();
}

Status NodeSync::finish() {
  for (;;) {
    auto done = round(true);
    if (!done.ok()) return done.error();
    if (*done) return ok_status();
  }
}

Result<std::vector<double>> NodeSync::gather(double value) {
  std::vector<double> values(static_cast<std::size_t>(exchange_.size()), 0.0);
  values[static_cast<std::size_t>(exchange_.rank())] = value;
  if (auto status = exchange_.sum(values); !status.ok()) return status.error();
  return values;
}

}  // namespace mptrain::hogwild
