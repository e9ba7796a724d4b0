// Turning asynchronous signals into readable bytes (the self-pipe trick), so
// the supervisor can wait for worker output, child exits and forwarded
// signals with one poll().
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "util/result.hpp"

namespace mptrain::procmgr {

// The catchable signals whose default action ends a process and that mptrain
// turns into a clean stop (forwarded to the workers, training saved and
// reported, exit 128 + signal): SIGINT, SIGTERM, SIGHUP, SIGALRM, SIGVTALRM,
// SIGPROF, SIGXCPU, SIGXFSZ, SIGPWR and SIGIO. SIGUSR1 and SIGUSR2 are caught
// too, their meaning left to the caller. Not caught: SIGQUIT (a core dump on
// request), the faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP,
// SIGSYS), SIGKILL and SIGSTOP (uncatchable) and the real-time signals.
std::span<const int> stop_signals();

// While alive, catches stop_signals(), SIGUSR1, SIGUSR2, SIGTSTP, SIGCONT and
// SIGCHLD and writes each one's number to a pipe; restores the previous
// handlers and signal mask on destruction. A SIGHUP ignored at installation
// (nohup) stays ignored, by mptrain and by its workers, and so does an
// ignored SIGTSTP; the others are always caught. Job control is handled as
// the signals are taken: SIGTSTP (Ctrl-Z) stops this process as a shell's
// job stops, and SIGCONT continues it, each passed on first to what
// on_job_control names. At most one exists at a time.
class SignalRelay {
 public:
  // Installs the handlers; an Error when a relay already exists or a call fails.
  static Result<std::unique_ptr<SignalRelay>> install();
  ~SignalRelay();
  SignalRelay(const SignalRelay&) = delete;
  SignalRelay& operator=(const SignalRelay&) = delete;

  // A descriptor that polls readable when signals have arrived.
  int fd() const;
  // The signals received since the last call, oldest first (SIGCHLD included;
  // SIGTSTP and SIGCONT are acted on here, not returned).
  std::vector<int> take();
  // Who else stops and continues with this process: `pass_on` is called with
  // SIGTSTP before it stops and with SIGCONT once it runs again (the workers'
  // process group, which the terminal's Ctrl-Z does not reach).
  void on_job_control(std::function<void(int)> pass_on);
  // Waits up to `seconds` for a signal other than SIGCHLD (SIGCHLDs taken
  // meanwhile are dropped); returns it, or 0 when none came.
  int wait_for_signal(double seconds);
  // Resets the caught signals and SIGPIPE to their default dispositions (or
  // SIG_IGN for those ignored at installation); the signal mask is left as
  // it is. Async-signal-safe: for a child between fork and exec.
  static void reset_in_child();
  // Unblocks all signals (async-signal-safe).
  static void unblock_in_child();
  // Closes the relay's descriptors in a forked child (async-signal-safe).
  static void close_in_child();

 private:
  SignalRelay();
  // Stops this process (SIGSTOP), passing SIGTSTP on before and SIGCONT after.
  void suspend();
  struct State;
  std::unique_ptr<State> state_;
};

// While alive (a run's start-up, before its group's SignalRelay exists):
// the first of stop_signals() or SIGUSR2 that arrives is recorded instead of
// ending the process, and so is SIGUSR1; restores the previous handlers on
// destruction. A SIGHUP ignored at installation (nohup) stays ignored. At
// most one exists at a time.
class PendingSignals {
 public:
  PendingSignals();
  ~PendingSignals();
  PendingSignals(const PendingSignals&) = delete;
  PendingSignals& operator=(const PendingSignals&) = delete;

  // The first stop signal received, 0 when none.
  int stop() const;
  // Whether SIGUSR1 arrived since the last call.
  bool take_usr1();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace mptrain::procmgr
