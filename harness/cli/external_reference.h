#pragma once
// External references: another framework's training on gradsync's workloads,
// run by a script of the project's (scripts/ddp-reference.py: PyTorch
// DistributedDataParallel), whose train records say "external" and stand
// beside gradsync's strategies in every report and figure. They are not
// strategies (the strategy table, strategies/registry.h, holds gradsync's own
// only); `gradsync sweep --strategy` takes their names too and runs the
// script for them, which starts its own workers on this host.

#include <string>
#include <string_view>

namespace gradsync {

struct ExternalReference {
  std::string_view name;         // what --strategy and the records call it
  std::string_view script;       // under scripts/, found as the sweep's mpirun.sh is
  const char* script_variable;   // the environment variable that names it instead
  std::string_view compute;      // the compute mode it runs (its --compute)
  std::string_view description;  // for messages
};

// The reference named `name`, or nullptr.
const ExternalReference* find_external_reference(std::string_view name);

// "ddp-gloo, ddp-nccl": every name, for messages.
std::string external_reference_names();

}  // namespace gradsync
