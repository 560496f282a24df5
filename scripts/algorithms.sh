#!/usr/bin/env bash
# The tables of docs/results/ (which-allreduce-wins.md, compression.md,
# performance.md) that come from `gradsync collectives` on this host, each from
# alternating rounds (a noisy machine moves every strategy of a round alike)
# aggregated by scripts/collectives-rounds.sh from the runs' JSON records.
#
#   scripts/algorithms.sh [large|small|compression|ring-vs-mpi|ps-large|ps-small|gloo-large|gloo-small] [ROUNDS]
#
# large        "Which allreduce wins where", large buffers: every MPI
#              algorithm, 16 MiB to 256 MiB at 2 and 4 ranks, median busbw
#              (GB/s) and its ratio to mpi-allreduce; 3 rounds by default,
#              about 5 minutes on 2 cores
# small        the same and hierarchical-mpi, small buffers: 4 B to 64 KiB
#              at 2, 4 and 8 ranks,
#              median time per call (us) +- half its range over the rounds,
#              and the median of the rounds' ratios to mpi-allreduce;
#              5 rounds, about 3 minutes
# compression  "Gradient compression": ring-mpi, hierarchical-mpi,
#              mpi-allreduce and ps-zmq at 2 ranks and 16 MiB with
#              --compression none, bf16 and fp16 in turn, busbw of the fp32
#              payload, min-max (GB/s) over the rounds; 5 rounds, about
#              1 minute
# ring-vs-mpi  "Performance": ring-mpi against MPI_Allreduce at 2 ranks,
#              16 MiB to 64 MiB, median busbw and their ratio; 7 rounds of
#              `collectives -c 0 -b 16M -e 64M -f 2 -n 20 -w 5 --strategy
#              ring-mpi,mpi-allreduce`, about 1 minute
# ps-large     "ps-zmq on one host": ps-zmq through memory, read and
#              written in place by the shard (the default), copied through
#              shared segments (--ps-shm copy) and through ZeroMQ
#              (--ps-shm off), beside ring-mpi
#              in the same rounds, 16 MiB to 256 MiB at 2 and 4 ranks, median
#              busbw and its ratio to ring-mpi; 3 rounds, about 5 minutes
# ps-small     the same, 4 B to 16 KiB, median time per call +- half its
#              range and the median of the rounds' ratios to mpi-allreduce;
#              3 rounds, under a minute
# gloo-large   "gradsync beside Gloo, DDP and MPICH": Gloo's four allreduce
#              algorithms (a build with Gloo: scripts/install-deps.sh peers)
#              beside ring-mpi, halving-doubling-mpi and mpi-allreduce, 1 MiB
#              to 256 MiB at 2 and 4 ranks, median busbw and its ratio to
#              mpi-allreduce; 3 rounds, about 6 minutes
# gloo-small   the same strategies, 4 B to 64 KiB, median time per call +-
#              half its range and the median of the rounds' ratios to
#              mpi-allreduce; 3 rounds, about 2 minutes
#
# ROUNDS (the argument, else $ROUNDS) overrides the mode's rounds. QUICK=1 is
# a smoke test of the script, not a measurement: 2 timed iterations after 1
# warm-up, sizes 16 times smaller, and only 2 ranks (seconds).
# GRADSYNC_BUILD_DIR picks the build (default build/); GRADSYNC_STRATEGIES
# the list of large and small (default every MPI algorithm).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-large}
quick=${QUICK:-0}
case $quick in 0 | 1) ;; *) echo "algorithms: QUICK must be 0 or 1 (got '$quick')" >&2; exit 2 ;; esac
[ $# -le 2 ] || { echo "algorithms: too many arguments (usage: scripts/algorithms.sh [large|small|compression|ring-vs-mpi|ps-large|ps-small|gloo-large|gloo-small] [ROUNDS])" >&2; exit 2; }
strategies=${GRADSYNC_STRATEGIES:-ring-mpi,tree-mpi,double-tree-mpi,halving-doubling-mpi,mpi-allreduce}
gloo_peers=ring-mpi,halving-doubling-mpi,gloo-ring,gloo-bcube,gloo-ring-chunked,gloo-halving-doubling,mpi-allreduce
# QUICK=1: the same runs, shrunk to a smoke test.
if [ "$quick" = 1 ]; then timed() { iters=(-n 2 -w 1); }; else timed() { iters=("$@"); }; fi
case $mode in
  large)
    rounds=3 ranks=2,4 sizes=(-b 16M -e 256M)
    [ "$quick" = 0 ] || { ranks=2 sizes=(-b 1M -e 16M); }
    timed -n 10 -w 3
    options=(-m busbw)
    args=(-c 0 "${sizes[@]}" -f 4 "${iters[@]}" --strategy "$strategies") ;;
  small)
    rounds=5 ranks=2,4,8 sizes=(-b 4 -e 64K)
    [ "$quick" = 0 ] || { ranks=2 sizes=(-b 4 -e 4K); }
    timed -n 300 -w 30
    options=(-m time -s spread)
    # hierarchical-mpi too: on one host its host phases (no latency path)
    [ -n "${GRADSYNC_STRATEGIES:-}" ] || strategies=${strategies/mpi-allreduce/hierarchical-mpi,mpi-allreduce}
    args=(-c 0 "${sizes[@]}" -f 4 "${iters[@]}" --strategy "$strategies") ;;
  compression)
    rounds=5 ranks=2 sizes=(-b 16M -e 16M)
    [ "$quick" = 0 ] || sizes=(-b 1M -e 1M)
    timed -n 20 -w 5
    options=(-m busbw -s range -z human -V none='--compression none' -V bf16='--compression bf16' -V fp16='--compression fp16')
    args=(-c 0 "${sizes[@]}" "${iters[@]}" --strategy "ring-mpi,hierarchical-mpi,mpi-allreduce,ps-zmq") ;;
  ring-vs-mpi)
    rounds=7 ranks=2 sizes=(-b 16M -e 64M)
    [ "$quick" = 0 ] || sizes=(-b 1M -e 4M)
    timed -n 20 -w 5
    options=(-m busbw -s pair -z human)
    args=(-c 0 "${sizes[@]}" -f 2 "${iters[@]}" --strategy "ring-mpi,mpi-allreduce") ;;
  ps-large)
    rounds=3 ranks=2,4 sizes=(-b 16M -e 256M)
    [ "$quick" = 0 ] || { ranks=2 sizes=(-b 1M -e 16M); }
    timed -n 10 -w 3
    options=(-m busbw -x ring-mpi -l size -V in-place= -V segments='--ps-shm copy' -V zeromq='--ps-shm off')
    args=(-c 0 "${sizes[@]}" -f 4 "${iters[@]}" --strategy ps-zmq,ring-mpi) ;;
  ps-small)
    rounds=3 ranks=2,4 sizes=(-b 4 -e 64K)
    [ "$quick" = 0 ] || { ranks=2 sizes=(-b 4 -e 4K); }
    timed -n 300 -w 30
    options=(-m time -s spread -x mpi-allreduce -l size -V in-place= -V segments='--ps-shm copy' -V zeromq='--ps-shm off')
    args=(-c 0 "${sizes[@]}" -f 16 "${iters[@]}" --strategy ps-zmq,ring-mpi,mpi-allreduce) ;;
  gloo-large)
    rounds=3 ranks=2,4 sizes=(-b 1M -e 256M)
    [ "$quick" = 0 ] || { ranks=2 sizes=(-b 256K -e 4M); }
    timed -n 10 -w 3
    options=(-m busbw -z human)
    args=(-c 0 "${sizes[@]}" -f 4 "${iters[@]}" --strategy "$gloo_peers") ;;
  gloo-small)
    rounds=3 ranks=2,4 sizes=(-b 4 -e 64K)
    [ "$quick" = 0 ] || { ranks=2 sizes=(-b 4 -e 4K); }
    timed -n 300 -w 30
    options=(-m time -s spread -z human)
    args=(-c 0 "${sizes[@]}" -f 16 "${iters[@]}" --strategy "$gloo_peers") ;;
  *) echo "algorithms: unknown mode '$mode' (known: large, small, compression, ring-vs-mpi, ps-large, ps-small, gloo-large, gloo-small)" >&2; exit 2 ;;
esac
rounds=${2:-${ROUNDS:-$rounds}}
case $rounds in '' | *[!0-9]* | 0) echo "algorithms: ROUNDS must be a positive whole number (got '$rounds')" >&2; exit 2 ;; esac

exec scripts/collectives-rounds.sh -p "$ranks" -r "$rounds" "${options[@]}" -- "${args[@]}"
