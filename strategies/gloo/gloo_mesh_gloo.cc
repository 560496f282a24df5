#include <gloo/transport/address.h>
#include <gloo/transport/pair.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <stdexcept>

#include "strategies/gloo/gloo_mesh.h"

namespace gradsync {
namespace {

// Each pair's address in a slot of fixed size, its length in the first byte.
constexpr std::size_t kSlot = 1 + gloo::transport::Address::kMaxByteSize;
static_assert(gloo::transport::Address::kMaxByteSize < 256);

}  // namespace

GlooMesh::GlooMesh(const World& world, const std::string& address,
                   std::chrono::milliseconds timeout)
    : gloo::Context(world.rank(), world.size()) {
  setTimeout(timeout);
  gloo::transport::tcp::attr attr;
  attr.hostname = address;  // never the host name's own resolution (127.0.1.1 on Debian)
  device_made_ = gloo::transport::tcp::CreateDevice(attr);
  pairs_ = device_made_->createContext(rank, size);
  pairs_->setTimeout(getTimeout());  // before the pairs: each copies it
  // Slot i: the address of this rank's pair for rank i.
  addresses_.assign(size * kSlot, '\0');
  for (int i = 0; i < size; ++i) {
    if (i == rank) continue;
    const std::vector<char> bytes = pairs_->createPair(i)->address().bytes();
    if (bytes.size() >= kSlot) throw std::runtime_error("a Gloo pair address is too long");
    addresses_[i * kSlot] = static_cast<char>(bytes.size());
    std::copy(bytes.begin(), bytes.end(), addresses_.begin() + i * kSlot + 1);
  }
}

void GlooMesh::connect(const std::vector<std::string>& all, const std::string& owner) {
  if (all.size() != static_cast<std::size_t>(size))
    throw std::runtime_error(owner + ": the ranks' Gloo addresses do not add up");
  for (int i = 0; i < size; ++i) {
    if (i == rank) continue;
    if (all[i].size() != size * kSlot)
      throw std::runtime_error(owner + ": rank " + std::to_string(i) +
                               " sent Gloo addresses of the wrong size");
    // Rank i's pair for this rank.
    const char* slot = all[i].data() + rank * kSlot;
    const auto length = static_cast<unsigned char>(slot[0]);
    pairs_->getPair(i)->connect(std::vector<char>(slot + 1, slot + 1 + length));
  }
  device_ = device_made_;
  transportContext_ = pairs_;
}

}  // namespace gradsync
