#include "strategies/gloo/gloo_mesh.h"

#include <gloo/transport/address.h>
#include <gloo/transport/context.h>
#include <gloo/transport/pair.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gradsync {
namespace {

// Each pair's address in a slot of fixed size, its length in the first byte.
constexpr std::size_t kSlot = 1 + gloo::transport::Address::kMaxByteSize;
static_assert(gloo::transport::Address::kMaxByteSize < 256);

// Runs a call into Gloo; its failures (gloo::Exception, and
// gloo::EnforceNotMet, which is no runtime_error) become one line naming
// `owner`.
template <typename Call>
auto gloo_call(const std::string& owner, Call call) {
  try {
    return call();
  } catch (const std::exception& e) {
    throw std::runtime_error(owner + ": connecting Gloo's pairs: " + e.what());
  }
}

}  // namespace

GlooMesh::GlooMesh(const World& world, const std::string& address,
                   std::chrono::milliseconds timeout, const std::string& owner)
    : gloo::Context(world.rank(), world.size()) {
  setTimeout(timeout);
  gloo::transport::tcp::attr attr;
  attr.hostname = address;  // never the host name's own resolution (127.0.1.1 on Debian)
  std::shared_ptr<gloo::transport::Device> device =
      gloo_call(owner, [&] { return gloo::transport::tcp::CreateDevice(attr); });
  std::shared_ptr<gloo::transport::Context> pairs = device->createContext(rank, size);
  pairs->setTimeout(getTimeout());  // before the pairs: each copies it
  // Slot i of this rank's block: the address of its pair for rank i.
  std::string mine(size * kSlot, '\0');
  for (int i = 0; i < size; ++i) {
    if (i == rank) continue;
    const std::vector<char> bytes =
        gloo_call(owner, [&] { return pairs->createPair(i)->address().bytes(); });
    if (bytes.size() >= kSlot) throw std::runtime_error(owner + ": a Gloo pair address is too long");
    mine[i * kSlot] = static_cast<char>(bytes.size());
    std::copy(bytes.begin(), bytes.end(), mine.begin() + i * kSlot + 1);
  }
  const std::vector<std::string> all = world.allgather(mine);  // bounded by the timeout
  for (int i = 0; i < size; ++i) {
    if (i == rank) continue;
    // Rank i's pair for this rank.
    const char* slot = all[i].data() + rank * kSlot;
    const auto length = static_cast<unsigned char>(slot[0]);
    gloo_call(owner, [&] {
      pairs->getPair(i)->connect(std::vector<char>(slot + 1, slot + 1 + length));
      return 0;
    });
  }
  device_ = std::move(device);
  transportContext_ = std::move(pairs);
}

}  // namespace gradsync
