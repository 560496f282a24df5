// ps-zmq's counts, host by host, against traffic worked out by hand from
// the layout (strategies/ps/ps_client.cc, ps_server.cc) and against the real
// partition plan (strategies/ps/ps_plan.h). With the default 4 MiB partitions a
// 16 MiB buffer is 4 partitions. A host's critical path, with m rounds
// (partitions on the busiest shard), is
//   max(out, in) (m-1)/m + (max(push_out, push_in) + max(reply_out, reply_in)) / m.
#include "strategies/ps/ps_cost.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "strategies/ps/ps_options.h"
#include "strategies/ps/ps_plan.h"
#include "tests/unit/cost_test_support.h"

namespace gradsync {
namespace {

void expect_flow(const PsFlow& flow, double bytes, double messages) {
  EXPECT_DOUBLE_EQ(flow.bytes, bytes);
  EXPECT_DOUBLE_EQ(flow.messages, messages);
}

TEST(PsCost, OneColocatedShardTakesEveryOtherWorkersPushes) {
  // 4 workers, one a host; shard 0 in worker 0; 4 partitions, all on shard 0.
  const PsLayout layout{.workers = 4, .shards = 1};
  const PsTraffic t = ps_traffic(16 * MiB, layout);
  ASSERT_EQ(t.hosts.size(), 4u);
  EXPECT_EQ(t.rounds, 4);
  // Host 0: 3 workers x 16 MiB in 3 x 4 messages come in, and the sums go
  // back; its own worker's traffic stays on the host.
  expect_flow(t.hosts[0].push_in, 3 * 16 * MiB, 3 * 4);
  expect_flow(t.hosts[0].reply_out, 3 * 16 * MiB, 3 * 4);
  expect_flow(t.hosts[0].push_out, 0, 0);
  expect_flow(t.hosts[0].reply_in, 0, 0);
  EXPECT_DOUBLE_EQ(t.hosts[0].critical_bytes, 48 * MiB + 48 * MiB / 4);
  EXPECT_DOUBLE_EQ(t.hosts[0].critical_messages, 12 + 12.0 / 4);
  EXPECT_DOUBLE_EQ(t.hosts[0].reduced, 3 * 16 * MiB);
  // Host 1: its worker's 16 MiB out and back.
  expect_flow(t.hosts[1].push_out, 16 * MiB, 4);
  expect_flow(t.hosts[1].reply_in, 16 * MiB, 4);
  EXPECT_DOUBLE_EQ(t.hosts[1].critical_bytes, 16 * MiB + 16 * MiB / 4);
  EXPECT_EQ(t.busiest, 0u);
  EXPECT_TRUE(same_terms(ps_terms(16 * MiB, layout),
                         {1, 12 + 12.0 / 4, 48 * MiB + 48 * MiB / 4, 3 * 16 * MiB}));
}

TEST(PsCost, AShardPerWorkerMovesWhatTheRingMoves) {
  // 4 workers and 4 colocated shards, one partition (4 MiB) each: a host
  // pushes 3 x 4 MiB out while 3 x 4 MiB come in, then the replies cross:
  // 12 + 12 MiB, the ring's 2(p-1)/p n.
  const PsLayout layout{.workers = 4, .shards = 4};
  const PsTraffic t = ps_traffic(16 * MiB, layout);
  EXPECT_EQ(t.rounds, 1);
  for (const PsHostTraffic& host : t.hosts) {
    expect_flow(host.push_out, 3 * 4 * MiB, 3);
    expect_flow(host.push_in, 3 * 4 * MiB, 3);
    expect_flow(host.reply_out, 3 * 4 * MiB, 3);
    expect_flow(host.reply_in, 3 * 4 * MiB, 3);
  }
  EXPECT_TRUE(same_terms(ps_terms(16 * MiB, layout), {1, 3 + 3, 12 * MiB + 12 * MiB, 3 * 4 * MiB}));
  // 64 MiB: 16 partitions, 4 a shard (m = 4); each direction 2 x 48 MiB in
  // 2 x 12 messages: 96 x 3/4 + (48 + 48) / 4 = 96 MiB.
  EXPECT_TRUE(same_terms(
      ps_terms(64 * MiB, layout),
      {1, 24 * 3.0 / 4 + (12 + 12) / 4.0, 96 * MiB * 3 / 4 + (48 + 48) * MiB / 4, 3 * 16 * MiB}));
}

TEST(PsCost, WorkersSharingAHostKeepTheirTrafficToItsShards) {
  // 4 workers, 2 a host, one shard (in worker 0, on host 0); m = 4.
  const PsLayout one{.workers = 4, .workers_per_host = 2, .shards = 1};
  const PsTraffic t = ps_traffic(16 * MiB, one);
  ASSERT_EQ(t.hosts.size(), 2u);
  EXPECT_EQ(t.hosts[0].workers, 2);
  EXPECT_EQ(t.hosts[0].shards, 1);
  expect_flow(t.hosts[0].push_in, 2 * 16 * MiB, 2 * 4);  // workers 2 and 3 only
  expect_flow(t.hosts[1].push_out, 2 * 16 * MiB, 2 * 4);
  EXPECT_DOUBLE_EQ(t.hosts[1].critical_bytes, t.hosts[0].critical_bytes);
  EXPECT_EQ(t.busiest, 0u);  // the first of equals
  EXPECT_TRUE(
      same_terms(ps_terms(16 * MiB, one), {1, 8 + 8.0 / 4, 32 * MiB + 32 * MiB / 4, 3 * 16 * MiB}));
  // 4 shards (0, 1 on host 0; 2, 3 on host 1), one 4 MiB partition each, m =
  // 1: host 0's 2 workers push to 2 remote shards (16 MiB, 4 messages) while
  // 2 remote workers push to its 2 shards, then the replies.
  const PsLayout four{.workers = 4, .workers_per_host = 2, .shards = 4};
  EXPECT_TRUE(
      same_terms(ps_terms(16 * MiB, four), {1, 4 + 4, 16 * MiB + 16 * MiB, 2 * 3 * 4 * MiB}));
}

TEST(PsCost, DedicatedServerHostsAsInBytePs) {
  // 4 workers, 4 dedicated shards on 4 hosts of their own: a worker host
  // moves n = 16 MiB each way, a server host n W / k = 16 x 4 / 4 = 16 MiB.
  const PsLayout layout{.workers = 4, .shards = 4, .dedicated = true};
  const PsTraffic t = ps_traffic(16 * MiB, layout);
  ASSERT_EQ(t.hosts.size(), 8u);
  expect_flow(t.hosts[0].push_out, 16 * MiB, 4);
  expect_flow(t.hosts[0].reply_in, 16 * MiB, 4);
  expect_flow(t.hosts[4].push_in, 4 * 4 * MiB, 4);
  expect_flow(t.hosts[4].reply_out, 4 * 4 * MiB, 4);
  EXPECT_EQ(t.hosts[4].workers, 0);
  EXPECT_EQ(t.hosts[4].shards, 1);
  EXPECT_TRUE(same_terms(ps_terms(16 * MiB, layout), {1, 4 + 4, 16 * MiB + 16 * MiB, 3 * 4 * MiB}));

  // 2 shards on k = 2 hosts: each shard 2 partitions (8 MiB), m = 2. A
  // server host takes n W / k = 16 x 4 / 2 = 32 MiB each way: 32 / 2 + (32 +
  // 32) / 2 = 48 MiB, against a worker host's 16 / 2 + (16 + 16) / 2 = 24.
  const PsLayout two{.workers = 4, .shards = 2, .dedicated = true, .server_hosts = 2};
  const PsTraffic t2 = ps_traffic(16 * MiB, two);
  EXPECT_EQ(t2.rounds, 2);
  expect_flow(t2.hosts[4].push_in, 4 * 8 * MiB, 4 * 2);
  EXPECT_DOUBLE_EQ(t2.hosts[0].critical_bytes, 16 * MiB / 2 + (16 + 16) * MiB / 2);
  EXPECT_EQ(t2.busiest, 4u);
  EXPECT_TRUE(
      same_terms(ps_terms(16 * MiB, two),
                 {1, 8.0 / 2 + (8 + 8) / 2.0, 32 * MiB / 2 + (32 + 32) * MiB / 2, 3 * 8 * MiB}));

  // 4 shards on 2 hosts (shards 0, 2 on the first): one partition each, m =
  // 1, each server host 2 x 4 x 4 MiB = 32 MiB in, then out.
  const PsLayout shared{.workers = 4, .shards = 4, .dedicated = true, .server_hosts = 2};
  EXPECT_TRUE(
      same_terms(ps_terms(16 * MiB, shared), {1, 8 + 8, 32 * MiB + 32 * MiB, 2 * 3 * 4 * MiB}));

  // One worker with a dedicated shard: nothing to add, but 16 MiB out and
  // back over 4 rounds: 16 x 3/4 + (16 + 16) / 4 = 20 MiB.
  const PsLayout lone{.workers = 1, .shards = 1, .dedicated = true};
  EXPECT_TRUE(same_terms(ps_terms(16 * MiB, lone), {1, 4 * 3.0 / 4 + (4 + 4) / 4.0, 20 * MiB, 0}));
}

TEST(PsCost, OneWorkerWithItsOwnShardPaysOnlyTheCall) {
  const PsLayout layout{.workers = 1, .shards = 1};
  EXPECT_TRUE(same_terms(ps_terms(16 * MiB, layout), {1, 0, 0, 0}));
  // The entry's counts: one worker's allreduce moves nothing at all (the sum
  // is its own buffer), colocated or with a dedicated shard.
  StrategyOptions options;
  EXPECT_TRUE(same_terms(ps_zmq_counts(16 * MiB, options, {.workers = 1}).total(), {}));
  options.ps.placement = PsPlacement::dedicated;
  EXPECT_TRUE(same_terms(
      ps_zmq_counts(16 * MiB, options, {.workers = 1, .server_hosts = 1}).total(), {}));
  EXPECT_TRUE(same_terms(ps_terms(0, layout), {}));
  EXPECT_TRUE(same_terms(ps_terms(0, {.workers = 4, .shards = 2}), {}));
}

TEST(PsCost, UnevenPartitionsAreCountedAsThePlanCutsThem) {
  // 13 floats in partitions of at most 4 floats over 3 shards: 4 partitions
  // of 4, 3, 3, 3 floats; shard 0 serves partitions 0 and 3 (7 floats, m =
  // 2), shards 1 and 2 one of 3 floats. 3 workers, one a host, colocated.
  // Host 0 out: pushes 3 + 3 floats (2 messages), replies 2 x 7 floats (4);
  // in: the mirror. Critical: 80 B / 2 + (56 + 56) B / 2 = 96 B; messages
  // 6 / 2 + (4 + 4) / 2 = 7. Host 1: 64 / 2 + (40 + 40) / 2 = 72 B.
  const PsLayout layout{.workers = 3, .shards = 3, .partition_bytes = 16};
  const PsTraffic t = ps_traffic(4 * 13, layout);
  EXPECT_EQ(t.rounds, 2);
  expect_flow(t.hosts[0].push_out, (3 + 3) * 4, 2);
  expect_flow(t.hosts[0].reply_out, 2 * 7 * 4, 4);
  EXPECT_DOUBLE_EQ(t.hosts[1].critical_bytes, 72);
  EXPECT_TRUE(same_terms(ps_terms(4 * 13, layout), {1, 7, 96, 2 * 7 * 4}));
}

// The per-host flows against the real plan's partitions, walked one by one.
TEST(PsCost, FlowsFollowThePartitionPlan) {
  for (std::uint64_t n : {1u, 5u, 13u, 1001u})
    for (int shards : {1, 2, 3, 5})
      for (int per_host : {1, 2}) {
        const int workers = 5;
        const PsLayout layout{.workers = workers,
                              .workers_per_host = per_host,
                              .shards = shards,
                              .partition_bytes = 16};
        const PsTraffic t = ps_traffic(4.0 * n, layout);
        const PsPlan plan{.partition_bytes = 16, .shards = shards};
        const std::vector<Range> parts = plan.partitions(n);
        std::vector<double> out(t.hosts.size()), in(t.hosts.size()), added(t.hosts.size());
        std::vector<double> rounds(shards);
        for (std::size_t i = 0; i < parts.size(); ++i) {
          const int shard_host = plan.shard_of(i) / per_host;
          added[shard_host] += (workers - 1) * 4.0 * parts[i].count;
          ++rounds[plan.shard_of(i)];
          for (int w = 0; w < workers; ++w) {
            if (w / per_host == shard_host) continue;
            out[w / per_host] += 4.0 * parts[i].count;
            in[shard_host] += 4.0 * parts[i].count;
          }
        }
        SCOPED_TRACE(testing::Message()
                     << n << " floats, " << shards << " shards, " << per_host << " workers a host");
        EXPECT_EQ(t.rounds, rounds[0]);
        for (std::size_t h = 0; h < t.hosts.size(); ++h) {
          EXPECT_DOUBLE_EQ(t.hosts[h].push_out.bytes, out[h]);
          EXPECT_DOUBLE_EQ(t.hosts[h].reply_in.bytes, out[h]);
          EXPECT_DOUBLE_EQ(t.hosts[h].push_in.bytes, in[h]);
          EXPECT_DOUBLE_EQ(t.hosts[h].reply_out.bytes, in[h]);
          EXPECT_DOUBLE_EQ(t.hosts[h].reduced, added[h]);
        }
      }
}

// What stays on a host goes through its loopback: each local worker's push
// of each of its shards' partitions and the reply, one after another.
TEST(PsCost, TrafficToAShardOnTheSameHostIsTheLoopbacksPart) {
  // One host, 4 workers, one colocated shard: 4 pushes of 4 partitions of
  // 4 MiB, and as many replies; nothing crosses a link.
  const PsLayout one_host{.workers = 4, .workers_per_host = 4, .shards = 1};
  EXPECT_TRUE(same_terms(ps_local_terms(16 * MiB, one_host), {0, 2 * 16, 2 * 64 * MiB, 0}));
  EXPECT_EQ(ps_terms(16 * MiB, one_host).bytes, 0);
  // 4 hosts of one worker: only worker 0 reaches shard 0 over loopback.
  const PsLayout spread{.workers = 4, .workers_per_host = 1, .shards = 1};
  EXPECT_TRUE(same_terms(ps_local_terms(16 * MiB, spread), {0, 2 * 4, 2 * 16 * MiB, 0}));
  // Dedicated server hosts: no worker shares a host with a shard.
  EXPECT_TRUE(same_terms(
      ps_local_terms(16 * MiB, {.workers = 4, .shards = 2, .dedicated = true}), {}));
  // The entry's counts: on one host the loopback is all the job spans (with
  // the call and the shard's additions), in 4 MiB partitions; across hosts
  // the links, the loopback running beside them, in 1 MiB partitions (the
  // default's two sizes, ps_partition_bytes), pushed all at once (the default).
  StrategyOptions options;
  const AllreduceCounts c = ps_zmq_counts(16 * MiB, options, {.workers = 4, .workers_per_node = 4});
  EXPECT_TRUE(same_terms(c.spanning, {1, 2 * 16, 2 * 64 * MiB, 3 * 16 * MiB}));
  EXPECT_TRUE(same_terms(c.intra, {}));
  const AllreduceCounts across =
      ps_zmq_counts(16 * MiB, options, {.workers = 4, .workers_per_node = 1});
  PsLayout spread_in_1m = spread;
  spread_in_1m.partition_bytes = 1 * MiB;
  EXPECT_TRUE(same_terms(across.spanning, ps_terms(16 * MiB, spread_in_1m)));
  EXPECT_TRUE(same_terms(across.intra, {}));
  // A partition size given is used wherever the ranks are.
  options.ps.partition_bytes = 4 * MiB;
  EXPECT_TRUE(
      same_terms(ps_zmq_counts(16 * MiB, options, {.workers = 4, .workers_per_node = 1}).spanning,
                 ps_terms(16 * MiB, spread)));
}

// --ps-partition 0, the default: 4 MiB when the job runs on one host, 1 MiB
// when it spans hosts (dedicated server hosts included); a size given wins.
TEST(PsCost, ThePartitionSizeDefaultsByWhereTheRanksAre) {
  PsZmqOptions ps;
  EXPECT_EQ(ps_partition_bytes(ps, false), 4u << 20);
  EXPECT_EQ(ps_partition_bytes(ps, true), 1u << 20);
  ps.partition_bytes = 256 << 10;
  EXPECT_EQ(ps_partition_bytes(ps, false), 256u << 10);
  EXPECT_EQ(ps_partition_bytes(ps, true), 256u << 10);
  // Dedicated servers on hosts of their own: the job spans hosts.
  StrategyOptions options;
  options.ps.placement = PsPlacement::dedicated;
  const PsLayout own_hosts{.workers = 2,
                           .workers_per_host = 2,
                           .shards = 1,
                           .dedicated = true,
                           .server_hosts = 1,
                           .partition_bytes = 1 * MiB};
  EXPECT_TRUE(same_terms(
      ps_zmq_counts(16 * MiB, options, {.workers = 2, .workers_per_node = 2, .server_hosts = 1})
          .spanning,
      ps_terms(16 * MiB, own_hosts)));
}

// The rotated schedule moves the same bytes with a receipt and a pull beside
// each push and reply, and bounds the flows converging on a link: at 8 hosts
// with a shard each, a host takes 2 pushes (window 2 x 8 workers / 8
// shards) and pulls 2 replies at a time, so at most 4 other hosts send to it
// at once, against all 7 all at once. With one shard every worker still
// pushes into its link.
TEST(PsCost, TheRotatedScheduleBoundsTheFlowsThatConverge) {
  const PsLayout at_once{.workers = 8, .shards = 8, .partition_bytes = 1 * MiB};
  PsLayout rotated = at_once;
  rotated.rotated = true;
  const CostTerms a = ps_terms(16 * MiB, at_once), r = ps_terms(16 * MiB, rotated);
  EXPECT_DOUBLE_EQ(r.bytes, a.bytes);
  EXPECT_DOUBLE_EQ(r.messages, 2 * a.messages);
  EXPECT_DOUBLE_EQ(r.reduced, a.reduced);
  EXPECT_DOUBLE_EQ(a.contended, a.bytes * (7 - 1));
  EXPECT_DOUBLE_EQ(r.contended, r.bytes * (2 + 2 - 1));
  rotated.window = 1;
  EXPECT_DOUBLE_EQ(ps_terms(16 * MiB, rotated).contended, r.bytes * (1 + 1 - 1));
  rotated.window = 8;  // more than the hosts elsewhere: no bound left
  EXPECT_DOUBLE_EQ(ps_terms(16 * MiB, rotated).contended, a.contended);

  PsLayout one_shard = at_once;
  one_shard.shards = 1;
  const CostTerms a1 = ps_terms(16 * MiB, one_shard);
  one_shard.rotated = true;
  const CostTerms r1 = ps_terms(16 * MiB, one_shard);
  EXPECT_DOUBLE_EQ(a1.contended, a1.bytes * (7 - 1));
  EXPECT_DOUBLE_EQ(r1.contended, a1.contended);
  EXPECT_THROW(ps_terms(1024, {.workers = 2, .rotated = true, .window = 0}), std::invalid_argument);
}

// The flows that contend are those from several hosts at once: a host's own
// flows are paced by its link, as fast as the one they arrive at. Two hosts
// of 4 workers, a shard per worker: each host takes 4 pushes and 4 replies,
// all from the one other host, so nothing contends; at 4 hosts of 2, each
// takes them from 3 hosts.
TEST(PsCost, OnlyFlowsFromSeveralHostsContend) {
  const CostTerms two_hosts = ps_terms(
      16 * MiB, {.workers = 8, .workers_per_host = 4, .shards = 8, .partition_bytes = MiB});
  EXPECT_GT(two_hosts.bytes, 0);
  EXPECT_DOUBLE_EQ(two_hosts.contended, 0);
  const CostTerms four_hosts = ps_terms(
      16 * MiB, {.workers = 8, .workers_per_host = 2, .shards = 8, .partition_bytes = MiB});
  EXPECT_DOUBLE_EQ(four_hosts.contended, four_hosts.bytes * (3 - 1));
  const CostTerms pair = ps_terms(16 * MiB, {.workers = 2, .shards = 2, .partition_bytes = MiB});
  EXPECT_DOUBLE_EQ(pair.contended, 0);
}

// The schedule the counts take is the one a run takes: all at once, unless
// --ps-schedule rotated.
TEST(PsCost, CountsTakeTheRunsSchedule) {
  StrategyOptions options;
  options.ps.servers = 2;
  const WorkerPlacement hosts{.workers = 4, .workers_per_node = 1};
  const PsLayout at_once{.workers = 4, .shards = 2, .partition_bytes = 1 * MiB};
  EXPECT_TRUE(
      same_terms(ps_zmq_counts(16 * MiB, options, hosts).spanning, ps_terms(16 * MiB, at_once)));
  options.ps.schedule = "rotated";
  PsLayout rotated = at_once;
  rotated.rotated = true;
  EXPECT_TRUE(
      same_terms(ps_zmq_counts(16 * MiB, options, hosts).spanning, ps_terms(16 * MiB, rotated)));
}

TEST(PsCost, ImpossibleLayoutsThrow) {
  EXPECT_THROW(ps_terms(1024, {.workers = 0}), std::invalid_argument);
  EXPECT_THROW(ps_terms(1024, {.workers = 2, .workers_per_host = 0}), std::invalid_argument);
  EXPECT_THROW(ps_terms(1024, {.workers = 2, .shards = 0}), std::invalid_argument);
  EXPECT_THROW(ps_terms(1024, {.workers = 2, .partition_bytes = 0}), std::invalid_argument);
  EXPECT_THROW(ps_terms(-4, {.workers = 2}), std::invalid_argument);
  EXPECT_THROW(ps_terms(1024, {.workers = 2, .shards = 2, .dedicated = true, .server_hosts = -1}),
               std::invalid_argument);
  try {
    ps_terms(1024, {.workers = 2, .shards = 3});
    ADD_FAILURE() << "3 colocated shards on 2 workers were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("3 colocated shards need at least 3 workers"));
  }
}

}  // namespace
}  // namespace gradsync
