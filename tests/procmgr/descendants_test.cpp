#include "procmgr/descendants.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>

using namespace mptrain::procmgr;

namespace {

// The entry of `pid` in `found`, or nullptr.
const Descendant* find_pid(const std::vector<Descendant>& found, pid_t pid) {
  const auto it = std::find_if(found.begin(), found.end(), [pid](const Descendant& d) { return d.pid == pid; });
  return it == found.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("live_descendants lists a child and a grandchild with their groups, and leaves out `except`'s tree") {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  if (child == 0) {
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {
      ::setpgid(0, 0);
      for (;;) ::pause();
    }
    if (::write(ready[1], &grandchild, sizeof grandchild) != sizeof grandchild) ::_exit(1);
    for (;;) ::pause();
  }
  pid_t grandchild = 0;
  REQUIRE(::read(ready[0], &grandchild, sizeof grandchild) == sizeof grandchild);
  std::vector<Descendant> found;
  for (int i = 0; i < 200; ++i) {  // until the grandchild's setpgid shows
    found = live_descendants(0);
    const auto* entry = find_pid(found, grandchild);
    if (entry != nullptr && entry->group == grandchild) break;
    ::usleep(10 * 1000);
  }
  const auto* first = find_pid(found, child);
  const auto* second = find_pid(found, grandchild);
  REQUIRE(first != nullptr);
  REQUIRE(second != nullptr);
  CHECK(first->group == ::getpgrp());
  CHECK(second->group == grandchild);
  pid_t group = 0;
  CHECK(same_process(grandchild, second->start, &group));
  CHECK(group == grandchild);
  CHECK_FALSE(same_process(grandchild, second->start + 1, &group));
  const auto without = live_descendants(child);
  CHECK(find_pid(without, child) == nullptr);
  CHECK(find_pid(without, grandchild) == nullptr);
  ::kill(grandchild, SIGKILL);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  // The grandchild went to init (no subreaper here): gone from the list once dead.
  for (int i = 0; i < 200 && find_pid(live_descendants(0), grandchild) != nullptr; ++i) ::usleep(10 * 1000);
  CHECK(find_pid(live_descendants(0), grandchild) == nullptr);
}
