#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>

#include "procmgr/signals.hpp"
#include "util/fd.hpp"

namespace mptrain::procmgr {

namespace {

// stop_signals(), then the two the caller gives a meaning to, the two of job control (SIGTSTP,
// SIGCONT: handled in take()), then SIGCHLD.
constexpr int caught_signals[] = {SIGINT, SIGTERM, SIGHUP,  SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
                                  SIGPWR, SIGIO,   SIGUSR1, SIGUSR2, SIGTSTP,   SIGCONT, SIGCHLD};
constexpr int stop_count = 10;
constexpr int caught_count = sizeof caught_signals / sizeof caught_signals[0];

// Which caught signals were ignored when the relay was installed and stay
// ignored, in mptrain and in its workers: only SIGHUP (nohup). SIGINT and
// SIGTERM are always forwarded, even for a script's background job, which
// starts with SIGINT ignored; an ignored SIGCHLD would make the kernel reap
// the workers itself; built-in training ignores SIGUSR1 outside the group's
// life and still wants it caught during it.
bool ignored_at_install[caught_count] = {};

// The write end of the live relay's pipe (-1: none); read by the handler.
std::atomic<int> relay_write_fd{-1};
std::atomic<int> relay_read_fd{-1};

extern "C" void relay_handler(int signal) {
  const int saved_errno = errno;
  const unsigned char byte = static_cast<unsigned char>(signal);
  const int fd = relay_write_fd.load();
  if (fd >= 0) {
    // A full pipe drops the byte; SIGCHLD is re-checked by polling anyway.
    [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);
  }
  errno = saved_errno;
}

}  // namespace

std::span<const int> stop_signals() { return std::span<const int>(caught_signals, stop_count); }

struct SignalRelay::State {
  Pipe pipe;
  std::function<void(int)> job_control;
  struct sigaction previous[caught_count];
  sigset_t previous_mask;
};

SignalRelay::SignalRelay() : state_(std::make_unique<State>()) {}

Result<std::unique_ptr<SignalRelay>> SignalRelay::install() {
  if (relay_write_fd.load() >= 0) return Error{"internal error: a signal relay is already installed"};
  auto pipe = make_pipe(PipeMode::nonblocking_both);
  if (!pipe.ok()) return pipe.error();
  std::unique_ptr<SignalRelay> relay(new SignalRelay());
  relay->state_->pipe = std::move(*pipe);
  relay_read_fd.store(relay->state_->pipe.read.get());
  relay_write_fd.store(relay->state_->pipe.write.get());
  struct sigaction action {};
  action.sa_handler = relay_handler;
  ::sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < caught_count; ++i) {
    const int signal = caught_signals[i];
    ::sigaction(signal, nullptr, &relay->state_->previous[i]);
    // SIGHUP under nohup, and SIGTSTP where job control is off (a shell that ignores it for its jobs).
    ignored_at_install[i] = (signal == SIGHUP || signal == SIGTSTP) && relay->state_->previous[i].sa_handler == SIG_IGN;
    if (ignored_at_install[i]) continue;
    action.sa_flags = signal == SIGCHLD ? SA_RESTART | SA_NOCLDSTOP : SA_RESTART;
    ::sigaction(signal, &action, nullptr);
  }
  sigset_t unblock;
  ::sigemptyset(&unblock);
  for (int signal : caught_signals) ::sigaddset(&unblock, signal);
  ::pthread_sigmask(SIG_UNBLOCK, &unblock, &relay->state_->previous_mask);
  return relay;
}

SignalRelay::~SignalRelay() {
  for (int i = 0; i < caught_count; ++i) ::sigaction(caught_signals[i], &state_->previous[i], nullptr);
  ::pthread_sigmask(SIG_SETMASK, &state_->previous_mask, nullptr);
  relay_write_fd.store(-1);
  relay_read_fd.store(-1);
}

int SignalRelay::fd() const { return state_->pipe.read.get(); }

void SignalRelay::on_job_control(std::function<void(int)> pass_on) { state_->job_control = std::move(pass_on); }

void SignalRelay::suspend() {
  if (state_->job_control) state_->job_control(SIGTSTP);
  ::kill(::getpid(), SIGSTOP);  // as a shell's job stops; the shell's fg or bg continues it here
  if (state_->job_control) state_->job_control(SIGCONT);
}

std::vector<int> SignalRelay::take() {
  std::vector<int> signals;
  unsigned char buffer[64];
  for (;;) {
    const ssize_t n = ::read(fd(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      if (buffer[i] == SIGTSTP) {
        suspend();
      } else if (buffer[i] == SIGCONT) {
        if (state_->job_control) state_->job_control(SIGCONT);  // continued from a stop it did not take here
      } else {
        signals.push_back(buffer[i]);
      }
    }
  }
  return signals;
}

int SignalRelay::wait_for_signal(double seconds) {
  using SteadyClock = std::chrono::steady_clock;
  const auto end =
      SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
  for (double left = seconds; left > 0; left = std::chrono::duration<double>(end - SteadyClock::now()).count()) {
    pollfd ready{fd(), POLLIN, 0};
    if (::poll(&ready, 1, static_cast<int>(std::ceil(left * 1000))) <= 0) continue;  // timeout or EINTR
    for (int signal : take()) {
      if (signal != SIGCHLD) return signal;
    }
  }
  return 0;
}

void SignalRelay::reset_in_child() {
  struct sigaction action {};
  ::sigemptyset(&action.sa_mask);
  for (int i = 0; i < caught_count; ++i) {
    action.sa_handler = ignored_at_install[i] ? SIG_IGN : SIG_DFL;
    ::sigaction(caught_signals[i], &action, nullptr);
  }
  action.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &action, nullptr);
}

void SignalRelay::unblock_in_child() {
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

void SignalRelay::close_in_child() {
  const int write_fd = relay_write_fd.exchange(-1);
  const int read_fd = relay_read_fd.exchange(-1);
  if (write_fd >= 0) ::close(write_fd);
  if (read_fd >= 0) ::close(read_fd);
}

namespace {

volatile sig_atomic_t pending_stop = 0;  // the first stop signal while a PendingSignals lives
volatile sig_atomic_t pending_usr1 = 0;  // SIGUSR1 seen since the last take_usr1()

void pending_handler(int signal) {
  if (signal == SIGUSR1) {
    pending_usr1 = 1;
  } else if (pending_stop == 0) {
    pending_stop = signal;
  }
}

// What PendingSignals catches: the stop signals, SIGUSR2 (a stop for a run) and SIGUSR1.
constexpr int pending_count = stop_count + 2;

}  // namespace

struct PendingSignals::State {
  struct sigaction previous[pending_count];
  int signals[pending_count];
};

PendingSignals::PendingSignals() : state_(std::make_unique<State>()) {
  pending_stop = 0;
  pending_usr1 = 0;
  struct sigaction action {};
  action.sa_handler = pending_handler;
  ::sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int i = 0; i < pending_count; ++i) {
    const int signal = i < stop_count ? caught_signals[i] : (i == stop_count ? SIGUSR2 : SIGUSR1);
    state_->signals[i] = signal;
    ::sigaction(signal, nullptr, &state_->previous[i]);
    if (signal == SIGHUP && state_->previous[i].sa_handler == SIG_IGN) continue;  // nohup: stays ignored
    ::sigaction(signal, &action, nullptr);
  }
}

PendingSignals::~PendingSignals() {
  for (int i = 0; i < pending_count; ++i) ::sigaction(state_->signals[i], &state_->previous[i], nullptr);
}

int PendingSignals::stop() const { return pending_stop; }

bool PendingSignals::take_usr1() {
  const bool came = pending_usr1 != 0;
  pending_usr1 = 0;
  return came;
}

}  // namespace mptrain::procmgr
