#pragma once
// A Gloo context whose full mesh of TCP pairs is connected over the job's
// MPI world (the packaged Gloo has no MPI context of its own): every rank
// binds a TCP device to the address its peers reach it at, makes one pair
// per other rank, and the ranks swap the pairs' addresses with one bounded
// allgather (Gloo's own gloo/mpi/context.cc does the same with a blocking
// MPI_Allgather). Included by the *_gloo.cc files only: it names Gloo.

#include <gloo/context.h>

#include <chrono>
#include <string>

#include "strategies/core/world.h"

namespace gradsync {

class GlooMesh final : public gloo::Context {
 public:
  // Collective over `world` (its rank and size are the mesh's); `address`:
  // this host's address for the other ranks; `timeout` bounds every wait
  // of the pairs and, five times over, their connecting. Throws
  // std::runtime_error naming `owner` when Gloo cannot connect.
  GlooMesh(const World& world, const std::string& address, std::chrono::milliseconds timeout,
           const std::string& owner);
};

}  // namespace gradsync
