// GPU execution of a graph (cuda compute), the twin of cpu_model.cc.
//
// Memory: every parameter in one device block and every gradient in another
// (DeviceState; both in the order backward hands gradients over, so that the
// synchronizer's fusion buckets are slices of the gradient block), the model
// input, and, per batch size, one block of node outputs and one of node
// output gradients (each node's slice starts on a 256-byte boundary). A new batch size waits for
// the stream and reallocates.
//
// Forward copies the input through pinned memory, queues each node's layer
// in order, and ends with the loss (loss_cuda.cc), which waits for the
// stream once. Backward zeroes the gradient block, queues the loss gradient,
// then runs the nodes in reverse; as on the CPU, a node ADDS its input
// gradients into the gradients of the nodes it read (a node read twice
// accumulates both) and overwrites its parameters' gradients, and the
// moment a node with parameters has been queued, ready(i) is called for
// each: the work is queued, not done (see cuda_model.h). The input's
// gradient is never computed. Nothing in backward waits for the GPU.
//
// Not traced: set_trace() reports nothing, because host clocks around calls
// that only queue work would not time the layers; the training step marks
// the stream with CUDA events instead (harness/engine/step_marks.h).
#include "models/cuda_model.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "gpu/check_cudnn.h"
#include "models/cuda_layer.h"
#include "models/cuda_loss.h"
#include "models/gradient_block.h"
#include "models/graph_model.h"

namespace gradsync {
namespace {

constexpr std::size_t kAlignFloats = 64;  // 256 bytes

std::size_t aligned(std::size_t n) { return (n + kAlignFloats - 1) / kAlignFloats * kAlignFloats; }

class CudaModel final : public GraphModel {
 public:
  CudaModel(std::string name, Graph graph, const ModelOptions& options)
      : GraphModel(std::move(name), std::move(graph), options.seed),
        cuda_(options.gpu, options.precision),
        loss_(cuda_, classes_) {
    // Values and gradients share one layout, in the order backward hands the
    // gradients over, so that fusion buckets are slices of the gradient block.
    std::vector<std::size_t> sizes;
    for (const Parameter& p : params_) sizes.push_back(p.value.size());
    param_offset_ = gradient_offsets(sizes, graph_.backward_order());
    const std::size_t total = std::accumulate(sizes.begin(), sizes.end(), std::size_t{0});
    values_ = DeviceBuffer(total, "cuda compute");
    grads_ = DeviceBuffer(total, "cuda compute");
    check_cuda(cudaMemsetAsync(grads_.data(), 0, total * sizeof(float), cuda_.stream()),
               "cudaMemsetAsync of the gradients", name_);
    copy_to_device();

    const auto& nodes = graph_.nodes();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const Node& node = nodes[i];
      std::vector<FeatureShape> shapes;
      for (NodeId id : node.inputs) shapes.push_back(graph_.shape(id));
      const std::string label = node.name.empty() ? node.layer->kind() + "#" + std::to_string(i)
                                                  : node.name;
      layers_.push_back(make_cuda_layer(*node.layer, shapes, cuda_, name_ + " " + label));
      std::vector<const float*> v;
      std::vector<float*> g;
      for (std::size_t p = node.first_param; p < node.first_param + node.param_count; ++p) {
        v.push_back(values_.data() + param_offset_[p]);
        g.push_back(grads_.data() + param_offset_[p]);
      }
      node_values_.push_back(std::move(v));
      node_grads_.push_back(std::move(g));
    }

    state_.gpu = cuda_.gpu();
    state_.stream = cuda_.stream();
    state_.values = {values_.data(), total};
    state_.grads = {grads_.data(), total};
    for (std::size_t p = 0; p < params_.size(); ++p)
      state_.grad_of.push_back(state_.grads.subspan(param_offset_[p], params_[p].grad.size()));
  }

  ~CudaModel() override { cudaStreamSynchronize(cuda_.stream()); }  // before buffers go

  float forward(std::span<const float> input, std::span<const int> labels, int batch) override {
    check_batch(input, labels, batch);
    cuda_.make_current();
    if (batch != batch_) set_batch(batch);
    std::memcpy(staging_.data(), input.data(), input.size_bytes());
    check_cuda(cudaMemcpyAsync(input_.data(), staging_.data(), input.size_bytes(),
                               cudaMemcpyHostToDevice, cuda_.stream()),
               "cudaMemcpyAsync of the input", name_);
    std::vector<const float*> ins;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      ins.clear();
      for (NodeId id : graph_.nodes()[i].inputs) ins.push_back(value_of(id));
      layers_[i]->forward(ins, output_of(i), node_values_[i]);
    }
    const float loss = loss_.forward(output_of(layers_.size() - 1), labels, batch);
    have_forward_ = true;
    return loss;
  }

  void backward(const std::function<void(std::size_t)>& ready) override {
    if (!have_forward_) throw std::logic_error(name_ + ": backward() needs a forward() first");
    cuda_.make_current();
    check_cuda(cudaMemsetAsync(activation_grads_.data(), 0,
                               activation_grads_.size() * sizeof(float), cuda_.stream()),
               "cudaMemsetAsync of the activation gradients", name_);
    loss_.backward(grad_of(layers_.size() - 1));
    std::vector<const float*> ins;
    std::vector<float*> dins;
    for (std::size_t i = layers_.size(); i-- > 0;) {
      const Node& node = graph_.nodes()[i];
      ins.clear();
      dins.clear();
      for (NodeId id : node.inputs) {
        ins.push_back(value_of(id));
        dins.push_back(id == kInput ? nullptr : grad_of(std::size_t(id)));
      }
      layers_[i]->backward(ins, output_of(i), grad_of(i), dins, node_values_[i], node_grads_[i]);
      for (std::size_t p = 0; p < node.param_count; ++p) ready(node.first_param + p);
    }
    have_forward_ = false;
  }

  void set_trace(TraceSink*) override {}  // see the comment at the top
  const DeviceState* device_state() const override { return &state_; }

  void copy_to_device() override {
    cuda_.make_current();
    for (std::size_t p = 0; p < params_.size(); ++p)
      check_cuda(cudaMemcpyAsync(values_.data() + param_offset_[p], params_[p].value.data(),
                                 params_[p].value.size() * sizeof(float), cudaMemcpyHostToDevice,
                                 cuda_.stream()),
                 "cudaMemcpyAsync of " + params_[p].name + " to the device", name_);
    cuda_.synchronize(name_ + ": copy_to_device");
  }

  void copy_to_host() override {
    cuda_.make_current();
    for (std::size_t p = 0; p < params_.size(); ++p) {
      const std::size_t bytes = params_[p].value.size() * sizeof(float);
      check_cuda(cudaMemcpyAsync(params_[p].value.data(), values_.data() + param_offset_[p],
                                 bytes, cudaMemcpyDeviceToHost, cuda_.stream()),
                 "cudaMemcpyAsync of " + params_[p].name + " to the host", name_);
      check_cuda(cudaMemcpyAsync(params_[p].grad.data(), grads_.data() + param_offset_[p], bytes,
                                 cudaMemcpyDeviceToHost, cuda_.stream()),
                 "cudaMemcpyAsync of " + params_[p].name + "'s gradient to the host", name_);
    }
    cuda_.synchronize(name_ + ": copy_to_host");
  }

 private:
  // Sizes every layer and buffer for `batch` samples.
  void set_batch(int batch) {
    cuda_.synchronize(name_ + ": resizing for a new batch size");
    batch_ = 0;
    std::size_t workspace = 0;
    for (auto& layer : layers_) workspace = std::max(workspace, layer->set_batch(batch));
    cuda_.reserve_workspace(workspace);
    act_offset_.clear();
    std::size_t total = 0;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      act_offset_.push_back(total);
      total += aligned(std::size_t(batch) * graph_.nodes()[i].layer->output_shape().elements());
    }
    activations_ = DeviceBuffer();
    activation_grads_ = DeviceBuffer();
    activations_ = DeviceBuffer(total, "cuda compute");
    activation_grads_ = DeviceBuffer(total, "cuda compute");
    const std::size_t in = std::size_t(batch) * graph_.input().elements();
    input_ = DeviceBuffer(in, "cuda compute");
    staging_ = PinnedBuffer(in, "cuda compute");
    batch_ = batch;
  }

  const float* value_of(NodeId id) const {
    return id == kInput ? input_.data() : output_of(std::size_t(id));
  }
  float* output_of(std::size_t node) const { return activations_.data() + act_offset_[node]; }
  float* grad_of(std::size_t node) const { return activation_grads_.data() + act_offset_[node]; }

  CudaContext cuda_;  // first: destroyed last, after every buffer below
  CudaLoss loss_;
  std::vector<std::size_t> param_offset_;  // per parameter, in floats
  DeviceBuffer values_, grads_;
  std::vector<std::unique_ptr<CudaLayer>> layers_;  // per node
  std::vector<std::vector<const float*>> node_values_;
  std::vector<std::vector<float*>> node_grads_;
  int batch_ = 0;
  std::vector<std::size_t> act_offset_;  // per node, in floats
  DeviceBuffer activations_, activation_grads_, input_;
  PinnedBuffer staging_;
  bool have_forward_ = false;
  DeviceState state_;
};

}  // namespace

std::unique_ptr<Model> cuda::make_model(std::string name, Graph graph, const ModelOptions& options) {
  if (const std::string why = cuda_compute_unavailable(options.gpu); !why.empty())
    throw std::runtime_error("--compute cuda: " + why);
  return std::make_unique<CudaModel>(std::move(name), std::move(graph), options);
}

}  // namespace gradsync
