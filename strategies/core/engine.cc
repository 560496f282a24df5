// What both engines' buffers share (engine.h); the allocation itself is each
// engine's own (engine_native.cc, engine_smpi.cc).
#include "strategies/core/engine.h"

#include <utility>

namespace gradsync {

EngineBuffer::~EngineBuffer() { release(); }

EngineBuffer::EngineBuffer(EngineBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      shared_(std::exchange(other.shared_, false)) {}

EngineBuffer& EngineBuffer::operator=(EngineBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    shared_ = std::exchange(other.shared_, false);
  }
  return *this;
}

}  // namespace gradsync
