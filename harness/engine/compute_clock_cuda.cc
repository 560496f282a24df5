// CUDA builds only: the compute clock of a model on a GPU (step_marks.h).
//
// A mark is a timing CUDA event recorded on the model's stream. Each slot
// starts with an anchor: the host's clock read, then an event recorded at
// once on a stream of this clock's own, which is otherwise idle, so that the
// GPU stamps it within microseconds of that reading. A mark's time is the
// anchor's host time plus cudaEventElapsedTime(anchor, mark) (the GPU timer,
// about half a microsecond of resolution). The events of one stream complete
// in the order they were recorded, so a slot is passed when its latest mark
// is: queried (cudaEventQuery) without waiting, or waited for at the end.
#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <utility>
#include <vector>

#include "gpu/check.h"
#include "gpu/device.h"
#include "gpu/stream.h"
#include "harness/engine/step_marks.h"

namespace gradsync {
namespace {

// One owned timing event.
class TimingEvent {
 public:
  TimingEvent() { check_cuda(cudaEventCreate(&event_), "cudaEventCreate (a step mark)"); }
  TimingEvent(TimingEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  TimingEvent& operator=(TimingEvent&&) = delete;
  TimingEvent(const TimingEvent&) = delete;
  ~TimingEvent() {
    if (event_) cudaEventDestroy(event_);
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class DeviceComputeClock final : public ComputeClock {
 public:
  explicit DeviceComputeClock(const Model::DeviceState& device)
      : gpu_(device.gpu), model_stream_(static_cast<cudaStream_t>(device.stream)) {
    use_device(gpu_);
    anchor_stream_.emplace("the step marks' anchor");
  }
  ~DeviceComputeClock() override {
    cudaSetDevice(gpu_);
    cudaStreamSynchronize(model_stream_);  // no event is destroyed while queued
  }

  void begin(std::size_t slot, std::size_t marks) override {
    if (slot >= slots_.size()) slots_.resize(slot + 1);
    Slot& s = slots_[slot];
    while (s.marks.size() < marks) s.marks.emplace_back();
    s.latest = -1;
    s.anchor_host = StepClock::now();
    check_cuda(cudaEventRecord(s.anchor.get(), anchor_stream_->get()), "cudaEventRecord (anchor)");
  }

  void take(std::size_t slot, std::size_t index) override {
    Slot& s = slots_.at(slot);
    check_cuda(cudaEventRecord(s.marks.at(index).get(), model_stream_),
               "cudaEventRecord (a step mark)");
    s.latest = static_cast<long>(index);
  }

  bool passed(std::size_t slot, bool wait) override {
    const Slot& s = slots_.at(slot);
    const cudaEvent_t last = s.latest < 0 ? s.anchor.get() : s.marks[s.latest].get();
    if (wait) {
      check_cuda(cudaEventSynchronize(last), "cudaEventSynchronize (a step mark)");
      check_cuda(cudaEventSynchronize(s.anchor.get()), "cudaEventSynchronize (anchor)");
      return true;
    }
    return reached(last) && reached(s.anchor.get());
  }

  StepClock::time_point read(std::size_t slot, std::size_t index) override {
    const Slot& s = slots_.at(slot);
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, s.anchor.get(), s.marks.at(index).get()),
               fmt::format("cudaEventElapsedTime (step mark {})", index));
    return s.anchor_host + std::chrono::duration_cast<StepClock::duration>(
                               std::chrono::duration<double, std::milli>(ms));
  }

  bool on_device() const override { return true; }

 private:
  struct Slot {
    TimingEvent anchor;
    StepClock::time_point anchor_host;
    std::vector<TimingEvent> marks;
    long latest = -1;  // the mark taken last, -1: none yet
  };
  static bool reached(cudaEvent_t event) {
    const cudaError_t rc = cudaEventQuery(event);
    if (rc == cudaErrorNotReady) return false;
    check_cuda(rc, "cudaEventQuery (a step mark)");
    return true;
  }

  int gpu_;
  cudaStream_t model_stream_;
  std::optional<CudaStream> anchor_stream_;
  std::vector<Slot> slots_;
};

}  // namespace

std::unique_ptr<ComputeClock> cuda::make_compute_clock(const Model::DeviceState& device) {
  return std::make_unique<DeviceComputeClock>(device);
}

}  // namespace gradsync
