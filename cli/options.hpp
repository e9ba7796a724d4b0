// How every command's options read: --help shows each default from the
// value the option is bound to, in one style, and a number out of bounds is
// refused with the bounds written as a person writes them ("at least 0").
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace mptrain::cli {

// Makes every option added to `app` and its subcommands from now on show its
// default in --help from the value it is bound to, as "TYPE [VALUE]". An
// option whose value means "decide at run time" (0, "") says what is decided
// with default_str() ("one per package"); one without a default binds an
// empty string or list, which shows none.
void use_help_style(CLI::App& app);

// A check that an option's value is a number `within` accepts; --help shows
// `bounds` ("from 10ms to 60s"), and any other value fails with "VALUE is
// not BOUNDS", VALUE followed by `unit` (the unit a transform before this
// check converted the value to; "" for none).
CLI::Validator bounded(std::string bounds, std::function<bool(double)> within, std::string unit = {});
// A check that an option's value is a number of at least `min` ("at least 0").
CLI::Validator at_least(double min);
// A check that an option's value is a number from `min` to `max`, both included ("from 0 to 1").
CLI::Validator from_to(double min, double max);

}  // namespace mptrain::cli
