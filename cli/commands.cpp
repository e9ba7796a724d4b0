#include "cli/commands.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cluster/identity.hpp"
#include "util/environment.hpp"
#include "util/failure.hpp"
#include "util/fd.hpp"

namespace mptrain::cli {

namespace {

// The errno of the first failed write to stdout (0: none seen).
int stdout_error = 0;

// Writes `text` to `stream`; the errno of a short write, or 0.
int write_all(std::FILE* stream, std::string_view text) {
  if (text.empty() || std::fwrite(text.data(), 1, text.size(), stream) == text.size()) return 0;
  return errno != 0 ? errno : EIO;
}

std::string write_failure(int error) {
  if (error == EBADF) return "cannot write the report to stdout: it is closed; redirect it to a file or pipe";
  if (error == 0) return "cannot write the report to stdout";
  return fmt::format("cannot write the report to stdout: {}", std::strerror(error));
}

}  // namespace

void add_command_words(CLI::App& command, std::vector<std::string>& words, const std::string& description) {
  constexpr int all_words = CLI::detail::expected_max_vector_size;
  command.add_option("command", words, description)
      ->allow_extra_args(false)
      ->expected(all_words, all_words)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void check_command_words(std::span<char* const> args) {
  // The command is the first word: mptrain itself takes only --help and --version.
  const std::string_view command = args.empty() ? std::string_view() : std::string_view(args.front());
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (std::string_view(args[i]) != "--") continue;
    if (command == "plan" || command == "topo") {
      usage_failure("{} runs no command: remove '--' and what follows it (see 'mptrain {} --help')", command, command);
    }
    const std::string_view runner = command == "doctor" ? "doctor" : "run";
    if (i + 1 == args.size()) {
      usage_failure("nothing to run after '--'; give the command after it (mptrain {} -- python train.py)", runner);
    }
    if (args[i + 1][0] == '\0') {
      usage_failure("the command after '--' is an empty word; give a program to run (mptrain {} -- python train.py)",
                    runner);
    }
    return;
  }
}

void print_report(std::string_view text) {
  const int error = write_all(stdout, text);
  if (stdout_error == 0) stdout_error = error;
}

void print_json(const nlohmann::json& document) {
  // Under mpirun stdout may be a pseudo-terminal that several ranks share: one line there too.
  const bool terminal = ::isatty(STDOUT_FILENO) == 1 && !cluster::started_by_parallel_launcher(current_environment());
  std::string text = document.dump(terminal ? 2 : -1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  if (terminal) {
    print_report(text);
    return;
  }
  // A pipe, a file, mpirun's forwarding: one line in one write(2), so that
  // the documents of several ranks never interleave.
  if (std::fflush(stdout) != 0 && stdout_error == 0) stdout_error = errno;
  if (const auto written = mptrain::write_all(STDOUT_FILENO, text, "stdout"); !written.ok() && stdout_error == 0) {
    stdout_error = written.error().code;
  }
}

int finish_stdout(int code, int write_error) {
  if (stdout_error == 0) stdout_error = write_error;
  if (std::fflush(stdout) != 0 && stdout_error == 0) stdout_error = errno;
  if (stdout_error == 0 && !std::ferror(stdout)) return code;
  if (stdout_error == EPIPE) return code;  // the reader had enough, as with `| head`
  print_error(write_failure(stdout_error));
  return code == exit_code::success ? exit_code::runtime_failure : code;
}

hogwild::IsaChoice chosen_kernels() { return value_or_fail(hogwild::isa_choice(), exit_code::usage_error); }

std::string version_text() {
  return fmt::format("mptrain {}\nkernels: {}", MPTRAIN_VERSION, hogwild::describe(chosen_kernels()));
}

}  // namespace mptrain::cli
