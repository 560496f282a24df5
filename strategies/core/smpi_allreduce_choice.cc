#include "strategies/core/smpi_allreduce_choice.h"

#include <algorithm>
#include <array>
#include <initializer_list>

namespace gradsync {
namespace {

// Open MPI's tuned allreduce numbers its algorithms; SimGrid's ompi selector
// maps them to its own functions: 1 basic_linear and 2 nonoverlapping to
// redbcast (a reduce, then a broadcast), 3 recursive_doubling to rdb, 4 ring
// to lr, 5 segmented_ring to ompi_ring_segmented, 6 rabenseifner to rab_rdb.
constexpr std::array<const char*, 7> kOmpiAlgorithm = {
    "", "redbcast", "redbcast", "rdb", "lr", "ompi_ring_segmented", "rab_rdb"};

// One band of communicator sizes (below `ranks_below`): the algorithm for
// messages below each byte bound in turn, and `otherwise` past the last.
struct Band {
  int ranks_below;
  std::initializer_list<std::pair<std::size_t, int>> below_bytes;
  int otherwise;
};

int pick(std::initializer_list<Band> bands, int ranks, std::size_t bytes) {
  for (const Band& band : bands) {
    if (ranks >= band.ranks_below) continue;
    for (const auto& [bound, algorithm] : band.below_bytes)
      if (bytes < bound) return algorithm;
    return band.otherwise;
  }
  return 0;  // unreachable: the last band has no bound
}

constexpr int kAnyRanks = 1 << 30;

// allreduce__ompi, commutative operations (Open MPI 4's fixed decisions).
int ompi_commutative(int ranks, std::size_t bytes) {
  return pick({{4, {{8, 4}, {4096, 3}, {8192, 4}, {16384, 3}, {65536, 4}, {262144, 5}}, 6},
               {8, {{16, 4}, {8192, 3}}, 6},
               {16, {{8192, 3}}, 6},
               {32, {{64, 5}, {4096, 3}}, 6},
               {64, {{128, 5}}, 6},
               {128, {{262144, 3}}, 6},
               {256, {{131072, 2}, {262144, 3}}, 6},
               {512, {{4096, 2}}, 6},
               {2048, {{2048, 2}, {16384, 3}}, 6},
               {4096, {{2048, 2}, {4096, 5}, {16384, 3}}, 6},
               {kAnyRanks, {{2048, 2}, {16384, 5}, {32768, 3}}, 6}},
              ranks, bytes);
}

// allreduce__ompi, operations that do not commute (ring, segmented ring and
// Rabenseifner need them to).
int ompi_noncommutative(int ranks, std::size_t bytes) {
  return pick({{4, {{131072, 3}}, 1},
               {8, {}, 3},
               {16, {{1048576, 3}}, 2},
               {128, {}, 3},
               {256, {{131072, 2}, {524288, 3}}, 2},
               {512, {{4096, 2}, {524288, 3}}, 2},
               {kAnyRanks, {{2048, 2}}, 3}},
              ranks, bytes);
}

// The algorithm that runs when `name` is called: the ring (lr) hands fewer
// elements than ranks to redbcast; the segmented ring, with segments of
// 1 MiB, hands fewer than ranks segments to the ring.
std::string runs(const std::string& name, int ranks, std::size_t bytes, std::size_t count) {
  if (name == "ompi_ring_segmented") {
    const std::size_t element = count ? bytes / count : 1;
    const std::size_t segment = std::min(count, std::max<std::size_t>(1, (1u << 20) / element));
    if (count < ranks * segment) return runs("lr", ranks, bytes, count);
  }
  if (name == "lr" && count < static_cast<std::size_t>(ranks)) return "redbcast";
  return name;
}

// The algorithm that runs, and the one picked when that fell back.
std::string named(const std::string& picked, int ranks, std::size_t bytes, std::size_t count) {
  const std::string ran = runs(picked, ranks, bytes, count);
  return ran == picked ? ran : ran + " (fallback of " + picked + ")";
}

}  // namespace

const std::vector<std::string>& smpi_allreduce_algorithms() {
  static const std::vector<std::string> names = {
      "lr",          "rab1",          "rab2",           "rab_rdb",    "rdb",
      "smp_binomial", "smp_binomial_pipeline", "smp_rdb", "smp_rsag", "smp_rsag_lr",
      "smp_rsag_rab", "redbcast",     "ompi_ring_segmented", "mvapich2_rs",
      "mvapich2_two_level", "rab"};
  return names;
}

bool is_smpi_allreduce_selector(std::string_view name) {
  const auto& names = smpi_allreduce_algorithms();
  return name == "ompi" || name == "mpich" ||
         std::find(names.begin(), names.end(), name) != names.end();
}

std::string smpi_allreduce_choice(std::string_view selector, int ranks, std::size_t bytes,
                                  std::size_t count, bool commutative) {
  if (selector == "ompi") {
    const int algorithm = commutative ? ompi_commutative(ranks, bytes) : ompi_noncommutative(ranks, bytes);
    return named(kOmpiAlgorithm[algorithm], ranks, bytes, count);
  }
  if (selector == "mpich") {
    // allreduce__mpich: commutative operations go to the two-level (node,
    // then between nodes) algorithm; the rest to Rabenseifner above 2 KiB
    // when every one of the largest power of two of ranks gets an element,
    // else recursive doubling.
    if (commutative) return "mvapich2_two_level";
    std::size_t pof2 = 1;
    while (pof2 * 2 <= static_cast<std::size_t>(ranks)) pof2 *= 2;
    return bytes > 2048 && count >= pof2 ? "rab_rdb" : "rdb";
  }
  return named(std::string(selector), ranks, bytes, count);
}

}  // namespace gradsync
