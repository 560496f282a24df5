#pragma once
// Failures the ranks agree on: each rank says what went wrong for it (or
// nothing), every rank learns every answer through one allgather, and when
// any rank failed every rank throws the same AgreedError, so that main
// prints one line from world rank 0 and no rank is left waiting.

#include <string>

#include "strategies/world.h"

namespace gradsync {

// Collective over `world`. `error` is this rank's failure, empty when none.
// Throws AgreedError(the lowest failing rank's error, exit_status) on every
// rank when any rank failed.
void agree_on_failure(const World& world, const std::string& error, int exit_status);

}  // namespace gradsync
