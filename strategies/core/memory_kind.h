#pragma once
// Where a buffer lives: in host memory, or in the memory of the GPU this rank
// uses. Strategies say which they accept; the harness says which it has.

#include <string_view>

namespace gradsync {

enum class MemoryKind { host, device };

constexpr std::string_view to_string(MemoryKind kind) {
  return kind == MemoryKind::host ? "host" : "device";
}

}  // namespace gradsync
