// small-cnn: a CIFAR-sized network that trains in seconds on a CPU.
//   3x32x32 -> conv3x3(16)+ReLU -> maxpool2 -> conv3x3(32)+ReLU -> maxpool2 -> linear(10)
// No batch norm on purpose: every sample's gradient is independent of the
// others in its batch, so N workers with batch B compute exactly the same
// mean gradient as one worker with batch N*B (data-parallel equivalence).
// 25,578 parameters, about 3.3 MFLOP forward per sample.
#include "models/zoo.h"

namespace gradsync {

Graph build_small_cnn() {
  Graph g(ImageShape{3, 32, 32});
  NodeId x = g.relu(g.conv(kInput, "conv1", 16, 3, 1, 1));
  x = g.max_pool(x, 2, 2);
  x = g.relu(g.conv(x, "conv2", 32, 3, 1, 1));
  x = g.max_pool(x, 2, 2);
  g.linear(x, "fc", 10);
  return g;
}

}  // namespace gradsync
