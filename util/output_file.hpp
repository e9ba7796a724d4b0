// A file mptrain writes after its work (`doctor --trace`, `run
// --save-model`): its path checked before the work, so that a long run
// never ends without its output, and the advice when the final write fails.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/fs.hpp"

namespace mptrain {

// An output file, named by the option that gave it.
struct OutputFile {
  std::filesystem::path path;
  std::string_view option;       // "--trace": what its messages start with
  FileKind kind;                 // what it is: only a file of this kind (or an empty one) is replaced
  std::vector<RunInput> inputs;  // the run's inputs, which it must not be
};

// Refuses, before the work, an output path that must not or cannot be
// written: a name too long for the file system, one of the run's inputs,
// or anything but a new name, an empty regular file or a file of its kind
// (a directory, FIFO, device, symbolic link, another kind of file: the
// message says what it is) throw a usage Failure (exit 2); a directory
// that is missing or no directory, or where its file cannot be created with
// the owner of the file it replaces, a runtime Failure (exit 1).
void check_output_file(const OutputFile& file);

// What to do when writing an output file failed with errno `err`:
// `instead` ("give another --trace path"), after "free some space there or "
// for a full disk or quota (ENOSPC, EDQUOT), after "make its directory
// writable or " for a refusal (EACCES, EPERM, EROFS).
std::string write_failure_advice(int err, std::string_view instead);

}  // namespace mptrain
