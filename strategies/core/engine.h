#pragma once
// The engine a run executes on. A normal build runs on the machine itself
// ("native"): real processes, real links, the steady clock. A build with
// GRADSYNC_MPI=smpi (cmake/GradsyncSmpi.cmake) runs under SimGrid's SMPI
// ("smpi"): every rank is a simulated process of one host process, every
// MPI call costs what the simulated platform says, and time is SimGrid's
// simulated clock. The same strategy code runs on both; the few things that
// must differ are here, behind one interface, with one stand-in per engine
// (engine_native.cc, engine_smpi.cc):
//
// - the clock a benchmark reads (engine_seconds);
// - what a reduction costs: natively the sum itself; under SMPI the sum is
//   charged to the simulated clock at a stated reduce rate (bytes of the
//   receiving buffer per second), and done for real only when buffers hold
//   real data (SimulatedData::shared_buffers false);
// - where large buffers live (EngineBuffer): natively the heap; under SMPI
//   with shared buffers, SimGrid's shared memory (SMPI_SHARED_MALLOC), the
//   same few physical pages for every rank, so that 1,024 ranks of 64 MiB
//   fit in the memory of one. Their contents are then meaningless, which is
//   why a shared-buffer run checks nothing (collectives -c 0).

#include <cstddef>
#include <string>

namespace gradsync {

struct EngineInfo {
  std::string name;     // "native" or "smpi"
  std::string version;  // "" natively; "SimGrid 3.32" under SMPI
  bool simulated = false;
};

EngineInfo engine_info();

// Seconds on the engine's clock, from an arbitrary origin.
double engine_seconds();

// How a simulated run treats data; set once, before any rank works.
struct SimulatedData {
  bool shared_buffers = false;      // EngineBuffers above kSharedBufferBytes are shared
  double reduce_bytes_per_s = 0;    // what a reduction costs (0: free)
  std::string allreduce_selector = "ompi";  // whose choice MPI_Allreduce follows (smpi_allreduce_choice.h)
};

// Sets the simulated run's data settings (every rank sets the same ones).
// Natively it throws std::invalid_argument: there is nothing to simulate.
void set_simulated_data(const SimulatedData& data);
SimulatedData simulated_data();

// Called by every reduction over `bytes` of the receiving buffer before it
// sums: charges the sum's time on a simulated engine; returns whether the
// sum must still be carried out (false: the buffers are shared, and summing
// them would only take host time).
bool engine_sum(std::size_t bytes);

// The algorithm the engine's MPI_Allreduce runs for `count` elements of
// `bytes` in all on a communicator of `ranks` with a commutative operation:
// SimGrid's choice under SMPI (smpi_allreduce_choice.h); empty natively,
// where the MPI library does not say.
std::string engine_allreduce_algorithm(int ranks, std::size_t bytes, std::size_t count);

// Buffers below this size stay private even when buffers are shared: the
// control messages, sizes and small segments whose contents the algorithms
// read (ranks, counts) must never be shared.
inline constexpr std::size_t kSharedBufferBytes = 64 * 1024;

// An owning byte buffer for bulk data (gradients, received segments): heap
// memory, or SimGrid's shared memory on a simulated engine with shared
// buffers. Its contents start unspecified. Move-only.
class EngineBuffer {
 public:
  EngineBuffer() = default;
  explicit EngineBuffer(std::size_t bytes);
  ~EngineBuffer();
  EngineBuffer(EngineBuffer&& other) noexcept;
  EngineBuffer& operator=(EngineBuffer&& other) noexcept;
  EngineBuffer(const EngineBuffer&) = delete;
  EngineBuffer& operator=(const EngineBuffer&) = delete;

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool shared() const { return shared_; }

 private:
  void release();
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool shared_ = false;
};

}  // namespace gradsync
