#include "strategies/core/no_sync.h"

namespace gradsync {
namespace {

class NoSync final : public Strategy {
 public:
  explicit NoSync(const World& world) : world_(world.duplicate()) {}
  std::string_view name() const override { return "none"; }
  void allreduce(std::span<float>) override {}
  void allreduce_compressed(std::span<std::uint16_t>, Compression) override {}
  void broadcast(std::span<float>, int) override {}
  const World& peers() const override { return world_; }
  bool synchronizes() const override { return false; }
  bool accepts(MemoryKind) const override { return true; }  // touches nothing

 private:
  World world_;
};

}  // namespace

std::unique_ptr<Strategy> make_no_sync(const World& world, const StrategyOptions&) {
  return std::make_unique<NoSync>(world);
}

AllreduceCounts no_sync_counts(double, const StrategyOptions&, const WorkerPlacement&) {
  return {};
}

}  // namespace gradsync
