#pragma once
// The project's own scripts that gradsync runs (scripts/mpirun.sh for a
// sweep's runs, scripts/cluster.sh for its emulated cluster), found from the
// binary: an environment variable names one where the binary is not in a
// checkout.

#include <string>

namespace gradsync {

// scripts/NAME: the path in $ENV_OVERRIDE when set, else in the first folder
// above `self` (the gradsync binary: build/bin/gradsync -> scripts/NAME) that
// has it. Throws, naming the variable, when there is none.
std::string find_project_script(const std::string& self, const std::string& name,
                                const char* env_override);

// The same for any file of the checkout, `relative` to its root (e.g.
// "build-smpi/bin/gradsync").
std::string find_project_file(const std::string& self, const std::string& relative,
                              const char* env_override);

}  // namespace gradsync
