#pragma once
// The segment size of the point-to-point pipelines (tree-mpi,
// double-tree-mpi, halving-doubling-mpi) when their ranks span hosts.
//
// Across hosts Open MPI's TCP transport sends a message above its eager limit
// (btl_tcp_eager_limit, 64 KiB) only after a rendezvous round trip. When a
// link is loaded in both directions, as a tree's and a pairwise exchange's
// are, the reply waits behind the data queued on the link, and the pipeline
// stalls once per segment. Segments of at most the eager limit go at once. On
// the emulated cluster (8 hosts at 500mbit, 16 MiB) double-tree-mpi took
// 1.55 s with 256 KiB segments and 0.58 s with 64 KiB (its link load is
// 0.54 s), halving-doubling-mpi 1.01 s with 1 MiB and 0.75 s with 64 KiB.
// Within one host the shared-memory transport copies a large message once
// (CMA), so there fewer, larger segments cost less and each strategy keeps
// its own size.
//
// Short messages within a host are the opposite case: Open MPI's
// shared-memory transport sends up to 4 KiB at once (btl_vader_eager_limit,
// its header included) and anything longer after a rendezvous, which costs
// more than the copy. A 4 KiB buffer reduced in one message (tree-mpi's
// pipeline, one 256 KiB segment) took 4.5-6.8 us at 2 ranks where
// MPI_Allreduce took 1.0-3.0 in the same runs. The latency path
// (short_allreduce.cc) and hierarchical-mpi's host phases for short buffers
// send pieces of at most kEagerPieceBytes instead, all posted at once.
//
// The limit is the library's, so the piece is too. MPICH (4.0.2, ch4 over
// UCX's shared memory) sends 8 KiB at once: at 2 ranks on the 2-core VM, in
// 3 sets of 15 rounds, the latency path took 0.5-1.3 us at 4 KiB in 8 KiB
// pieces against 0.8-1.8 in 4032-byte ones, and 2.5-3.7 against 4.5-4.9 at
// 16 KiB; 16 KiB pieces took 7.8-10.6 there (a rendezvous). Under Open MPI
// 8 KiB pieces were 2.5-3.3x slower than 4032-byte ones at every size from
// 4 to 16 KiB (docs/results/which-allreduce-wins.md, "The piece size under
// MPICH"). A library of MPICH's family (MPICH_VERSION) takes MPICH's piece;
// only MPICH itself was measured.

#include <mpi.h>

#include <cstddef>

namespace gradsync {

inline constexpr std::size_t kEagerSegmentBytes = 64 * 1024;
inline constexpr std::size_t kOpenMpiEagerPieceBytes = 4096 - 64;
inline constexpr std::size_t kMpichEagerPieceBytes = 8192;
#if defined(MPICH_VERSION)
inline constexpr std::size_t kEagerPieceBytes = kMpichEagerPieceBytes;
#else
inline constexpr std::size_t kEagerPieceBytes = kOpenMpiEagerPieceBytes;
#endif

}  // namespace gradsync
