// double-tree-mpi's two trees, for every size 1..300: each is one binary tree
// spanning all ranks (one root, every other rank reachable from it, parent and
// child links agreeing, at most two children, no deeper than floor(log2 p)),
// they complement each other (every rank is a leaf in at least one tree and
// interior in at most one), and the busiest rank has the fewest links two
// trees allow, ceil(4(p-1)/p).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "strategies/mpi/double_tree_plan.h"

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
  for (int size = 1; size <= 300; ++size) {
    std::array<std::vector<TreeLinks>, 2> trees;
    const DoubleTreePlan plan = double_tree_plan(size);
    for (int r = 0; r < size; ++r)
      for (int t = 0; t < 2; ++t) trees[t].push_back(plan.links[r][t]);
    for (int t = 0; t < 2; ++t) check_tree(trees[t], size, t);
    int busiest = 0;
    for (int r = 0; r < size; ++r) {
      const bool interior0 = !trees[0][r].children.empty();
      const bool interior1 = !trees[1][r].children.empty();
      EXPECT_FALSE(interior0 && interior1) << "size " << size << ": rank " << r
                                           << " is interior in both trees";
      int links = 0;
      for (int t = 0; t < 2; ++t)
        links += static_cast<int>(trees[t][r].children.size()) + (trees[t][r].parent >= 0);
      busiest = std::max(busiest, links);
    }
    // 4(p-1) link ends over p ranks: the busiest has at least the ceiling.
    EXPECT_EQ(busiest, (4 * (size - 1) + size - 1) / size) << "size " << size;
    EXPECT_EQ(plan.busiest_links, busiest) << "size " << size;
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
  // Four ranks: the in-order tree 3 - 1 - {0, 2} and its mirror would give
  // ranks 1 and 2 four links each; the midpoint tree 2 - {1 - 0, 3} and its
  // image under r XOR 1, 3 - {0 - 1, 2}, give every rank three.
  EXPECT_EQ(double_tree(2, 4)[0].children, (std::vector<int>{1, 3}));
  EXPECT_EQ(double_tree(1, 4)[0].children, std::vector<int>{0});
  EXPECT_EQ(double_tree(3, 4)[1].children, (std::vector<int>{0, 2}));
  EXPECT_EQ(double_tree(0, 4)[1].children, std::vector<int>{1});
  EXPECT_EQ(double_tree_plan(4).busiest_links, 3);
  EXPECT_EQ(double_tree_plan(4).depth, 2);
  // Eight ranks: the in-order tree 7 - 3 - {1 - {0, 2}, 5 - {4, 6}} and its
  // mirror 0 - 4 - {6 - {7, 5}, 2 - {3, 1}}.
  EXPECT_EQ(double_tree(7, 8)[0].children, std::vector<int>{3});
  EXPECT_EQ(double_tree(5, 8)[0].children, (std::vector<int>{4, 6}));
  EXPECT_EQ(double_tree(0, 8)[1].children, std::vector<int>{4});
  EXPECT_EQ(double_tree(2, 8)[1].children, (std::vector<int>{3, 1}));
  EXPECT_THROW(double_tree(4, 4), std::invalid_argument);
}

}  // namespace
}  // namespace gradsync
