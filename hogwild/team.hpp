// The threads of one worker sharing each batch: a leader posts a batch, and
// every member (leader included) claims the work items of each phase, its
// own item first, then waits until all of the phase's items are done.
// Members that arrive late, or never, find nothing left to claim, so no one
// waits for a thread that is not running. Waiters spin briefly, then sleep.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace mptrain::hogwild {

class BatchTeam {
 public:
  // A team of `members` members, each phase of a batch having `members`
  // items; a waiter polls up to `spin` times before it sleeps.
  BatchTeam(int members, int spin);
  ~BatchTeam();
  BatchTeam(const BatchTeam&) = delete;
  BatchTeam& operator=(const BatchTeam&) = delete;

  // Leader: starts a new batch, after everything the leader wrote before;
  // returns its number (from 1 on).
  std::uint64_t post();
  // Leader: ends the team; every member's await_batch then returns 0.
  void close();
  // Member: waits for a batch numbered above `seen` and returns the newest
  // one, or 0 once the team is closed.
  std::uint64_t await_batch(std::uint64_t seen);
  // Member `member`: runs `work(item)` for each item of phase `phase` (0 to
  // phases - 1) of batch `batch` that it claims, own item first, then
  // waits until every item of that phase is done.
  void run_phase(int phase, std::uint64_t batch, int member, const std::function<void(int)>& work);
  // run_phase without the wait: the member can go on to a later phase
  // whose items do not need this one's, and await_phase later.
  void work_phase(int phase, std::uint64_t batch, int member, const std::function<void(int)>& work);
  // Waits until every item of phase `phase` of batch `batch` is done.
  void await_phase(int phase, std::uint64_t batch);
  // Item `item` (of any phase) says that a part of its work in batch
  // `batch` is done; await_marks waits until every item has said so. A
  // later phase's item can then start on what that part made before the
  // whole phase is done.
  void mark(int item, std::uint64_t batch);
  void await_marks(std::uint64_t batch);

  static constexpr int phases = 3;

 private:
  struct alignas(64) Counter {
    std::atomic<std::uint64_t> value{0};
  };
  // Claims item `item` of phase `phase` in batch `batch`; false when someone has.
  bool claim(int phase, int item, std::uint64_t batch);
  // Waits until `counter` reaches `target`.
  void wait_at_least(Counter& counter, std::uint64_t target) const;

  int members_;
  int spin_;
  Counter batch_;
  Counter closed_;
  Counter done_[phases];
  std::unique_ptr<Counter[]> claims_[phases];  // per item, the latest batch that claimed it
  std::unique_ptr<Counter[]> marks_;           // per item, the latest batch it marked
};

}  // namespace mptrain::hogwild
