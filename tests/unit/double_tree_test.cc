// double-tree-mpi's two trees, for every size 1..33: each is one binary tree
// spanning all ranks (one root, every other rank reachable from it, parent and
// child links agreeing, at most two children, no deeper than floor(log2 p)),
// and they complement each other: every rank is a leaf in at least one tree and
// interior in at most one.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "strategies/double_tree_mpi.h"

namespace gradsync {
namespace {

void check_tree(const std::vector<TreeLinks>& links, int size, int t) {
  int roots = 0, root = -1;
  for (int r = 0; r < size; ++r) {
    const TreeLinks& node = links[r];
    EXPECT_LE(node.children.size(), 2u) << "size " << size << " tree " << t << " rank " << r;
    if (node.parent < 0) {
      ++roots;
      root = r;
    } else {
      ASSERT_LT(node.parent, size);
      const std::vector<int>& siblings = links[node.parent].children;
      EXPECT_EQ(std::count(siblings.begin(), siblings.end(), r), 1)
          << "size " << size << " tree " << t << ": rank " << r << " names " << node.parent
          << " its parent, which does not name it a child";
    }
    for (int child : node.children) {
      ASSERT_GE(child, 0);
      ASSERT_LT(child, size);
      EXPECT_EQ(links[child].parent, r) << "size " << size << " tree " << t << ": child " << child
                                        << " of rank " << r << " names another parent";
    }
  }
  ASSERT_EQ(roots, 1) << "size " << size << " tree " << t;
  // Every rank is reached from the root, within floor(log2 size) levels.
  std::vector<int> depth(size, -1);
  std::vector<int> frontier = {root};
  depth[root] = 0;
  for (std::size_t i = 0; i < frontier.size(); ++i)
    for (int child : links[frontier[i]].children) {
      ASSERT_EQ(depth[child], -1) << "size " << size << " tree " << t << ": rank " << child
                                  << " reached twice";
      depth[child] = depth[frontier[i]] + 1;
      EXPECT_LE(depth[child], binary_tree_depth(size)) << "size " << size << " tree " << t;
      frontier.push_back(child);
    }
  EXPECT_EQ(frontier.size(), static_cast<std::size_t>(size)) << "size " << size << " tree " << t;
}

TEST(DoubleTree, TwoSpanningTreesWithEveryRankInteriorInAtMostOne) {
  for (int size = 1; size <= 33; ++size) {
    std::array<std::vector<TreeLinks>, 2> trees;
    for (int r = 0; r < size; ++r) {
      const std::array<TreeLinks, 2> node = double_tree(r, size);
      for (int t = 0; t < 2; ++t) trees[t].push_back(node[t]);
    }
    for (int t = 0; t < 2; ++t) check_tree(trees[t], size, t);
    for (int r = 0; r < size; ++r) {
      const bool interior0 = !trees[0][r].children.empty();
      const bool interior1 = !trees[1][r].children.empty();
      EXPECT_FALSE(interior0 && interior1) << "size " << size << ": rank " << r
                                           << " is interior in both trees";
      // Tree 0's leaves are the even ranks.
      EXPECT_EQ(interior0, r % 2 == 1) << "size " << size << " rank " << r;
    }
  }
}

TEST(DoubleTree, SmallSizesAsDrawn) {
  // One rank: a lone root in both trees.
  const auto one = double_tree(0, 1);
  EXPECT_EQ(one[0].parent, -1);
  EXPECT_TRUE(one[0].children.empty());
  EXPECT_EQ(one[1].parent, -1);
  // Two ranks: 1 over 0, and mirrored 0 over 1, so the one link carries both halves.
  EXPECT_EQ(double_tree(0, 2)[0].parent, 1);
  EXPECT_EQ(double_tree(1, 2)[1].parent, 0);
  // Four ranks: tree 0 is 3 - 1 - {0, 2}; tree 1 its mirror 0 - 2 - {3, 1}.
  EXPECT_EQ(double_tree(3, 4)[0].children, std::vector<int>{1});
  EXPECT_EQ(double_tree(1, 4)[0].children, (std::vector<int>{0, 2}));
  EXPECT_EQ(double_tree(0, 4)[1].children, std::vector<int>{2});
  EXPECT_EQ(double_tree(2, 4)[1].children, (std::vector<int>{3, 1}));
}

}  // namespace
}  // namespace gradsync
