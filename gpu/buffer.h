#pragma once
// Owning buffers of floats in the memory of the current GPU (DeviceBuffer)
// or in page-locked host memory (PinnedBuffer, so that copies are truly
// asynchronous): move-only, freed with their owner, growable. The one owner
// of each kind in the tree. Allocation happens on the calling thread's
// current device (use_device, gpu/device.h). Both builds declare them; in a
// build without CUDA allocating throws that it is not built (gpu/absent.cc).

#include <cstddef>
#include <string_view>
#include <utility>

namespace gradsync {

// Allocation throws one line "<what>: cudaMalloc of <n> bytes failed: ...";
// frees never throw.
void* device_alloc(std::size_t bytes, std::string_view what);
void device_free(void* p) noexcept;
void* pinned_alloc(std::size_t bytes, std::string_view what);
void pinned_free(void* p) noexcept;

// Copies `bytes` between any two of host, pinned and device memory, queued on
// `stream` (a cudaStream_t; nullptr: the default stream) and waited for.
// `what` names the copy in an error.
void copy_memory(void* to, const void* from, std::size_t bytes, void* stream,
                 std::string_view what);
// Sets `bytes` of device memory to 0, queued on `stream` (as copy_memory)
// and waited for: returns once the memory is zero, so that work on any
// stream queued afterwards sees zeros. (A bare cudaMemset is asynchronous
// for device memory and runs on the legacy default stream, which a
// non-blocking stream such as NCCL's does not wait for.)
void zero_device_memory(void* p, std::size_t bytes, void* stream, std::string_view what);

// `size()` floats from Alloc (uninitialized), given back to Free.
template <void* (*Alloc)(std::size_t, std::string_view), void (*Free)(void*) noexcept>
class FloatBuffer {
 public:
  FloatBuffer() = default;
  // `what` names the buffer in an allocation error (e.g. "fusion bucket").
  explicit FloatBuffer(std::size_t count, std::string_view what = {})
      : data_(count ? static_cast<float*>(Alloc(count * sizeof(float), what)) : nullptr),
        size_(count) {}
  FloatBuffer(FloatBuffer&& other) noexcept { swap(other); }
  FloatBuffer& operator=(FloatBuffer&& other) noexcept {
    FloatBuffer(std::move(other)).swap(*this);
    return *this;
  }
  FloatBuffer(const FloatBuffer&) = delete;
  FloatBuffer& operator=(const FloatBuffer&) = delete;
  ~FloatBuffer() {
    if (data_) Free(data_);
  }

  float* data() const { return data_; }
  std::size_t size() const { return size_; }

  // Grows to `count` floats (when larger), keeping what it held: the old
  // contents are copied into the new buffer on `stream`, behind the work
  // already queued there, and waited for; then the old buffer is freed. When
  // the allocation or the copy fails, the new buffer is freed and this one
  // is kept as it was.
  void grow(std::size_t count, void* stream, std::string_view what) {
    if (count <= size_) return;
    FloatBuffer next(count, what);
    if (size_) copy_memory(next.data_, data_, size_ * sizeof(float), stream, what);
    swap(next);
  }

 private:
  void swap(FloatBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }
  float* data_ = nullptr;
  std::size_t size_ = 0;
};

// Device memory (cudaMalloc) of the device current at allocation.
using DeviceBuffer = FloatBuffer<device_alloc, device_free>;
// Page-locked host memory (cudaMallocHost).
using PinnedBuffer = FloatBuffer<pinned_alloc, pinned_free>;

}  // namespace gradsync
