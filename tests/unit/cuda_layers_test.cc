// The cuda compute backend against the CPU one. Layer parity: each layer
// kind runs on the CPU layer and on its cuDNN/cuBLAS twin with the same
// inputs, parameters and output gradient, and the GPU's output, input
// gradients and parameter gradients must match the CPU's within a stated
// tolerance. Model parity: small-cnn and a tiny ResNet/Inception-like graph,
// same seed and batch, loss and every parameter gradient. The GPU tests skip
// (saying why) where no GPU is visible or the build has no CUDA; the
// comparison's self-test and the "no GPU" error test run everywhere.
//
// Tolerances, per tensor: |gpu - cpu| <= atol + rtol * max|cpu| (the
// tensor's largest magnitude, so that near-zero elements that come out of
// cancellation are judged against the tensor's scale, not their own).
// - fp32: rtol 1e-4, atol 1e-6. Each output here is a sum of at most a few
//   hundred products (K = C*kh*kw <= 294, or N*H*W <= 300 for a filter or
//   batch-norm gradient); summed in any order in fp32 the error is below
//   K * 2^-24 * sum|terms|, about 2e-5 of the magnitudes involved, and the
//   FMA-only Winograd/FFT algorithms cuDNN may pick add errors of that order.
//   A wrong index or a missing accumulation is off by O(1) of the scale.
// - mixed (fp16 tensor cores, fp32 accumulation): rtol 2e-2, atol 1e-4. The
//   inputs are rounded to fp16 (11-bit significand, relative error 2^-11 =
//   4.9e-4 per operand, about 1e-3 per product); summed with random signs the
//   error stays near 1e-3 of the result's scale; 2e-2 leaves room for the
//   unlucky element and still fails a wrong layer.
// - models (fp32): rtol 1e-3 on every gradient: the per-layer 1e-5 errors
//   compound through the layers of the graph (and batch norm divides by the
//   batch's standard deviation), still two orders below a real defect.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "models/cuda_model.h"
#include "models/model.h"
#include "tests/unit/random_values.h"

#ifdef GRADSYNC_WITH_CUDA
#include "models/avg_pool.h"
#include "models/batch_norm.h"
#include "models/concat.h"
#include "models/conv2d.h"
#include "models/cpu_model.h"
#include "models/cuda_context.h"
#include "models/cuda_layer.h"
#include "models/cuda_loss.h"
#include "models/gradient_block.h"
#include "models/graph.h"
#include "models/linear.h"
#include "models/max_pool.h"
#include "models/relu.h"
#include "models/residual_add.h"
#include "models/softmax_cross_entropy.h"
#endif

namespace gradsync {
namespace {

struct Tolerance {
  double rtol, atol;
};
constexpr Tolerance kFp32{1e-4, 1e-6};
constexpr Tolerance kMixed{2e-2, 1e-4};
constexpr Tolerance kModelFp32{1e-3, 1e-6};

// The worst element's error over its allowance (pass: <= 1), and where.
struct Mismatch {
  double worst = 0;
  std::string where;
};

Mismatch compare(std::span<const float> got, std::span<const float> want, Tolerance t,
                 const std::string& what) {
  if (got.size() != want.size()) return {1e30, what + ": sizes differ"};
  double scale = 0;
  for (float w : want) scale = std::max(scale, double(std::abs(w)));
  const double allowed = t.atol + t.rtol * scale;
  Mismatch m;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double ratio = std::abs(double(got[i]) - double(want[i])) / allowed;
    if (!(ratio <= m.worst)) {  // NaN lands here too
      m.worst = std::isnan(ratio) ? 1e30 : ratio;
      m.where = what + "[" + std::to_string(i) + "] gpu " + std::to_string(got[i]) + " cpu " +
                std::to_string(want[i]) + " (allowed " + std::to_string(allowed) + ")";
    }
  }
  return m;
}

using testing::random_values;

TEST(CudaParityCheck, ComparisonCatchesAWrongResult) {
  const std::vector<float> want = random_values(100, 1);
  std::vector<float> got = want;
  EXPECT_LE(compare(got, want, kFp32, "same").worst, 1.0);
  got[17] += 1e-3f;  // 1e-3 of a tensor whose scale is ~1: far beyond fp32's allowance
  EXPECT_GT(compare(got, want, kFp32, "perturbed").worst, 1.0);
  EXPECT_LE(compare(got, want, kMixed, "perturbed").worst, 1.0);
  got[3] = std::nanf("");
  EXPECT_GT(compare(got, want, kMixed, "nan").worst, 1.0);
}

// Runs everywhere: without a GPU (or without CUDA in the build) cuda compute
// refuses with one line that says why; with GPUs, a missing ordinal does.
TEST(CudaCompute, UnusableGpuIsOneLineError) {
  ModelOptions options;
  options.compute = ComputeMode::cuda;
  options.gpu = 4096;
  try {
    make_model("small-cnn", options);
    FAIL() << "make_model with cuda compute on GPU 4096 did not throw";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_EQ(what.rfind("--compute cuda: ", 0), 0u) << what;
    if (!cuda_compute_built())
      EXPECT_NE(what.find("not built"), std::string::npos) << what;
    else
      EXPECT_TRUE(what.find("no GPU visible") != std::string::npos ||
                  what.find("GPU 4096 does not exist") != std::string::npos)
          << what;
    EXPECT_EQ(what, "--compute cuda: " + cuda_compute_unavailable(4096));
  }
}

#ifdef GRADSYNC_WITH_CUDA

#define SKIP_WITHOUT_GPU()                                                   \
  do {                                                                       \
    if (const std::string why = cuda_compute_unavailable(0); !why.empty()) \
      GTEST_SKIP() << "cuda compute: " << why;                               \
  } while (0)

// One layer on both backends. The input gradients start from random values
// on both sides (so "adds into" is checked), the GPU's parameter gradients
// from a constant (so "overwrites" is checked).
void expect_layer_parity(Layer& cpu, const std::vector<FeatureShape>& shapes, Precision precision,
                         Tolerance tol, const std::string& label, int batch = 3) {
  SCOPED_TRACE(label);
  std::uint64_t seed = 11;
  std::vector<Tensor> xs(shapes.size()), dxs(shapes.size());
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    xs[k].reset(batch, shapes[k]);
    xs[k].data = random_values(xs[k].data.size(), seed++);
    dxs[k].reset(batch, shapes[k]);
    dxs[k].data = random_values(dxs[k].data.size(), seed++);
  }
  const std::vector<Tensor> dx_start = dxs;
  std::vector<Parameter> params;
  for (const ParamSpec& s : cpu.params())
    params.push_back({s.suffix, s.shape, random_values(s.elements(), seed++), {}});
  const std::vector<float> gradient_block = allocate_gradients(params);
  Tensor y, dy;
  y.reset(batch, cpu.output_shape());
  dy.reset(batch, cpu.output_shape());
  dy.data = random_values(dy.data.size(), seed++);
  std::vector<const Tensor*> ins;
  std::vector<Tensor*> dins;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    ins.push_back(&xs[k]);
    dins.push_back(&dxs[k]);
  }
  cpu.forward(ins, y, params);
  cpu.backward(ins, y, dy, dins, params);

  CudaContext cuda(0, precision);
  auto gpu = make_cuda_layer(cpu, shapes, cuda, label);
  cuda.reserve_workspace(gpu->set_batch(batch));
  auto upload = [&](const std::vector<float>& host) {
    DeviceBuffer b(host.size());
    cuda.upload(host, b.data());
    return b;
  };
  std::vector<DeviceBuffer> d_x, d_dx, d_w, d_g;
  std::vector<const float*> x_ptr, w_ptr;
  std::vector<float*> dx_ptr, g_ptr;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    x_ptr.push_back(d_x.emplace_back(upload(xs[k].data)).data());
    dx_ptr.push_back(d_dx.emplace_back(upload(dx_start[k].data)).data());
  }
  for (const Parameter& p : params) {
    w_ptr.push_back(d_w.emplace_back(upload(p.value)).data());
    g_ptr.push_back(d_g.emplace_back(upload(std::vector<float>(p.value.size(), 7.0f))).data());
  }
  DeviceBuffer d_y(y.data.size());
  DeviceBuffer d_dy = upload(dy.data);
  gpu->forward(x_ptr, d_y.data(), w_ptr);
  gpu->backward(x_ptr, d_y.data(), d_dy.data(), dx_ptr, w_ptr, g_ptr);

  std::vector<float> host(y.data.size());
  cuda.download(d_y.data(), host);
  std::vector<Mismatch> results{compare(host, y.data, tol, "output")};
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    host.resize(dxs[k].data.size());
    cuda.download(d_dx[k].data(), host);
    results.push_back(compare(host, dxs[k].data, tol, "grad input " + std::to_string(k)));
  }
  for (std::size_t p = 0; p < params.size(); ++p) {
    host.resize(params[p].grad.size());
    cuda.download(d_g[p].data(), host);
    results.push_back(compare(host, params[p].grad, tol, "grad " + params[p].name));
  }
  for (const Mismatch& m : results) EXPECT_LE(m.worst, 1.0) << m.where;
}

// Every layer kind, with the variants the zoo uses, under `precision`.
void expect_all_layers(Precision precision, Tolerance tol) {
  struct ConvCase {
    FeatureShape in;
    Conv2dOptions o;
    const char* label;
  };
  const ConvCase convs[] = {
      {{3, 8, 8}, {4, 3, 3, 1, 1, 1, true}, "conv 3x3 stride 1 pad 1 bias"},
      {{4, 9, 9}, {5, 3, 3, 2, 1, 1, false}, "conv 3x3 stride 2 pad 1 no bias"},
      {{6, 5, 5}, {3, 1, 1, 1, 0, 0, true}, "conv 1x1 (pointwise)"},
      {{4, 7, 7}, {4, 1, 7, 1, 0, 3, false}, "conv 1x7 pad 0,3"},
      {{3, 16, 16}, {4, 7, 7, 2, 3, 3, false}, "conv 7x7 stride 2 pad 3 (stem)"},
  };
  for (const ConvCase& c : convs) {
    Conv2d conv(c.in, c.o);
    expect_layer_parity(conv, {c.in}, precision, tol, c.label);
  }
  for (float eps : {1e-5f, 1e-3f}) {
    BatchNorm bn({4, 5, 5}, eps);
    expect_layer_parity(bn, {{4, 5, 5}}, precision, tol, "batch norm eps " + std::to_string(eps));
  }
  Relu relu({4, 5, 5});
  expect_layer_parity(relu, {{4, 5, 5}}, precision, tol, "relu");
  MaxPool max3({3, 9, 9}, {3, 3, 2, 1});
  expect_layer_parity(max3, {{3, 9, 9}}, precision, tol, "max pool 3x3 stride 2 pad 1");
  MaxPool max2({3, 8, 8}, {2, 2, 2, 0});
  expect_layer_parity(max2, {{3, 8, 8}}, precision, tol, "max pool 2x2 stride 2");
  AvgPool avg3({3, 7, 7}, {3, 3, 1, 1});
  expect_layer_parity(avg3, {{3, 7, 7}}, precision, tol, "avg pool 3x3 stride 1 pad 1");
  AvgPool avg2({3, 8, 8}, {2, 2, 2, 0});
  expect_layer_parity(avg2, {{3, 8, 8}}, precision, tol, "avg pool 2x2 stride 2");
  AvgPool global({5, 7, 7}, AvgPool::global({5, 7, 7}));
  expect_layer_parity(global, {{5, 7, 7}}, precision, tol, "global avg pool");
  ResidualAdd add({4, 5, 5}, {4, 5, 5});
  expect_layer_parity(add, {{4, 5, 5}, {4, 5, 5}}, precision, tol, "residual add");
  const std::vector<FeatureShape> parts = {{2, 4, 4}, {3, 4, 4}, {1, 4, 4}};
  Concat concat(parts);
  expect_layer_parity(concat, parts, precision, tol, "concat");
  Linear linear({4, 3, 3}, 7);
  expect_layer_parity(linear, {{4, 3, 3}}, precision, tol, "linear");
}

TEST(CudaLayers, MatchCpuLayersInFp32) {
  SKIP_WITHOUT_GPU();
  expect_all_layers(Precision::fp32, kFp32);
}

TEST(CudaLayers, MatchCpuLayersInMixedPrecision) {
  SKIP_WITHOUT_GPU();
  expect_all_layers(Precision::mixed, kMixed);
}

TEST(CudaLayers, LossMatchesCpu) {
  SKIP_WITHOUT_GPU();
  const int batch = 5, classes = 7;
  Tensor logits;
  logits.reset(batch, {classes, 1, 1});
  logits.data = random_values(logits.data.size(), 3);
  for (float& z : logits.data) z *= 4;
  const std::vector<int> labels = {0, 6, 3, 3, 1};
  Tensor want_grad;
  const float want = softmax_cross_entropy(logits, labels, &want_grad);

  CudaContext cuda(0, Precision::fp32);
  DeviceBuffer d_logits(logits.data.size()), d_grad(logits.data.size());
  cuda.upload(logits.data, d_logits.data());
  CudaLoss loss(cuda, classes);
  EXPECT_EQ(loss.forward(d_logits.data(), labels, batch), want);
  loss.backward(d_grad.data());
  std::vector<float> grad(logits.data.size());
  cuda.download(d_grad.data(), grad);
  EXPECT_EQ(grad, want_grad.data);
}

// conv-bn-relu stem, max pool with padding, a residual block, an
// Inception-like join of a 1x1 branch and an avg-pool branch, global average
// pool, linear: every layer kind and a node read by two consumers.
Graph tiny_resnet() {
  Graph g(ImageShape{3, 16, 16});
  NodeId x = g.relu(g.batch_norm(g.conv(kInput, "stem", 8, 3, 1, 1, false), "stem_bn"));
  x = g.max_pool(x, 3, 2, 1);
  NodeId b = g.relu(g.batch_norm(g.conv(x, "block.conv1", 8, 3, 1, 1, false), "block.bn1"));
  b = g.batch_norm(g.conv(b, "block.conv2", 8, 3, 1, 1, false), "block.bn2");
  x = g.relu(g.residual_add(b, x));
  const NodeId left = g.conv(x, "mix.left", 4, 1);
  const NodeId right = g.conv(g.avg_pool(x, 3, 1, 1), "mix.right", 6, 1);
  x = g.global_avg_pool(g.concat({left, right}));
  g.linear(x, "fc", 10);
  return g;
}

void expect_model_parity(Model& cpu, Model& gpu, int batch, std::uint64_t seed) {
  const std::size_t in = std::size_t(batch) * cpu.input_shape().elements();
  const std::vector<float> input = random_values(in, seed);
  std::vector<int> labels(batch);
  for (int n = 0; n < batch; ++n) labels[n] = int((n * 7 + seed) % cpu.classes());
  const float cpu_loss = cpu.forward(input, labels, batch);
  const float gpu_loss = gpu.forward(input, labels, batch);
  EXPECT_NEAR(gpu_loss, cpu_loss, 1e-4 * std::abs(cpu_loss));
  std::vector<int> ready(cpu.parameters().size(), 0);
  std::vector<std::size_t> order;
  cpu.backward([](std::size_t) {});
  gpu.backward([&](std::size_t i) {
    ++ready.at(i);
    order.push_back(i);
  });
  EXPECT_EQ(ready, std::vector<int>(ready.size(), 1)) << "ready() once per parameter";
  // The device gradients lie back to back in the order backward hands them
  // over, so that fusion buckets are slices of the block.
  const Model::DeviceState* s = gpu.device_state();
  std::size_t offset = 0;
  for (std::size_t i : order) {
    EXPECT_EQ(s->grad_of.at(i).data(), s->grads.data() + offset) << "gradient " << i;
    offset += s->grad_of[i].size();
  }
  gpu.copy_to_host();
  for (std::size_t i = 0; i < cpu.parameters().size(); ++i) {
    const Parameter& c = cpu.parameters()[i];
    const Parameter& g = gpu.parameters()[i];
    ASSERT_EQ(g.name, c.name);
    EXPECT_EQ(g.value, c.value) << c.name << ": same seed, same initial values";
    const Mismatch m = compare(g.grad, c.grad, kModelFp32, c.name + ".grad");
    EXPECT_LE(m.worst, 1.0) << m.where;
  }
}

void expect_device_state(const Model& gpu) {
  const Model::DeviceState* s = gpu.device_state();
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->stream, nullptr);
  ASSERT_EQ(s->grad_of.size(), const_cast<Model&>(gpu).parameters().size());
  std::size_t total = 0;  // where each lies: expect_model_parity, in backward order
  for (std::size_t i = 0; i < s->grad_of.size(); ++i) {
    EXPECT_GE(s->grad_of[i].data(), s->grads.data()) << i;
    EXPECT_LE(s->grad_of[i].data() + s->grad_of[i].size(), s->grads.data() + s->grads.size()) << i;
    EXPECT_EQ(s->grad_of[i].size(), const_cast<Model&>(gpu).parameters()[i].value.size());
    total += s->grad_of[i].size();
  }
  EXPECT_EQ(total, s->grads.size());
  EXPECT_EQ(s->values.size(), s->grads.size());
}

TEST(CudaModels, SmallCnnMatchesCpu) {
  SKIP_WITHOUT_GPU();
  ModelOptions options;
  options.seed = 5;
  auto cpu = make_model("small-cnn", options);
  options.compute = ComputeMode::cuda;
  auto gpu = make_model("small-cnn", options);
  expect_device_state(*gpu);
  expect_model_parity(*cpu, *gpu, 4, 1);
  expect_model_parity(*cpu, *gpu, 2, 2);  // a new batch size reallocates
}

TEST(CudaModels, TinyResnetMatchesCpu) {
  SKIP_WITHOUT_GPU();
  CpuModel cpu("tiny-resnet", tiny_resnet(), 9);
  ModelOptions options;
  options.compute = ComputeMode::cuda;
  options.seed = 9;
  auto gpu = make_cuda_model("tiny-resnet", tiny_resnet(), options);
  expect_device_state(*gpu);
  expect_model_parity(cpu, *gpu, 4, 3);
}

#else

TEST(CudaLayers, NotBuilt) {
  ASSERT_FALSE(cuda_compute_built());
  GTEST_SKIP() << "cuda compute is not built in (GRADSYNC_CUDA=OFF or no CUDA toolkit)";
}

#endif

}  // namespace
}  // namespace gradsync
