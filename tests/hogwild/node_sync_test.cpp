// Averaging across nodes, over exchanges that stand for the other nodes.
#include "hogwild/node_sync.hpp"

#include <catch2/catch.hpp>
#include <vector>

using namespace mptrain;
using namespace mptrain::hogwild;

namespace {

// Node `rank` of `size` nodes whose others have made no progress and whose
// workers end with this one's: a sum adds nothing but the "ended" flags, and
// node 0's parameters are `node_zero`.
class QuietNodes final : public NodeExchange {
 public:
  QuietNodes(int rank, int size, std::vector<float> node_zero)
      : rank_(rank), size_(size), node_zero_(std::move(node_zero)) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  Status broadcast(std::span<float> values, int root) override {
    ++broadcasts;
    if (root != rank_) std::copy(node_zero_.begin(), node_zero_.end(), values.begin());
    return ok_status();
  }
  Status sum(std::span<float> values) override {
    ++sums;
    // The others' progress is 0; the last element is the count of nodes whose workers ended.
    if (values.back() > 0) values.back() = static_cast<float>(size_);
    return ok_status();
  }
  Status sum(std::span<double> values) override {
    for (auto& value : values) value = value == 0 ? 1.0 : value;  // the others say 1
    return ok_status();
  }
  int broadcasts = 0;
  int sums = 0;

 private:
  int rank_;
  int size_;
  std::vector<float> node_zero_;
};

// An exchange whose every call fails.
class BrokenExchange final : public NodeExchange {
 public:
  int rank() const override { return 0; }
  int size() const override { return 2; }
  Status broadcast(std::span<float>, int) override { return Error{"broadcast failed"}; }
  Status sum(std::span<float>) override { return Error{"sum failed"}; }
  Status sum(std::span<double>) override { return Error{"sum failed"}; }
};

ParameterStore logreg_store(float value) {
  auto store = ParameterStore::create(model_layout(ModelKind::logreg), 1);
  REQUIRE(store.ok());
  for (auto& parameter : store->parameters()) parameter = value;
  return std::move(store).value();
}

}  // namespace

TEST_CASE("node sync starts every node from node 0's parameters") {
  auto store = logreg_store(3.0f);
  const std::vector<float> node_zero(store.parameters().size(), 1.0f);
  QuietNodes exchange(1, 2, node_zero);
  NodeSync sync(exchange, store, 1.0);
  REQUIRE(sync.start().ok());
  CHECK(store.parameters()[0] == 1.0f);
  CHECK(exchange.broadcasts == 1);
}

TEST_CASE("node sync moves a node's store to the mean of the nodes' progress") {
  auto store = logreg_store(0.0f);
  QuietNodes exchange(0, 2, std::vector<float>(store.parameters().size(), 0.0f));
  NodeSync sync(exchange, store, 0.01);
  REQUIRE(sync.start().ok());
  for (auto& parameter : store.parameters()) parameter = 2.0f;  // this node's workers moved by 2, the other's by 0
  REQUIRE(sync.finish().ok());
  CHECK(store.parameters()[0] == Approx(1.0f));
  CHECK(store.parameters().back() == Approx(1.0f));
  CHECK(sync.rounds() == 1);
  CHECK(exchange.broadcasts == 2);  // the start, then node 0's final average
}

TEST_CASE("node sync waits for its period between rounds while training") {
  auto store = logreg_store(0.0f);
  QuietNodes exchange(0, 2, std::vector<float>(store.parameters().size(), 0.0f));
  NodeSync sync(exchange, store, 3600);
  REQUIRE(sync.start().ok());
  REQUIRE(sync.tick().ok());
  CHECK(exchange.sums == 0);
  CHECK(sync.period() == std::chrono::milliseconds(3600 * 1000));
}

TEST_CASE("node sync gathers each node's figure in node order") {
  auto store = logreg_store(0.0f);
  QuietNodes exchange(1, 3, std::vector<float>(store.parameters().size(), 0.0f));
  NodeSync sync(exchange, store, 1.0);
  const auto values = sync.gather(5.0);
  REQUIRE(values.ok());
  CHECK(*values == std::vector<double>{1.0, 5.0, 1.0});
}

TEST_CASE("node sync passes on the exchange's errors") {
  auto store = logreg_store(0.0f);
  BrokenExchange exchange;
  NodeSync sync(exchange, store, 0.01);
  CHECK(sync.start().error().message == "broadcast failed");
  CHECK(sync.finish().error().message == "sum failed");
  CHECK_FALSE(sync.gather(1.0).ok());
}
