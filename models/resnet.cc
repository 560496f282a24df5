// ResNet-50 and ResNet-101 as torchvision builds them (v1.5: the stride of a
// downsampling bottleneck sits on its 3x3 convolution). Stem: conv7x7/2(64),
// BN, ReLU, maxpool3/2; four stages of bottlenecks (1x1 reduce, 3x3, 1x1
// expand x4, each followed by BN, ReLU after the residual add) with
// [3,4,6,3] or [3,4,23,3] blocks of widths 64..512; a 1x1/stride projection
// plus BN on the first block of each stage; global average pool; fc(1000).
// Convolutions have no bias (BN follows). Names follow torchvision
// ("layer1.0.conv1.weight", "layer1.0.downsample.0.weight", "fc.bias").
#include <array>
#include <string>

#include "models/zoo.h"

namespace gradsync {
namespace {

NodeId conv_bn(Graph& g, NodeId x, const std::string& conv_name, const std::string& bn_name,
               int out, int kernel, int stride, int pad) {
  return g.batch_norm(g.conv(x, conv_name, out, kernel, stride, pad, /*bias=*/false), bn_name);
}

NodeId bottleneck(Graph& g, NodeId x, const std::string& name, int width, int stride,
                  bool project) {
  const int out = width * 4;
  NodeId y = g.relu(conv_bn(g, x, name + ".conv1", name + ".bn1", width, 1, 1, 0));
  y = g.relu(conv_bn(g, y, name + ".conv2", name + ".bn2", width, 3, stride, 1));
  y = conv_bn(g, y, name + ".conv3", name + ".bn3", out, 1, 1, 0);
  NodeId identity = x;
  if (project)
    identity = conv_bn(g, x, name + ".downsample.0", name + ".downsample.1", out, 1, stride, 0);
  return g.relu(g.residual_add(y, identity));
}

Graph build_resnet(const std::array<int, 4>& blocks) {
  Graph g(ImageShape{3, 224, 224});
  NodeId x = g.relu(conv_bn(g, kInput, "conv1", "bn1", 64, 7, 2, 3));
  x = g.max_pool(x, 3, 2, 1);
  int channels = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const int width = 64 << stage;
    for (int b = 0; b < blocks[stage]; ++b) {
      const int stride = (b == 0 && stage > 0) ? 2 : 1;
      const bool project = b == 0 && (stride != 1 || channels != width * 4);
      x = bottleneck(g, x, "layer" + std::to_string(stage + 1) + "." + std::to_string(b), width,
                     stride, project);
      channels = width * 4;
    }
  }
  g.linear(g.global_avg_pool(x), "fc", 1000);
  return g;
}

}  // namespace

Graph build_resnet50() { return build_resnet({3, 4, 6, 3}); }
Graph build_resnet101() { return build_resnet({3, 4, 23, 3}); }

}  // namespace gradsync
