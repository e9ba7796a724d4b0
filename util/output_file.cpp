// Output files' checks and advice (see output_file.hpp).
#include "util/output_file.hpp"

#include <fmt/format.h>

#include <cerrno>

#include "util/failure.hpp"

namespace mptrain {

void check_output_file(const OutputFile& file) {
  if (auto fits = check_name_fits(file.path); !fits.ok()) usage_failure("{}: {}", file.option, fits.error().message);
  value_or_fail(check_directory_usable(file.path, file.option));
  value_or_fail(check_not_input(file.path, file.inputs), exit_code::usage_error);
  value_or_fail(check_replaceable(file.path, file.kind), exit_code::usage_error);
  value_or_fail(check_can_create(file.path, file.option));
}

std::string write_failure_advice(int err, std::string_view instead) {
  if (err == ENOSPC || err == EDQUOT) return fmt::format("free some space there or {}", instead);
  if (err == EACCES || err == EPERM || err == EROFS) return fmt::format("make its directory writable or {}", instead);
  return std::string(instead);
}

}  // namespace mptrain
