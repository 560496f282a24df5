#include "harness/engine/agreement.h"

#include "harness/engine/errors.h"

namespace gradsync {

void agree_on_failure(const World& world, const std::string& error, int exit_status) {
  for (const auto& e : world.allgather(error))
    if (!e.empty()) throw AgreedError(e, exit_status);
}

}  // namespace gradsync
