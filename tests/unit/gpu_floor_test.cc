// The GPU floor (gpu/): one error format for every CUDA library's status,
// owning buffers that are move-only and keep their contents when growing, and,
// in a build without CUDA, one wording for everything that is not built. Runs
// without a GPU: a CUDA build with no GPU visible checks that a failed
// allocation names the buffer and the call; with a GPU, that buffers grow.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/buffer.h"
#include "gpu/build.h"
#include "gpu/device.h"
#include "gpu/probe.h"
#include "harness/engine/device_mirror.h"
#include "harness/engine/gradient_memory.h"
#include "models/cuda_model.h"

#ifdef GRADSYNC_WITH_CUDA
#include "gpu/check.h"
#include "gpu/check_cudnn.h"
#include "gpu/check_nccl.h"
#endif

namespace gradsync {
namespace {

static_assert(!std::is_copy_constructible_v<DeviceBuffer> &&
              !std::is_copy_assignable_v<DeviceBuffer>);
static_assert(std::is_nothrow_move_constructible_v<DeviceBuffer> &&
              std::is_nothrow_move_assignable_v<PinnedBuffer>);

// The message of what `f` throws, or "" when it does not throw.
template <class F>
std::string thrown(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(GpuFloor, EmptyBuffersOwnNothing) {
  DeviceBuffer device(0);
  PinnedBuffer pinned;
  EXPECT_EQ(device.data(), nullptr);
  EXPECT_EQ(pinned.size(), 0u);
  DeviceBuffer moved = std::move(device);
  EXPECT_EQ(moved.size(), 0u);
}

#ifdef GRADSYNC_WITH_CUDA

TEST(GpuFloor, OneFormatForEveryLibrary) {
  EXPECT_EQ(thrown([] { check_cuda(cudaErrorInvalidValue, "cudaMemcpy", "a copy"); }),
            std::string("a copy: cudaMemcpy failed: ") + cudaGetErrorString(cudaErrorInvalidValue) +
                " (cudaErrorInvalidValue)");
  EXPECT_EQ(thrown([] { check_cuda(CUBLAS_STATUS_INVALID_VALUE, "cublasSscal"); }),
            std::string("cublasSscal failed: ") +
                cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE) +
                " (CUBLAS_STATUS_INVALID_VALUE)");
  const std::string cudnn =
      thrown([] { check_cuda(CUDNN_STATUS_BAD_PARAM, "cudnnAddTensor", "layer x"); });
  EXPECT_EQ(cudnn.rfind(std::string("layer x: cudnnAddTensor failed: ") +
                            cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM),
                        0),
            0u)
      << cudnn;
  const std::string nccl =
      thrown([] { check_cuda(ncclInvalidArgument, nullptr, "ncclAllReduce", "nccl-ring rank 0"); });
  EXPECT_EQ(nccl.rfind(std::string("nccl-ring rank 0: ncclAllReduce failed: ") +
                           ncclGetErrorString(ncclInvalidArgument),
                       0),
            0u)
      << nccl;
  // Success passes.
  EXPECT_EQ(thrown([] { check_cuda(cudaSuccess, "x"); }), "");
  EXPECT_EQ(thrown([] { check_cuda(CUDNN_STATUS_SUCCESS, "x"); }), "");
}

TEST(GpuFloor, BuffersAllocateOrNameWhatFailed) {
  if (probe_gpus().visible_gpus == 0) {
    const std::string what = thrown([] { DeviceBuffer b(4, "test buffer"); });
    EXPECT_EQ(what.rfind("test buffer: cudaMalloc of 16 bytes failed: ", 0), 0u) << what;
    DeviceBuffer kept;
    EXPECT_NE(thrown([&] { kept.grow(4, nullptr, "test buffer"); }), "");
    EXPECT_EQ(kept.data(), nullptr);  // a failed grow leaves the buffer as it was
    return;
  }
  use_device(0);
  const std::vector<float> host{1, 2, 3};
  DeviceBuffer b(host.size(), "test buffer");
  copy_memory(b.data(), host.data(), host.size() * sizeof(float), nullptr, "upload");
  b.grow(1000, nullptr, "test buffer");
  EXPECT_EQ(b.size(), 1000u);
  PinnedBuffer back(host.size(), "test buffer");
  copy_memory(back.data(), b.data(), host.size() * sizeof(float), nullptr, "download");
  EXPECT_EQ(std::vector<float>(back.data(), back.data() + host.size()), host);
}

#else

TEST(GpuFloor, WithoutCudaEverythingSaysNotBuiltInOneWording) {
  const std::string reason = not_built_reason();
  EXPECT_EQ(reason.rfind("not built in (", 0), 0u) << reason;
  EXPECT_EQ(probe_gpus().detail, reason);
  EXPECT_FALSE(probe_gpus().built);
  EXPECT_EQ(gpu_unusable(0), reason);
  EXPECT_EQ(cuda_compute_unavailable(0), reason);  // make_cuda_model's: cuda_layers_test.cc
  EXPECT_EQ(thrown([] { DeviceBuffer b(4); }), "device buffers: " + reason);
  EXPECT_EQ(thrown([] { PinnedBuffer b(4); }), "pinned host buffers: " + reason);
  EXPECT_EQ(thrown([] { DeviceMirror m(4); }), "device buffers: " + reason);
  EXPECT_EQ(thrown([] { gpu_name(0); }), "GPU names: " + reason);
  EXPECT_EQ(thrown([] { make_device_gradient_memory(Model::DeviceState{}, 1); }),
            "gradients in device memory: " + reason);
}

#endif

}  // namespace
}  // namespace gradsync
