#include "hogwild/team.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

using namespace mptrain::hogwild;

namespace {

// Work items that write and read plain arrays: each phase reads what an
// earlier one wrote, so a missing wait shows as a wrong value (and, under
// ThreadSanitizer, as a race).
struct Board {
  explicit Board(int members)
      : first(static_cast<std::size_t>(members)),
        second(static_cast<std::size_t>(members)),
        third(static_cast<std::size_t>(members)),
        runs(static_cast<std::size_t>(members) * BatchTeam::phases) {}
  std::vector<std::uint64_t> first;   // phase 0, before its item's mark
  std::vector<std::uint64_t> second;  // phase 0, after its mark
  std::vector<std::uint64_t> third;   // phase 1: the sum of every `first`
  std::vector<int> runs;              // per phase and item, how often it ran in the batch
};

// One member's share of batch `batch`, in the order WorkerLoop::share_batch
// takes it: phase 0 (marking half-way), phase 1 once every item marked,
// phase 0's wait, phase 2, then phase 1's wait.
void share(BatchTeam& team, Board& board, std::uint64_t batch, int member, int members, bool& right) {
  team.work_phase(0, batch, member, [&](int item) {
    ++board.runs[static_cast<std::size_t>(item)];
    // Later items take longer, so a member done with its own item goes on to
    // phase 1 while another item is still writing what that phase reads.
    std::this_thread::sleep_for(std::chrono::microseconds(20 * item));
    board.first[static_cast<std::size_t>(item)] = batch * 10 + static_cast<std::uint64_t>(item);
    team.mark(item, batch);
    std::this_thread::yield();  // the rest of the item's work, after its mark
    board.second[static_cast<std::size_t>(item)] = batch;
  });
  team.work_phase(1, batch, member, [&](int item) {
    ++board.runs[static_cast<std::size_t>(members + item)];
    team.await_marks(batch);
    std::uint64_t sum = 0;
    for (int k = 0; k < members; ++k) sum += board.first[static_cast<std::size_t>(k)];
    board.third[static_cast<std::size_t>(item)] = sum;
  });
  team.await_phase(0, batch);
  team.run_phase(2, batch, member, [&](int item) {
    ++board.runs[static_cast<std::size_t>(2 * members + item)];
    for (int k = 0; k < members; ++k) right = right && board.second[static_cast<std::size_t>(k)] == batch;
  });
  team.await_phase(1, batch);
}

// After batch `batch` (the leader, once share returned): every phase 1 item saw every phase 0 item's mark.
bool sums_right(const Board& board, std::uint64_t batch, int members) {
  std::uint64_t expected = 0;
  for (int k = 0; k < members; ++k) expected += batch * 10 + static_cast<std::uint64_t>(k);
  for (int k = 0; k < members; ++k) {
    if (board.third[static_cast<std::size_t>(k)] != expected) return false;
  }
  return true;
}

}  // namespace

TEST_CASE(
    "a team's phase that starts on marked work sees every item's marked result, and each item runs once a batch") {
  for (const int members : {2, 3}) {
    INFO(members << " members");
    constexpr int batches = 300;
    BatchTeam team(members, 64);
    Board board(members);
    std::vector<char> helper_right(static_cast<std::size_t>(members), 1);
    std::vector<std::thread> helpers;
    for (int member = 1; member < members; ++member) {
      helpers.emplace_back([&, member] {
        bool right = true;
        for (std::uint64_t batch = team.await_batch(0); batch != 0; batch = team.await_batch(batch)) {
          share(team, board, batch, member, members, right);
        }
        helper_right[static_cast<std::size_t>(member)] = right ? 1 : 0;
      });
    }
    bool right = true;
    bool each_once = true;
    for (int b = 0; b < batches; ++b) {
      std::fill(board.runs.begin(), board.runs.end(), 0);
      const std::uint64_t batch = team.post();
      share(team, board, batch, 0, members, right);
      right = right && sums_right(board, batch, members);
      for (int runs : board.runs) each_once = each_once && runs == 1;
    }
    team.close();
    for (auto& helper : helpers) helper.join();
    CHECK(right);
    CHECK(each_once);
    for (int member = 1; member < members; ++member) CHECK(helper_right[static_cast<std::size_t>(member)] == 1);
  }
}
