// A process environment as "NAME=value" entries, the form execve() takes:
// read once, searched by name. The launcher builds its workers' environment
// from it (procmgr/environment.hpp); the node identity reader reads the MPI
// and Slurm variables from it (cluster/identity.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mptrain {

// This process's environment as "NAME=value" entries.
std::vector<std::string> current_environment();

// The "NAME" part of the "NAME=value" entry `entry` (all of it when it has no '=').
std::string_view variable_name(std::string_view entry);

// The value of `name` in `environment` ("NAME=value" entries); "" and false when absent.
bool find_variable(const std::vector<std::string>& environment, std::string_view name, std::string* value = nullptr);

}  // namespace mptrain
