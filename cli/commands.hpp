// The subcommands of mptrain. Each file under cli/ registers one command's
// options on the CLI11 app and, when that command is chosen, sets the runner
// that main() calls after parsing. Commands throw mptrain::Failure on error.
//
// Reports go to stdout through print_report and print_json only; main()
// calls finish_stdout once at exit, so a report that could not be written
// (a full disk, a closed descriptor) is an error, never a silent success.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hogwild/isa.hpp"
#include "util/console.hpp"
#include "util/fs.hpp"
#include "util/text.hpp"

namespace mptrain::cli {

// The chosen command's entry point; returns the process exit code.
using Runner = std::function<int()>;

// Registers `mptrain topo` on `app`; sets `runner` when it is chosen.
void add_topo_command(CLI::App& app, Runner& runner);
// Registers `mptrain plan` on `app`; sets `runner` when it is chosen.
void add_plan_command(CLI::App& app, Runner& runner);
// Registers `mptrain run` (training and launcher modes) on `app`; sets `runner` when it is chosen.
void add_run_command(CLI::App& app, Runner& runner);
// Registers `mptrain doctor` on `app`; sets `runner` when it is chosen.
void add_doctor_command(CLI::App& app, Runner& runner);
// Registers `mptrain tune` on `app` (cli/tune.cpp); sets `runner` when it is chosen.
void add_tune_command(CLI::App& app, Runner& runner);
// Registers `mptrain torchrun` on `app`, which takes torchrun's command line
// as it is (cli/torchrun.cpp); sets `runner` when it is chosen.
void add_torchrun_command(CLI::App& app, Runner& runner);

// `mptrain run --tuned[=FILE] …`: `args` (argv) with --tuned replaced by
// the options of tune's saved result for the command after "--" (or FILE's),
// after saying on stderr which result it applies and how old it is;
// `args` unchanged for any other command line. Throws a usage Failure when
// there is no result, it was measured on other CPUs or another topology,
// or it sets an option the command line gives too (cli/tuned.cpp).
std::vector<std::string> apply_tuned(std::vector<std::string> args);

// Registers the positional `command`: every word after "--", taken verbatim
// into `words` (CLI11 would otherwise split a word such as "[a,b]").
void add_command_words(CLI::App& command, std::vector<std::string>& words, const std::string& description);
// Throws a usage Failure when `args` (argv without argv[0]) end with the
// first "--" (nothing after it to run), or when the command after it is the
// empty word: CLI11 cannot tell `run --` from `run`.
void check_command_words(std::span<char* const> args);

// Writes `text` to stdout, where reports go. Never throws: a failed write
// is remembered by stdout's error flag and reported by finish_stdout.
void print_report(std::string_view text);
// Writes `document` as the one JSON document on stdout, newline-terminated:
// pretty on a terminal, else (and under mpirun or srun, whose terminal
// several ranks share) one line in one write(2), so that the documents of
// several ranks never interleave. Bytes of its strings that are not
// UTF-8 (a file name, a command's argument) are written as U+FFFD, so a
// finished report is never lost to them.
void print_json(const nlohmann::json& document);
// Flushes stdout and returns `code`; when a write of the report failed (or
// `write_error`, the errno of a failed write the caller caught, is set),
// prints "mptrain: error: cannot write the report to stdout: …" and returns
// 1, or `code` when that already says the command failed. A reader that
// closed the pipe (EPIPE) is no error: nothing is printed. Call once, at exit.
int finish_stdout(int code, int write_error = 0);
using mptrain::under_fsroot;  // util/fs.hpp

// The kernels training uses (hogwild/isa.hpp); throws a usage Failure
// (exit code 2) when MPTRAIN_ISA names kernels this process cannot use.
hogwild::IsaChoice chosen_kernels();
// What `mptrain --version` prints: "mptrain VERSION", then the line
// "kernels: avx512 (this CPU runs avx512, avx2, sse2)"; throws as chosen_kernels.
std::string version_text();

// mptrain's lines on stderr (util/console.hpp).
using mptrain::print_error;
using mptrain::print_note;
using mptrain::print_notice;
using mptrain::print_warning;

}  // namespace mptrain::cli
