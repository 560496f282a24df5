// The native engine (engine.h): the machine itself. Used in every build but
// the SMPI one, which compiles engine_smpi.cc instead.
#include <chrono>
#include <new>
#include <stdexcept>

#include "strategies/core/engine.h"

namespace gradsync {

EngineInfo engine_info() { return {"native", "", false}; }

double engine_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void set_simulated_data(const SimulatedData&) {
  throw std::invalid_argument(
      "shared buffers and costed reductions exist only under SMPI (a GRADSYNC_MPI=smpi build)");
}

SimulatedData simulated_data() { return {}; }

bool engine_sum(std::size_t) { return true; }

std::string engine_allreduce_algorithm(int, std::size_t, std::size_t) { return {}; }

EngineBuffer::EngineBuffer(std::size_t bytes)
    : data_(static_cast<std::byte*>(::operator new(bytes))), size_(bytes) {}

void EngineBuffer::release() {
  ::operator delete(data_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace gradsync
