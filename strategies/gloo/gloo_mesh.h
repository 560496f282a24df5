#pragma once
// A Gloo context whose full mesh of TCP pairs is connected over the job's
// MPI world (the packaged Gloo has no MPI context of its own): every rank
// binds a TCP device to the address its peers reach it at, makes one pair
// per other rank, and the ranks swap the pairs' addresses with one bounded
// allgather (Gloo's own gloo/mpi/context.cc does the same with a blocking
// MPI_Allgather), then connect. Included by the *_gloo.cc files only: it
// names Gloo.

#include <gloo/context.h>
#include <gloo/transport/context.h>
#include <gloo/transport/device.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "strategies/core/world.h"

namespace gradsync {

class GlooMesh final : public gloo::Context {
 public:
  // Makes this rank's pairs, one per other rank of `world` (the mesh's rank
  // and size are the world's), on a device bound to `address` (this host's
  // address for the other ranks); `timeout` bounds every wait of the pairs
  // and, five times over, their connecting. Waits for no one.
  GlooMesh(const World& world, const std::string& address, std::chrono::milliseconds timeout);

  // This rank's pairs' addresses, to be swapped with every rank's
  // (World::allgather).
  const std::string& addresses() const { return addresses_; }

  // Connects every pair to its peer's, given every rank's addresses() in
  // rank order; waits for each peer (Gloo's own exceptions pass through).
  void connect(const std::vector<std::string>& all, const std::string& owner);

 private:
  std::shared_ptr<gloo::transport::Device> device_made_;
  std::shared_ptr<gloo::transport::Context> pairs_;
  std::string addresses_;
};

}  // namespace gradsync
