#pragma once
// A model: a graph of layers with real shapes, its parameters, and one
// training step's forward and backward on a compute backend. What the
// training harness sees of the models/ folder (plus synthetic data).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gradsync {

enum class ComputeMode {
  cpu,       // real forward and backward (im2col + OpenBLAS SGEMM, ...)
  emulated,  // each layer takes the time its FLOPs would take on a device; real gradient shapes
  cuda,      // real forward and backward on a GPU: cuDNN and cuBLAS (CUDA builds)
};

// The arithmetic of cuda compute. Tensors are stored in fp32 in every mode;
// what changes is the math convolutions and linear layers may use.
enum class Precision {
  fp32,   // strict fp32 (cuDNN CUDNN_FMA_MATH, cuBLAS pedantic): matches the CPU layers
  tf32,   // TF32 tensor cores where the GPU has them (PyTorch's default for convolutions on Ampere+)
  mixed,  // fp16 tensor cores with fp32 accumulation, converting on the fly
          // (CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, CUBLAS_COMPUTE_32F_FAST_16F)
};

// A device for emulated compute: how many FLOP/s a layer achieves on it.
struct DeviceProfile {
  std::string name;          // e.g. "v100"
  double flops_per_second = 0;  // sustained training throughput, FLOP/s (0: none given)
  std::string source;        // where the figure comes from
  // The same for transformers (their matrix products run tensor cores at
  // another efficiency than convolutions); profile_for picks it.
  double transformer_flops_per_second = 0;
  std::string transformer_source;
};

struct ModelOptions {
  ComputeMode compute = ComputeMode::cpu;
  DeviceProfile profile;            // emulated only
  double emulate_img_per_sec = 0;   // emulated only: when > 0, overrides the profile so that one
                                    // forward+backward of one sample takes 1/this seconds
  double time_scale = 1;            // emulated only: every layer takes this many times longer
                                    // (>= 1; `train --time-scale`, for links shaped to rate / K)
  std::uint64_t seed = 42;          // initial parameter values (same seed: same values)
  Precision precision = Precision::fp32;  // cuda only
  int gpu = 0;                      // cuda only: the CUDA device ordinal to compute on
  int sequence_length = 0;          // token models only: positions per sample (0: the model's own)
};

// One trainable tensor. Addresses stay valid for the model's lifetime. For a
// model on a GPU (Model::device_state()), value and grad are host copies that
// only copy_to_host() brings up to date; the live tensors are on the device.
//
// The gradient is a view: a model keeps every gradient in one block of its
// own (allocate_gradients, models/gradient_block.h), back to back in the order
// its backward hands them over, so that a fusion bucket (a run of gradients
// in that order) is itself a slice of the block and is reduced where it lies.
struct Parameter {
  std::string name;          // e.g. "layer1.0.conv1.weight"
  std::vector<int> shape;    // e.g. {64, 3, 7, 7}
  std::vector<float> value;
  std::span<float> grad;  // same size as value, in the owner's gradient block; written by backward
};

// What a model learns from a sample, which says what its input and labels are.
enum class Task {
  classify,      // an image (C x H x W floats) and one label: the class
  next_token,    // T token ids (C = T, H = W = 1; floats holding integers) and T labels: the
                 // token after each position (a causal language model: GPT-2)
  masked_token,  // T token ids, some replaced by a mask id, and T labels: the original token at
                 // every position (a masked language model: BERT)
};

// "classify", "next_token", "masked_token".
const char* to_string(Task task);

// Per-sample input shape, channels x height x width (for token models, T x 1 x 1).
struct ImageShape {
  int channels = 3, height = 224, width = 224;
  std::size_t elements() const { return std::size_t(channels) * height * width; }
};

// Where timed events go when a run is traced (`gradsync train --timeline`).
// The models and the synchronizer report spans of work; the harness's
// Timeline collects them. `thread` is 0 for the compute (main) thread and 1
// for the communication thread. event() may be called from both at once.
using TraceClock = std::chrono::steady_clock;
class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void event(std::string_view name, std::string_view category, TraceClock::time_point start,
                     TraceClock::time_point end, int thread) = 0;
};

class Model {
 public:
  virtual ~Model() = default;
  virtual const std::string& name() const = 0;
  virtual ImageShape input_shape() const = 0;
  virtual int classes() const = 0;
  virtual Task task() const { return Task::classify; }
  // Labels per sample: 1 for a classifier, one per position for a token model.
  virtual int labels_per_sample() const { return 1; }
  // In forward order of first use.
  virtual std::vector<Parameter>& parameters() = 0;
  virtual double forward_flops_per_sample() const = 0;

  // Forward of `batch` samples (batch x input_shape().elements() floats, NCHW),
  // returning the mean softmax cross-entropy against `labels` (batch x
  // labels_per_sample() values in [0, classes()), sample-major).
  virtual float forward(std::span<const float> input, std::span<const int> labels, int batch) = 0;

  // Backward of the last forward: writes every parameter's grad and calls
  // `ready(i)` on the calling thread the moment parameter i's gradient is
  // final, in the order backward finishes them (roughly reverse of forward).
  virtual void backward(const std::function<void(std::size_t)>& ready) = 0;

  // From now on, report each layer's forward ("forward <layer>", category
  // "forward") and backward ("backward <layer>", category "backward") to
  // `sink` on thread 0; nullptr stops it. Untraced passes pay one pointer test
  // per layer. The sink must outlive its use. Default: reports nothing.
  virtual void set_trace(TraceSink* sink) { (void)sink; }

  // Before each layer that has parameters, forward calls `gate(first, count)`
  // with the layer's parameter indices, first .. first + count - 1, and runs
  // the layer once it returns: where the harness waits for those parameters'
  // communication and updates them (forward order, harness/engine/synchronizer.h).
  // Emulated compute does not count the time a gate takes as the layer's.
  // An empty gate: none. Models that cannot take one (a GPU's, whose host
  // only queues its layers) return false from takes_forward_gate().
  using ForwardGate = std::function<void(std::size_t first, std::size_t count)>;
  virtual bool takes_forward_gate() const { return false; }
  virtual void set_forward_gate(ForwardGate gate) { (void)gate; }

  // Fully sharded training (ZeRO stage 3, FSDP's FULL_SHARD) holds a
  // layer's parameters only around the layer: the model calls these before
  // the forward and before the backward of each layer that uses parameters,
  // its own or one it borrows (a tied head: count 1, the borrowed index),
  // with the indices first .. first + count - 1, and runs the layer once the
  // gate returns; outside the gates a Parameter::value may be empty.
  // Emulated compute does not count a gate's time as the layer's. Empty
  // gates: none.
  struct LayerGates {
    ForwardGate before_forward, before_backward;
  };
  virtual bool takes_layer_gates() const { return false; }
  virtual void set_layer_gates(LayerGates gates) { (void)gates; }

  // A model computing on a GPU (cuda compute) keeps its parameters and
  // gradients in device memory, each kind in one contiguous block, parameter
  // i at the same offset in both, back to back in the order backward hands
  // the gradients over (as Parameter::grad on the host). Host models return
  // nullptr.
  struct DeviceState {
    int gpu = 0;                 // CUDA device ordinal
    void* stream = nullptr;      // the cudaStream_t all of the model's work is queued on
    std::span<float> values;     // every parameter, back to back in backward order
    std::span<float> grads;      // every gradient, same layout
    std::vector<std::span<float>> grad_of;  // parameter i's gradient, a slice of `grads`
  };
  virtual const DeviceState* device_state() const { return nullptr; }
  // Device models only: copy every Parameter::value to the device (after the
  // harness changed them, e.g. by the initial broadcast), or copy the device's
  // values and gradients back into Parameter::value and ::grad. Both wait for
  // the model's queued work. Host models: nothing to do.
  virtual void copy_to_device() {}
  virtual void copy_to_host() {}
};

// What `gradsync models` lists; computed without allocating the parameters.
struct ModelInfo {
  std::string name;
  std::string description;
  ImageShape input;
  int classes = 0;
  std::uint64_t parameters = 0;     // elements
  std::size_t tensors = 0;          // trainable tensors
  double forward_flops_per_sample = 0;
  Task task = Task::classify;
  int sequence_length = 0;      // token models: positions per sample as described
  int max_sequence_length = 0;  // token models: the longest the position table allows
  bool transformer = false;     // has attention layers (GPT-2, BERT, ViT)
};

std::vector<ModelInfo> model_zoo();
// One model's entry of model_zoo(); throws naming the known models.
// `sequence_length` 0: the model's own; a length for an image model, or one
// over the model's longest, throws naming the model and the limit.
ModelInfo describe_model(std::string_view name, int sequence_length = 0);
std::unique_ptr<Model> make_model(std::string_view name, const ModelOptions& options);

// Named device profiles for emulated compute; throws naming the known ones.
DeviceProfile find_device_profile(std::string_view name);
// `profile` as it times `model`: a transformer at the profile's transformer
// rate and source, any other model at its own.
DeviceProfile profile_for(const DeviceProfile& profile, const ModelInfo& model);
std::vector<DeviceProfile> device_profiles();

}  // namespace gradsync
