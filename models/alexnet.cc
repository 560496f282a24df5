// AlexNet as torchvision builds it (the single-GPU "one weird trick"
// variant, no grouped convolutions): conv11x11/4(64) pad 2, maxpool3/2,
// conv5x5(192) pad 2, maxpool3/2, conv3x3(384), conv3x3(256), conv3x3(256),
// maxpool3/2, all with bias and ReLU; then 9216 -> 4096 -> 4096 -> 1000.
// AdaptiveAvgPool(6x6) is the identity at 224x224 and dropout is treated as
// the identity, so both are left out. Names follow torchvision's indices.
#include "models/zoo.h"

namespace gradsync {

Graph build_alexnet() {
  Graph g(ImageShape{3, 224, 224});
  NodeId x = g.relu(g.conv(kInput, "features.0", 64, 11, 4, 2));
  x = g.max_pool(x, 3, 2);
  x = g.relu(g.conv(x, "features.3", 192, 5, 1, 2));
  x = g.max_pool(x, 3, 2);
  x = g.relu(g.conv(x, "features.6", 384, 3, 1, 1));
  x = g.relu(g.conv(x, "features.8", 256, 3, 1, 1));
  x = g.relu(g.conv(x, "features.10", 256, 3, 1, 1));
  x = g.max_pool(x, 3, 2);
  x = g.relu(g.linear(x, "classifier.1", 4096));
  x = g.relu(g.linear(x, "classifier.4", 4096));
  g.linear(x, "classifier.6", 1000);
  return g;
}

}  // namespace gradsync
