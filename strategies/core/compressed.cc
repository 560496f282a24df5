#include "strategies/core/compressed.h"

#include <stdexcept>

namespace gradsync {

CompressedStrategy::CompressedStrategy(std::unique_ptr<Strategy> inner, Compression format)
    : StrategyDecorator(std::move(inner)), format_(format) {
  if (format == Compression::none)
    throw std::invalid_argument("CompressedStrategy: 'none' is not a 16-bit format");
}

void CompressedStrategy::allreduce(std::span<float> buffer) {
  scratch_.resize(buffer.size());
  compress(buffer, scratch_, format_);
  StrategyDecorator::allreduce_compressed(scratch_, format_);
  decompress(scratch_, buffer, format_);
}

}  // namespace gradsync
