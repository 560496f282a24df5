// gradsync calibrate's fit (harness/sim/calibration.h): constants made up
// here, times computed from them through the strategies' own counts, and the
// fit must give the constants back; data that cannot identify a constant
// are refused with a line that says what to measure.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/sim/calibration.h"

namespace gradsync::sim {
namespace {

constexpr CostParams kTruth{50e-6, 20e-6, 8.0 / 500e6, 0.25e-9};  // o, alpha, 500 Mbit/s, 4 GB/s

std::vector<CalibrationPoint> points(const std::string& strategy, std::vector<int> workers,
                                     std::vector<double> sizes, StrategyOptions options = {},
                                     double rate = 500e6) {
  std::vector<CalibrationPoint> out;
  for (int p : workers)
    for (double n : sizes) {
      CalibrationPoint pt;
      pt.strategy = &find_strategy(strategy);
      pt.options = options;
      pt.placement.workers = p;
      pt.bytes = n;
      pt.time_s = kTruth.seconds(strategy_counts(*pt.strategy, options, n, pt.placement).total());
      pt.link_bits_per_s = rate;
      pt.origin = "made-up.jsonl:1";
      out.push_back(pt);
    }
  return out;
}

const std::vector<double> kSizes = {256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20};

TEST(SimCalibration, RingGivesBackItsConstantsWithGammaFoldedIntoBeta) {
  const auto pts = points("ring-mpi", {2, 4, 8}, kSizes);
  const auto c = calibrate(pts);
  ASSERT_EQ(c.fits.size(), 1u);
  const auto& f = c.fits.front();
  EXPECT_EQ(f.link, "inter");
  // A ring's reduced bytes are always half its transferred bytes
  // ((p-1)/p n against 2(p-1)/p n), so gamma cannot be told from beta: the
  // fit carries beta + gamma / 2, which predicts the ring exactly.
  EXPECT_TRUE(f.gamma_folded);
  EXPECT_EQ(f.params.gamma_s_per_byte, 0.0);
  EXPECT_NEAR(f.params.beta_s_per_byte, kTruth.beta_s_per_byte + kTruth.gamma_s_per_byte / 2,
              1e-6 * kTruth.beta_s_per_byte);
  EXPECT_NEAR(f.params.overhead_s, kTruth.overhead_s, 1e-6 * kTruth.overhead_s);
  EXPECT_NEAR(f.params.alpha_s, kTruth.alpha_s, 1e-6 * kTruth.alpha_s);
  EXPECT_LT(f.worst_abs_error, 1e-9);
  EXPECT_EQ(f.points, 15);
  EXPECT_EQ(f.worker_counts, (std::vector<int>{2, 4, 8}));
  EXPECT_EQ(c.points.size(), 15u);
}

TEST(SimCalibration, ABlackBoxIsFittedPerWorkerCountAndTheNearestBelowCarriesOn) {
  // MPI_Allreduce switches algorithm with the worker count: made-up points
  // whose rate halves from 2 to 4 workers must give two fits, each exact.
  std::vector<CalibrationPoint> pts;
  for (int p : {2, 4})
    for (double n : kSizes) {
      CalibrationPoint pt;
      pt.strategy = &find_strategy("mpi-allreduce");
      pt.placement.workers = p;
      pt.bytes = n;
      const CostTerms t = strategy_counts(*pt.strategy, pt.options, n, pt.placement).total();
      pt.time_s = 30e-6 + t.bytes * (p == 2 ? 1.0 : 2.0) * kTruth.beta_s_per_byte;
      pt.origin = "made-up.jsonl:1";
      pts.push_back(pt);
    }
  const auto c = calibrate(pts);
  ASSERT_EQ(c.fits.size(), 2u);
  for (const auto& f : c.fits) {
    EXPECT_LT(f.worst_abs_error, 1e-9);
    EXPECT_NEAR(f.params.beta_s_per_byte,
                (f.black_box_workers == 2 ? 1.0 : 2.0) * kTruth.beta_s_per_byte,
                1e-6 * kTruth.beta_s_per_byte);
    EXPECT_NEAR(f.params.overhead_s, 30e-6, 1e-9);
  }
  // And tabulated: the times as measured, one per size.
  for (const auto& f : c.fits) EXPECT_EQ(f.times_by_size.size(), kSizes.size());
  ClusterModel m;
  m.fits = c.fits;
  EXPECT_EQ(m.find_fit("mpi-allreduce", "inter", 2)->black_box_workers, 2);
  EXPECT_EQ(m.find_fit("mpi-allreduce", "inter", 3)->black_box_workers, 2);
  EXPECT_EQ(m.find_fit("mpi-allreduce", "inter", 1024)->black_box_workers, 4);
  EXPECT_EQ(m.find_fit("mpi-allreduce", "intra", 4), nullptr);
}

TEST(SimCalibration, TablesInterpolateBetweenAndExtrapolateBeyondTheirSizes) {
  const std::vector<std::pair<double, double>> t = {{1e6, 1.0}, {2e6, 3.0}, {4e6, 4.0}};
  EXPECT_DOUBLE_EQ(table_seconds(t, 1e6), 1.0);
  EXPECT_DOUBLE_EQ(table_seconds(t, 1.5e6), 2.0);  // halfway between 1 and 3
  EXPECT_DOUBLE_EQ(table_seconds(t, 3e6), 3.5);
  EXPECT_DOUBLE_EQ(table_seconds(t, 8e6), 6.0);    // the last slope, 0.5 s per MB, on
  EXPECT_DOUBLE_EQ(table_seconds(t, 0.5e6), 0.5);  // in proportion below the smallest
  EXPECT_DOUBLE_EQ(table_seconds(t, 0), 0.0);
}

TEST(SimCalibration, OnOneHostTheFitIsOfTheIntraClass) {
  auto pts = points("tree-mpi", {2, 3, 4}, kSizes);
  for (auto& p : pts) p.placement.workers_per_node = 4;
  const auto c = calibrate(pts);
  ASSERT_EQ(c.fits.size(), 1u);
  EXPECT_EQ(c.fits.front().link, "intra");
}

TEST(SimCalibration, RefusesOneSize) {
  const auto pts = points("ring-mpi", {2, 4, 8}, {16 << 20});
  try {
    calibrate(pts);
    FAIL() << "one size was accepted";
  } catch (const CalibrationError& e) {
    EXPECT_NE(std::string(e.what()).find("at least two sizes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ring-mpi"), std::string::npos) << e.what();
  }
}

TEST(SimCalibration, RefusesOneWorkerCount) {
  const auto pts = points("tree-mpi", {4}, kSizes);
  try {
    calibrate(pts);
    FAIL() << "one worker count was accepted";
  } catch (const CalibrationError& e) {
    EXPECT_NE(std::string(e.what()).find("at least two worker counts"), std::string::npos)
        << e.what();
  }
}

TEST(SimCalibration, RefusesPointsOfTwoLinkRatesInOneGroup) {
  auto pts = points("ring-mpi", {2, 4}, kSizes);
  auto more = points("ring-mpi", {8}, kSizes, {}, 1e9);
  pts.insert(pts.end(), more.begin(), more.end());
  EXPECT_THROW(calibrate(pts), CalibrationError);
}

TEST(SimCalibration, LeavesOutSingleWorkerAndNcclPointsSayingSo) {
  auto pts = points("ring-mpi", {2, 4}, kSizes);
  auto one = points("ring-mpi", {1}, kSizes);
  pts.insert(pts.end(), one.begin(), one.end());
  CalibrationPoint nccl = pts.front();
  nccl.strategy = &find_strategy("nccl-ring");
  pts.push_back(nccl);
  const auto c = calibrate(pts);
  EXPECT_EQ(c.points.size(), 10u);
  ASSERT_EQ(c.notes.size(), 2u);
}

TEST(SimCalibration, NoUsablePointIsAnError) {
  EXPECT_THROW(calibrate(points("ring-mpi", {1}, kSizes)), CalibrationError);
}

TEST(SimCalibration, TheClusterTakesItsLinkFromTheRing) {
  auto pts = points("ring-mpi", {2, 4, 8}, kSizes);
  auto tree = points("tree-mpi", {2, 4, 8}, kSizes);
  pts.insert(pts.end(), tree.begin(), tree.end());
  const auto c = calibrate(pts);
  const ClusterModel m = calibrated_cluster(c, pts, {.reduce_bytes_per_s = 5e9}, "made-up");
  EXPECT_EQ(m.nodes, 8);
  EXPECT_EQ(m.workers_per_node, 1);
  const StrategyFit* ring = m.find_fit("ring-mpi", "inter");
  ASSERT_NE(ring, nullptr);
  EXPECT_DOUBLE_EQ(m.inter.bandwidth_bits_per_s.value, 8.0 / ring->params.beta_s_per_byte);
  EXPECT_EQ(m.inter.bandwidth_bits_per_s.source, "calibrated");
  EXPECT_EQ(m.intra.bandwidth_bits_per_s.source, "assumed");  // no point on one host
  // Round trip through the file format.
  const ClusterModel back = cluster_model_from_json(to_json(m), "test");
  EXPECT_EQ(back.fits.size(), m.fits.size());
  EXPECT_DOUBLE_EQ(back.fits.front().params.alpha_s, m.fits.front().params.alpha_s);
  EXPECT_EQ(back.fits.front().gamma_folded, m.fits.front().gamma_folded);
}

// On one host a parameter server's fit has one flow per link too, and may fit
// better than a noisy ring's; the link is still the ring's, whose entry says
// its constants are the link's (StrategyCost::measures_links).
TEST(SimCalibration, TheLinkComesFromAStrategyThatMeasuresLinks) {
  auto pts = points("ring-mpi", {2, 3, 4}, kSizes);
  for (std::size_t i = 0; i < pts.size(); ++i) pts[i].time_s *= 1 + 0.6 * std::sin(2.3 * double(i));
  auto ps = points("ps-zmq", {2, 3, 4}, kSizes);
  pts.insert(pts.end(), ps.begin(), ps.end());
  for (auto& p : pts) p.placement.workers_per_node = 4;
  const auto c = calibrate(pts);
  const ClusterModel m = calibrated_cluster(c, pts, {.reduce_bytes_per_s = 5e9}, "made-up");
  const StrategyFit* ring = m.find_fit("ring-mpi", "intra");
  ASSERT_NE(ring, nullptr);
  EXPECT_GT(ring->median_abs_error, m.find_fit("ps-zmq", "intra")->median_abs_error);
  EXPECT_DOUBLE_EQ(m.intra.bandwidth_bits_per_s.value, 8.0 / ring->params.beta_s_per_byte);
}

// A binary tree at 2 and 4 workers adds as many bytes as its busiest link
// carries (n and n, 2n and 2n), so a free fit may put the link's time in
// gamma; at 8 workers that link carries 3n but the rank adds 2n, and the
// prediction would be a third short. With the ring's beta as the floor of
// every fit between nodes, the tree's beta is the link's and its 8-worker
// time comes out as measured.
TEST(SimCalibration, FitsBetweenNodesAreFittedAboveTheLinksOwnBeta) {
  constexpr CostParams kLinkOnly{0, 0, 8.0 / 500e6, 0};
  auto pts = points("ring-mpi", {2, 4}, kSizes);
  auto tree = points("tree-mpi", {2, 4}, kSizes);
  pts.insert(pts.end(), tree.begin(), tree.end());
  for (auto& p : pts)
    p.time_s =
        kLinkOnly.seconds(strategy_counts(*p.strategy, p.options, p.bytes, p.placement).total());
  const auto c = calibrate(pts);
  ASSERT_EQ(c.fits.size(), 2u);
  const StrategyFit& ring = c.fits[0];
  const StrategyFit& t = c.fits[1];
  EXPECT_EQ(ring.link_beta_s_per_byte, 0.0);  // the floor's own fit is free
  EXPECT_DOUBLE_EQ(t.link_beta_s_per_byte, ring.params.beta_s_per_byte);
  EXPECT_EQ(t.link_beta_from, "1 / beta of the ring-mpi fit on inter");
  EXPECT_NEAR(t.params.beta_s_per_byte, kLinkOnly.beta_s_per_byte,
              1e-6 * kLinkOnly.beta_s_per_byte);
  EXPECT_LT(t.params.gamma_s_per_byte, 1e-3 * kLinkOnly.beta_s_per_byte);
  WorkerPlacement eight{.workers = 8};
  const CostTerms at8 = strategy_counts(find_strategy("tree-mpi"), {}, 64 << 20, eight).total();
  EXPECT_NEAR(t.params.seconds(at8), kLinkOnly.seconds(at8), 1e-3 * kLinkOnly.seconds(at8));
  // Through the file format, and a new link rate scales only the floor's part.
  ClusterModel m = calibrated_cluster(c, pts, {.reduce_bytes_per_s = 5e9}, "made-up");
  const ClusterModel back = cluster_model_from_json(to_json(m), "test");
  EXPECT_DOUBLE_EQ(back.fits[1].link_beta_s_per_byte, t.link_beta_s_per_byte);
  m.fits[1].params.beta_s_per_byte += 1e-9;  // as if the tree added a byte cost of its own
  const ClusterModel fast = with_inter_bandwidth(m, 2 * m.inter.bandwidth_bits_per_s.value);
  EXPECT_NEAR(fast.fits[1].params.beta_s_per_byte, t.link_beta_s_per_byte / 2 + 1e-9, 1e-15);
}

// Points measured faster than the link floor allows for the bytes their
// counts put through the busiest link (an emulated link's token bucket
// passes a small message's first bytes at once) cannot be reached by a fit
// above the floor; fitted, they pull the strategy's loss per converging flow
// down. They are left out, with a note, and the loss comes back as made.
TEST(SimCalibration, PointsAheadOfTheLinkFloorAreLeftOutSayingSo) {
  constexpr CostParams kLink{0, 0, 8.0 / 500e6, 0, 0.05 * 8.0 / 500e6};  // kappa 0.05
  auto pts = points("ring-mpi", {2, 4}, kSizes);
  for (int p : {2, 4}) {
    StrategyOptions options;
    options.ps.servers = p;
    const auto ps = points("ps-zmq", {p}, kSizes, options);
    pts.insert(pts.end(), ps.begin(), ps.end());
  }
  int ahead = 0;
  for (auto& p : pts) {
    p.time_s = kLink.seconds(strategy_counts(*p.strategy, p.options, p.bytes, p.placement).total());
    if (p.strategy->name == "ps-zmq" && p.bytes < (1 << 20)) {
      p.time_s *= 0.5;  // through the shaper's burst, twice the link's rate
      ++ahead;
    }
  }
  ASSERT_EQ(ahead, 2);
  const auto c = calibrate(pts);
  ASSERT_EQ(c.fits.size(), 2u);
  const StrategyFit& ps = c.fits[1];
  EXPECT_EQ(ps.points, 8);
  EXPECT_NEAR(ps.params.delta_s_per_byte, kLink.delta_s_per_byte, 1e-3 * kLink.delta_s_per_byte);
  EXPECT_LT(ps.worst_abs_error, 1e-6);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0].rfind("ps-zmq on several hosts (inter): 2 points left out: faster than the "
                             "link floor (1 / beta of the ring-mpi fit on inter)",
                             0),
            0u)
      << c.notes[0];
}

// The one ranking of fits as measures of their link. Each fit below ranks
// above the next by one criterion while losing to it on every later one, so
// the order of the criteria is what decides.
std::vector<StrategyFit> link_fit_ladder() {
  auto fit = [](std::string strategy, std::string compression, int black_box_workers, int max_flows,
                int points, double error) {
    StrategyFit f;
    f.strategy = std::move(strategy);
    f.compression = std::move(compression);
    f.link = "inter";
    f.black_box_workers = black_box_workers;
    f.max_flows = max_flows;
    f.points = points;
    f.median_abs_error = error;
    return f;
  };
  return {
      fit("ring-mpi", "none", 0, 1, 10, 0.05),  // the smaller error wins a tie on all else
      fit("ring-mpi", "none", 0, 1, 10, 0.06),  // more points beat a smaller error
      fit("ring-mpi", "none", 0, 1, 9, 0.0),    // one flow per link beats more points
      fit("ring-mpi", "none", 0, 2, 99, 0.0),   // measures_links beats one flow
      fit("tree-mpi", "none", 0, 1, 99, 0.0),   // over every worker count beats measures_links
      fit("ring-mpi", "none", 2, 1, 99, 0.0),   // fp32 beats over every worker count
      fit("ring-mpi", "fp16", 0, 1, 99, 0.0),
  };
}

TEST(SimCalibration, LinkFitsRankByCompressionWorkersLinkFlowsPointsThenError) {
  const auto ladder = link_fit_ladder();
  for (std::size_t i = 0; i + 1 < ladder.size(); ++i)
    for (std::size_t j = i + 1; j < ladder.size(); ++j) {
      EXPECT_TRUE(measures_link_better(ladder[i], ladder[j])) << i << " over " << j;
      EXPECT_FALSE(measures_link_better(ladder[j], ladder[i])) << j << " over " << i;
    }
  std::vector<StrategyFit> reversed(ladder.rbegin(), ladder.rend());
  auto all = [](const StrategyFit&) { return true; };
  EXPECT_EQ(best_link_fit(reversed, all), &reversed.back());
  // `among` chooses the candidates; none, nothing.
  EXPECT_EQ(best_link_fit(reversed, [](const StrategyFit& f) { return f.strategy == "tree-mpi"; })
                ->strategy,
            "tree-mpi");
  EXPECT_EQ(best_link_fit(reversed, [](const StrategyFit& f) { return f.link == "intra"; }),
            nullptr);
  EXPECT_EQ(best_link_fit({}, all), nullptr);
}

// Equals by every criterion (two strategies that both measure links): the
// first of them wins, whichever it is.
TEST(SimCalibration, OfEqualLinkFitsTheFirstWins) {
  StrategyFit ring;
  ring.strategy = "ring-mpi";
  ring.points = 10;
  StrategyFit halving = ring;
  halving.strategy = "halving-doubling-mpi";
  EXPECT_FALSE(measures_link_better(ring, halving));
  EXPECT_FALSE(measures_link_better(halving, ring));
  auto all = [](const StrategyFit&) { return true; };
  const std::vector<StrategyFit> ring_first = {ring, halving}, halving_first = {halving, ring};
  EXPECT_EQ(best_link_fit(ring_first, all)->strategy, "ring-mpi");
  EXPECT_EQ(best_link_fit(halving_first, all)->strategy, "halving-doubling-mpi");
}

TEST(SimCalibration, ScalingTheInterLinkScalesInterFitsBeta) {
  auto pts = points("ring-mpi", {2, 4, 8}, kSizes);
  const ClusterModel m =
      calibrated_cluster(calibrate(pts), pts, {.reduce_bytes_per_s = 5e9}, "made-up");
  const ClusterModel fast = with_inter_bandwidth(m, 4 * m.inter.bandwidth_bits_per_s.value);
  EXPECT_DOUBLE_EQ(fast.fits.front().params.beta_s_per_byte,
                   m.fits.front().params.beta_s_per_byte / 4);
  EXPECT_DOUBLE_EQ(fast.fits.front().params.alpha_s, m.fits.front().params.alpha_s);
  EXPECT_EQ(fast.inter.bandwidth_bits_per_s.source, "assumed");
}

TEST(SimCalibration, ClusterFileErrorsNameTheField) {
  auto doc = to_json(calibrated_cluster(calibrate(points("ring-mpi", {2, 4}, kSizes)),
                                        points("ring-mpi", {2, 4}, kSizes),
                                        {.reduce_bytes_per_s = 5e9}, "x"));
  doc["inter"]["bandwidth_bits_per_s"]["value"] = -1;
  try {
    cluster_model_from_json(doc, "c.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "c.json: inter.bandwidth_bits_per_s.value: must be at least 1000 bit/s (got -1)");
  }
  doc["schema"] = "other";
  EXPECT_THROW(cluster_model_from_json(doc, "c.json"), std::runtime_error);
}

}  // namespace
}  // namespace gradsync::sim
