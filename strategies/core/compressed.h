#pragma once
// The decorator behind --compression fp16|bf16 (Horovod's Compression.fp16):
// every allreduce casts the float buffer into a 16-bit scratch buffer (kept
// between calls), runs the wrapped strategy's allreduce_compressed on it and
// casts the sum back, so the wrapped strategy's wire carries half the bytes.
// The one place where gradients are cast. make_strategy wraps a strategy in
// it when StrategyOptions::compression is not none, inside any staging (the
// casts run on host memory). Broadcasts (the parameters, once) stay fp32.
// Cost per call: 2 conversions of n elements (10 bytes moved per element)
// on top of the wrapped strategy's 16-bit allreduce.

#include <cstdint>
#include <memory>
#include <vector>

#include "strategies/core/compression.h"
#include "strategies/core/decorator.h"

namespace gradsync {

class CompressedStrategy final : public StrategyDecorator {
 public:
  CompressedStrategy(std::unique_ptr<Strategy> inner, Compression format);

  void allreduce(std::span<float> buffer) override;
  // The casts read and write host memory; staging (make_staged) brings
  // device buffers there.
  bool accepts(MemoryKind kind) const override { return kind == MemoryKind::host; }
  // The inner strategy moves 16-bit elements.
  std::string path_for(std::size_t count, std::size_t) const override {
    return StrategyDecorator::path_for(count, sizeof(std::uint16_t));
  }

 private:
  Compression format_;
  std::vector<std::uint16_t> scratch_;
};

}  // namespace gradsync
