// VGG-16 (torchvision "vgg16", configuration D, no batch norm): thirteen
// 3x3/1 convolutions with bias and ReLU in five groups (64, 128, 256, 512,
// 512 channels), each group closed by maxpool2/2; then 25088 -> 4096 ->
// 4096 -> 1000 fully connected with ReLU. torchvision's AdaptiveAvgPool(7x7)
// is the identity at 224x224 input and dropout is treated as the identity
// (this suite measures throughput, not accuracy), so both are left out.
// Names follow torchvision's Sequential indices ("features.0.weight", "classifier.6.bias").
#include <string>

#include "models/zoo.h"

namespace gradsync {

Graph build_vgg16() {
  Graph g(ImageShape{3, 224, 224});
  constexpr int kPool = 0;
  const int config[] = {64, 64, kPool, 128, 128, kPool, 256, 256, 256, kPool,
                        512, 512, 512, kPool, 512, 512, 512, kPool};
  NodeId x = kInput;
  int index = 0;  // torchvision's index in `features` (conv, relu, pool each take one)
  for (int c : config) {
    if (c == kPool) {
      x = g.max_pool(x, 2, 2);
      index += 1;
    } else {
      x = g.relu(g.conv(x, "features." + std::to_string(index), c, 3, 1, 1));
      index += 2;
    }
  }
  x = g.relu(g.linear(x, "classifier.0", 4096));
  x = g.relu(g.linear(x, "classifier.3", 4096));
  g.linear(x, "classifier.6", 1000);
  return g;
}

}  // namespace gradsync
