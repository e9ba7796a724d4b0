// The Python interpreters of this machine, for torchrun's scripts: which
// one imports a module, when a rank failed because the one that ran it
// could not (a pyenv shim without torch). Linux code in python_linux.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mptrain::cluster {

// The module a Python traceback in `text` says could not be imported
// ("ModuleNotFoundError: No module named 'torch'" gives "torch"; a dotted
// name gives its top package); nullopt when it says no such thing.
std::optional<std::string> missing_python_module(std::string_view text);

// The Python 3 interpreters worth trying: python3 and python3.N in each
// directory of `search_path`, then /usr/bin/python3 and
// /usr/local/bin/python3; each real file once, in that order.
std::vector<std::string> python_candidates(std::string_view search_path);

// Whether `interpreter -c 'import MODULE'` succeeds within `seconds` (its output discarded).
bool python_imports(const std::string& interpreter, const std::string& module, double seconds = 30);

}  // namespace mptrain::cluster
