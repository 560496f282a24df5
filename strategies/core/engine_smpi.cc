// The SMPI engine (engine.h): SimGrid's simulated clock, reductions charged
// to it, shared buffers. Compiled only in a GRADSYNC_MPI=smpi build.
#include <smpi/smpi.h>  // before simgrid/version.h, which needs its base macros
#include <simgrid/version.h>

#include <new>
#include <string>

#include "strategies/core/engine.h"
#include "strategies/core/smpi_allreduce_choice.h"

namespace gradsync {
namespace {

// The job's data settings. Under SMPI every rank is a simulated process of
// one host process; each sets the same value before it works, and a rank
// runs only while the others wait for the simulator, so no two write at once.
SimulatedData settings;

}  // namespace

EngineInfo engine_info() {
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);  // the library's, not the headers'
  return {"smpi", "SimGrid " + std::to_string(major) + "." + std::to_string(minor) + "." +
                      std::to_string(patch),
          true};
}

double engine_seconds() { return MPI_Wtime(); }

void set_simulated_data(const SimulatedData& data) { settings = data; }

SimulatedData simulated_data() { return settings; }

bool engine_sum(std::size_t bytes) {
  if (settings.reduce_bytes_per_s > 0) smpi_execute(static_cast<double>(bytes) / settings.reduce_bytes_per_s);
  return !settings.shared_buffers;
}

std::string engine_allreduce_algorithm(int ranks, std::size_t bytes, std::size_t count) {
  return smpi_allreduce_choice(settings.allreduce_selector, ranks, bytes, count, /*commutative=*/true);
}

EngineBuffer::EngineBuffer(std::size_t bytes) : size_(bytes) {
  shared_ = settings.shared_buffers && bytes >= kSharedBufferBytes;
  data_ = static_cast<std::byte*>(shared_ ? SMPI_SHARED_MALLOC(bytes) : ::operator new(bytes));
  if (!data_) throw std::bad_alloc();
}

void EngineBuffer::release() {
  if (shared_)
    SMPI_SHARED_FREE(data_);
  else
    ::operator delete(data_);
  data_ = nullptr;
  size_ = 0;
  shared_ = false;
}

}  // namespace gradsync
