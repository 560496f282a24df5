// Inception-v3 as torchvision builds it, without the auxiliary classifier,
// for 3x299x299 input. Every convolution is a BasicConv2d: conv without bias,
// BN (eps 0.001), ReLU. Stem: 3x3/2(32), 3x3(32), 3x3 pad 1(64), maxpool3/2,
// 1x1(80), 3x3(192), maxpool3/2 -> 192x35x35. Then Mixed_5b..5d (InceptionA:
// 1x1 | 1x1-5x5 | 1x1-3x3-3x3 | avgpool-1x1), Mixed_6a (InceptionB, grid
// reduction to 17x17), Mixed_6b..6e (InceptionC with factorized 1x7/7x1
// convolutions), Mixed_7a (InceptionD, reduction to 8x8), Mixed_7b..7c
// (InceptionE with split 1x3/3x1 branches), global average pool, fc(1000).
// Each module's branches are built in torchvision's forward order and joined
// by a channel concat. Dropout is the identity here.
#include <string>

#include "models/zoo.h"

namespace gradsync {
namespace {

// BasicConv2d with a kh x kw kernel.
NodeId basic_rect(Graph& g, NodeId x, const std::string& name, int out, int kh, int kw,
                  int stride, int pad_h, int pad_w) {
  const NodeId c = g.conv(x, name + ".conv", Conv2dOptions{out, kh, kw, stride, pad_h, pad_w, false});
  return g.relu(g.batch_norm(c, name + ".bn", 1e-3f));
}
NodeId basic(Graph& g, NodeId x, const std::string& name, int out, int k, int stride = 1,
             int pad = 0) {
  return basic_rect(g, x, name, out, k, k, stride, pad, pad);
}

NodeId inception_a(Graph& g, NodeId x, const std::string& n, int pool_features) {
  const NodeId b1 = basic(g, x, n + ".branch1x1", 64, 1);
  NodeId b5 = basic(g, x, n + ".branch5x5_1", 48, 1);
  b5 = basic(g, b5, n + ".branch5x5_2", 64, 5, 1, 2);
  NodeId b3 = basic(g, x, n + ".branch3x3dbl_1", 64, 1);
  b3 = basic(g, b3, n + ".branch3x3dbl_2", 96, 3, 1, 1);
  b3 = basic(g, b3, n + ".branch3x3dbl_3", 96, 3, 1, 1);
  const NodeId bp = basic(g, g.avg_pool(x, 3, 1, 1), n + ".branch_pool", pool_features, 1);
  return g.concat({b1, b5, b3, bp});
}

NodeId inception_b(Graph& g, NodeId x, const std::string& n) {
  const NodeId b3 = basic(g, x, n + ".branch3x3", 384, 3, 2);
  NodeId bd = basic(g, x, n + ".branch3x3dbl_1", 64, 1);
  bd = basic(g, bd, n + ".branch3x3dbl_2", 96, 3, 1, 1);
  bd = basic(g, bd, n + ".branch3x3dbl_3", 96, 3, 2);
  return g.concat({b3, bd, g.max_pool(x, 3, 2)});
}

NodeId inception_c(Graph& g, NodeId x, const std::string& n, int c7) {
  const NodeId b1 = basic(g, x, n + ".branch1x1", 192, 1);
  NodeId b7 = basic(g, x, n + ".branch7x7_1", c7, 1);
  b7 = basic_rect(g, b7, n + ".branch7x7_2", c7, 1, 7, 1, 0, 3);
  b7 = basic_rect(g, b7, n + ".branch7x7_3", 192, 7, 1, 1, 3, 0);
  NodeId bd = basic(g, x, n + ".branch7x7dbl_1", c7, 1);
  bd = basic_rect(g, bd, n + ".branch7x7dbl_2", c7, 7, 1, 1, 3, 0);
  bd = basic_rect(g, bd, n + ".branch7x7dbl_3", c7, 1, 7, 1, 0, 3);
  bd = basic_rect(g, bd, n + ".branch7x7dbl_4", c7, 7, 1, 1, 3, 0);
  bd = basic_rect(g, bd, n + ".branch7x7dbl_5", 192, 1, 7, 1, 0, 3);
  const NodeId bp = basic(g, g.avg_pool(x, 3, 1, 1), n + ".branch_pool", 192, 1);
  return g.concat({b1, b7, bd, bp});
}

NodeId inception_d(Graph& g, NodeId x, const std::string& n) {
  NodeId b3 = basic(g, x, n + ".branch3x3_1", 192, 1);
  b3 = basic(g, b3, n + ".branch3x3_2", 320, 3, 2);
  NodeId b7 = basic(g, x, n + ".branch7x7x3_1", 192, 1);
  b7 = basic_rect(g, b7, n + ".branch7x7x3_2", 192, 1, 7, 1, 0, 3);
  b7 = basic_rect(g, b7, n + ".branch7x7x3_3", 192, 7, 1, 1, 3, 0);
  b7 = basic(g, b7, n + ".branch7x7x3_4", 192, 3, 2);
  return g.concat({b3, b7, g.max_pool(x, 3, 2)});
}

NodeId inception_e(Graph& g, NodeId x, const std::string& n) {
  const NodeId b1 = basic(g, x, n + ".branch1x1", 320, 1);
  const NodeId b3 = basic(g, x, n + ".branch3x3_1", 384, 1);
  const NodeId b3a = basic_rect(g, b3, n + ".branch3x3_2a", 384, 1, 3, 1, 0, 1);
  const NodeId b3b = basic_rect(g, b3, n + ".branch3x3_2b", 384, 3, 1, 1, 1, 0);
  NodeId bd = basic(g, x, n + ".branch3x3dbl_1", 448, 1);
  bd = basic(g, bd, n + ".branch3x3dbl_2", 384, 3, 1, 1);
  const NodeId bda = basic_rect(g, bd, n + ".branch3x3dbl_3a", 384, 1, 3, 1, 0, 1);
  const NodeId bdb = basic_rect(g, bd, n + ".branch3x3dbl_3b", 384, 3, 1, 1, 1, 0);
  const NodeId bp = basic(g, g.avg_pool(x, 3, 1, 1), n + ".branch_pool", 192, 1);
  return g.concat({b1, g.concat({b3a, b3b}), g.concat({bda, bdb}), bp});
}

}  // namespace

Graph build_inception3() {
  Graph g(ImageShape{3, 299, 299});
  NodeId x = basic(g, kInput, "Conv2d_1a_3x3", 32, 3, 2);
  x = basic(g, x, "Conv2d_2a_3x3", 32, 3);
  x = basic(g, x, "Conv2d_2b_3x3", 64, 3, 1, 1);
  x = g.max_pool(x, 3, 2);
  x = basic(g, x, "Conv2d_3b_1x1", 80, 1);
  x = basic(g, x, "Conv2d_4a_3x3", 192, 3);
  x = g.max_pool(x, 3, 2);
  x = inception_a(g, x, "Mixed_5b", 32);
  x = inception_a(g, x, "Mixed_5c", 64);
  x = inception_a(g, x, "Mixed_5d", 64);
  x = inception_b(g, x, "Mixed_6a");
  x = inception_c(g, x, "Mixed_6b", 128);
  x = inception_c(g, x, "Mixed_6c", 160);
  x = inception_c(g, x, "Mixed_6d", 160);
  x = inception_c(g, x, "Mixed_6e", 192);
  x = inception_d(g, x, "Mixed_7a");
  x = inception_e(g, x, "Mixed_7b");
  x = inception_e(g, x, "Mixed_7c");
  g.linear(g.global_avg_pool(x), "fc", 1000);
  return g;
}

}  // namespace gradsync
