#!/usr/bin/env bash
# A real, throw-away Slurm (scripts/slurm/up.sh, down.sh) on the emulated
# cluster (prefix gsl, 2 hosts x 2 slots):
# - up.sh without a cluster is one line and exit 1, and makes nothing;
# - up.sh brings up slurmctld (root namespace, the bridge's address) and
#   one slurmd per host (in the host's namespaces), each offering 2 GPUs
#   backed by placeholder device files (--gpus 2); sinfo shows both idle;
# - GPU placement: srun --gpus-per-task=1 and --gpus-per-node=2 hand each
#   task the environment the placement reads (CUDA_VISIBLE_DEVICES,
#   SLURM_STEP_GPUS, SLURM_LOCALID, SLURM_STEP_TASKS_PER_NODE, SLURM_NODEID)
#   exactly as tests/unit/gpu_placement_test.cc states it; a batch job with
#   --gpus-per-node=2 has SLURM_GPUS_PER_NODE=2, from which the sweep's srun
#   launcher adds --gpus-per-task=1 (slurm_allocation_test.cc). The files are
#   not GPUs, so no rank runs on one here;
# - srun -N 2 -n 4 --mpi=pmix from the root namespace, and srun inside a
#   batch script (sbatch --wait, run on gsl-h0), run ring-mpi across both
#   hosts: the records name both hosts, two ranks each;
# - down.sh leaves no slurmctld, slurmd, slurmstepd, munged or gradsync of
#   the test, and its folder gone; the cluster's down leaves no namespace.
# - scripts/slurm/sweep.sbatch, submitted as a user would with tiny settings,
#   records every configuration once, with x4 spread over both nodes, and
#   writes report.md and the figures; a sweep cancelled mid-way (scancel)
#   and submitted again skips what was recorded and ends with every
#   configuration once; ps-zmq's dedicated server rank runs on a node of its own.
# Also: one node on loopback comes up, runs a step and goes down.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: Slurm on the emulated cluster needs root (network namespaces, daemons)"; exit 77; }
unshare --net true 2>/dev/null || { echo "SKIP: this machine cannot make network namespaces"; exit 77; }
for c in slurmctld slurmd munged srun sbatch sinfo scontrol; do
  command -v "$c" >/dev/null || { echo "SKIP: $c is not on PATH (scripts/install-deps.sh: slurmctld slurmd slurm-client munge)"; exit 77; }
done

repo=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$repo/scripts/cluster.sh
slurm_up=$repo/scripts/slurm/up.sh
slurm_down=$repo/scripts/slurm/down.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cluster_slurm.XXXXXX")
export GRADSYNC_CLUSTER_DIR=$tmp/cluster
source "$repo/scripts/cluster/common.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }

# What an earlier, killed run of this test left: its Slurms (found by their
# folders, cluster_slurm.*/slurm*, in the daemons' command lines) and its cluster.
leftover_slurms() {
  local p
  for p in $(pgrep -x slurmctld; pgrep -x slurmd; pgrep -x munged); do
    { tr '\0' '\n' <"/proc/$p/cmdline"; } 2>/dev/null |
      sed -n 's:^\(-[a-z-]*=\)\{0,1\}\(/.*/cluster_slurm\.[A-Za-z0-9]*/slurm[a-z]*\)/.*:\2:p'
  done | sort -u
}
for d in $(leftover_slurms); do "$slurm_down" --dir "$d" >/dev/null 2>&1 && rm -rf "$(dirname "$d")"; done
"$cluster" down --prefix gsl >/dev/null

cleanup() {
  "$slurm_down" --dir "$tmp/slurm" >/dev/null 2>&1 || true
  "$slurm_down" --dir "$tmp/slurmlocal" >/dev/null 2>&1 || true
  "$cluster" down --prefix gsl >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
start=$(now)

# A failing up: one line, exit 1, nothing made.
status=0
"$slurm_up" --dir "$tmp/bad" --cluster-dir "$tmp/nowhere" >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no cluster.json" "$tmp/err" ||
  fail "up.sh without a cluster: exit $status: $(cat "$tmp/err")"
[ ! -e "$tmp/bad" ] || fail "a failed up.sh left $tmp/bad"

"$cluster" up --hosts 2 --slots 2 --rate 1gbit --prefix gsl >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "cluster.sh up"; }
inodes=$(for ns in $(existing_namespaces gsl); do stat -L -c %i "/run/netns/$ns"; done)

t=$(now)
"$slurm_up" --dir "$tmp/slurm" --cluster-dir "$GRADSYNC_CLUSTER_DIR" --gpus 2 >"$tmp/up.out" 2>&1 || { cat "$tmp/up.out"; fail "slurm/up.sh"; }
up_s=$(since "$t")
grep -q "^slurm/up.sh: up: 2 nodes gsl-h0..gsl-h1 on the emulated cluster" "$tmp/up.out" || { cat "$tmp/up.out"; fail "up.sh's line"; }
# shellcheck source=/dev/null # written by up.sh
source "$tmp/slurm/env.sh"
[ "$(sinfo -h -N -o '%N %t' | sort -u | tr '\n' ' ')" = "gsl-h0 idle gsl-h1 idle " ] || { sinfo -N; fail "sinfo: not 2 nodes idle"; }
daemons=$( (pgrep -x slurmctld; pgrep -x slurmd; pgrep -x munged) | while read -r p; do { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qF "$tmp/slurm/" && echo "$p"; done | tr '\n' ' ')
[ "$(wc -w <<<"$daemons")" -ge 4 ] || fail "expected munged, slurmctld and 2 slurmd of $tmp/slurm, found pids: $daemons"

run=("$GRADSYNC" collectives -b 64K -e 1M -f 4 -n 5 --strategy ring-mpi)
logs="the logs' last lines follow"
show_logs() { tail -n 5 "$tmp"/slurm/log/*.log >&2 || true; }

# From the root namespace.
t=$(now)
timeout 120 srun -N 2 -n 4 --ntasks-per-node 2 --mpi=pmix "${run[@]}" --json "$tmp/srun.jsonl" >"$tmp/srun.out" 2>&1 ||
  { cat "$tmp/srun.out"; show_logs; fail "srun from the root namespace: exit $? ($logs)"; }
srun_s=$(since "$t")

# From a batch script on gsl-h0.
cat >"$tmp/job.sh" <<EOF
#!/bin/bash
echo "batch on \$(hostname)"
srun --mpi=pmix $(printf '%q ' "${run[@]}") --json $tmp/sbatch.jsonl
EOF
t=$(now)
timeout 120 sbatch --wait -N 2 -n 4 --ntasks-per-node 2 -o "$tmp/job.out" "$tmp/job.sh" >"$tmp/sbatch.out" 2>&1 ||
  { cat "$tmp/sbatch.out" "$tmp/job.out" 2>/dev/null; show_logs; fail "sbatch --wait: exit $?"; }
sbatch_s=$(since "$t")
grep -qx "batch on gsl-h0" "$tmp/job.out" || { cat "$tmp/job.out"; fail "the batch script did not run on gsl-h0"; }

/usr/bin/python3 - "$tmp/srun.jsonl" "$tmp/sbatch.jsonl" <<'PY' || fail "records"
import json, sys
for path in sys.argv[1:]:
    records = [json.loads(line) for line in open(path)]
    assert len(records) == 1, f"{path}: {len(records)} records, expected 1"
    c = records[0]["context"]
    assert c["hosts"] == ["gsl-h0", "gsl-h1"], f"{path}: hosts {c['hosts']}"
    assert sorted(c["hostnames"]) == ["gsl-h0", "gsl-h0", "gsl-h1", "gsl-h1"], f"{path}: hostnames {c['hostnames']}"
    assert records[0]["correct"] is True or records[0]["correct"] == 1, f"{path}: correct {records[0]['correct']}"
PY

# GPU placement: what srun hands each task, one line a task, sorted.
printf '%s\n' '#!/bin/bash' \
  'echo "$SLURM_NODEID $SLURM_LOCALID ${CUDA_VISIBLE_DEVICES-unset} ${SLURM_STEP_GPUS-unset} ${SLURM_STEP_TASKS_PER_NODE-unset}"' \
  >"$tmp/gpu-env.sh"
chmod +x "$tmp/gpu-env.sh"
# (srun's own lines, "job N queued and waiting for resources", go to gpu-env.err.)
gpu_env() { timeout 60 srun -N 2 -n 4 --ntasks-per-node 2 "$1" "$tmp/gpu-env.sh" 2>>"$tmp/gpu-env.err" | sort | tr '\n' ';'; }
got=$(gpu_env --gpus-per-task=1)
[ "$got" = "0 0 0 0 2(x2);0 1 1 1 2(x2);1 0 0 0 2(x2);1 1 1 1 2(x2);" ] ||
  { cat "$tmp/gpu-env.err"; show_logs; fail "srun --gpus-per-task=1 handed '$got', not one GPU a task as gpu_placement_test.cc has it"; }
got=$(gpu_env --gpus-per-node=2)
[ "$got" = "0 0 0,1 0,1 2(x2);0 1 0,1 0,1 2(x2);1 0 0,1 0,1 2(x2);1 1 0,1 0,1 2(x2);" ] ||
  { cat "$tmp/gpu-env.err"; show_logs; fail "srun --gpus-per-node=2 handed '$got', not both GPUs to every task as gpu_placement_test.cc has it"; }
printf '%s\n' '#!/bin/bash' 'echo "$SLURM_GPUS_PER_NODE $SLURM_GPUS_ON_NODE"' >"$tmp/gpu-job.sh"
timeout 60 sbatch --wait -N 2 --ntasks-per-node 2 --gpus-per-node=2 -o "$tmp/gpu-job.out" "$tmp/gpu-job.sh" >/dev/null 2>&1 &&
  [ "$(cat "$tmp/gpu-job.out")" = "2 2" ] ||
  { cat "$tmp/gpu-job.out"; show_logs; fail "sbatch --gpus-per-node=2: not SLURM_GPUS_PER_NODE=2 and SLURM_GPUS_ON_NODE=2"; }

# The template, as a user submits it (from the checkout), with tiny settings
# from the environment: 1, 2 and 4 workers of none and ring-mpi; x4 spreads
# over both nodes, x1 and x2 fill one. Then report and figures beside the records.
export SWEEP_MODELS=small-cnn:cpu SWEEP_STRATEGIES=none,ring-mpi SWEEP_WORKERS=1,2,4
export SWEEP_TRAIN_ARGS="--batch-size 4 --num-warmup-batches 1 --num-batches-per-iter 2 --num-iters 2 --timeout 30"
export SWEEP_OUT=$tmp/sweep GRADSYNC
t=$(now)
(cd "$repo" && timeout 240 sbatch --wait -N 2 --ntasks-per-node 2 -o "$tmp/sweep-%j.out" scripts/slurm/sweep.sbatch) >"$tmp/sbatch.out" 2>&1 ||
  { cat "$tmp/sbatch.out" "$tmp"/sweep-*.out 2>/dev/null; show_logs; fail "sbatch scripts/slurm/sweep.sbatch: exit $?"; }
template_s=$(since "$t")
/usr/bin/python3 - "$SWEEP_OUT" <<'PY' || { cat "$tmp"/sweep-*.out; fail "the template's records"; }
import collections, json, os, sys
out = sys.argv[1]
records = [json.loads(line) for line in open(os.path.join(out, "train.jsonl"))]
runs = collections.Counter((r["strategy"], r["ranks"]) for r in records)
assert sorted(runs) == [(s, n) for s in ("none", "ring-mpi") for n in (1, 2, 4)] and set(runs.values()) == {1}, runs
for r in records:
    names = r["context"]["hostnames"]
    want = {1: ["gsl-h0"], 2: ["gsl-h0"] * 2, 4: ["gsl-h0", "gsl-h0", "gsl-h1", "gsl-h1"]}[r["ranks"]]
    assert names == want, f"{r['strategy']} x{r['ranks']}: ranks on {names}, expected {want}"
attempts = [json.loads(line) for line in open(os.path.join(out, "sweep.jsonl"))]
assert all(a["status"] == "done" and a["launcher"] == "srun" and a["slurm_job"] for a in attempts), attempts
assert os.path.getsize(os.path.join(out, "report.md")) > 0, "no report.md"
figures = os.listdir(os.path.join(out, "figures"))
assert any(f.startswith("efficiency") and f.endswith(".png") for f in figures), figures
PY

# Cancelled mid-way (scancel) and submitted again: every configuration
# recorded once. ps-zmq with a dedicated server node: its server (rank 0)
# on gsl-h1, its workers on gsl-h0.
export SWEEP_STRATEGIES=none,ring-mpi,ps-zmq SWEEP_WORKERS=1,2 SWEEP_PS_SERVER_NODES=1 SWEEP_OUT=$tmp/cancelled
export SWEEP_TRAIN_ARGS="--batch-size 8 --num-warmup-batches 1 --num-batches-per-iter 10 --num-iters 4 --timeout 30"
job=$(cd "$repo" && sbatch --parsable -N 2 --ntasks-per-node 2 -o "$tmp/cancelled-%j.out" scripts/slurm/sweep.sbatch)
for _ in $(seq 1200); do [ "$(grep -c . "$SWEEP_OUT/train.jsonl" 2>/dev/null || echo 0)" -ge 2 ] && break; sleep 0.1; done
[ "$(grep -c . "$SWEEP_OUT/train.jsonl" 2>/dev/null || echo 0)" -ge 2 ] || { cat "$tmp"/cancelled-*.out; fail "the sweep to cancel never recorded 2 runs"; }
scancel "$job"
for _ in $(seq 600); do [ -z "$(squeue -h -j "$job" 2>/dev/null)" ] && break; sleep 0.1; done
[ -z "$(squeue -h -j "$job" 2>/dev/null)" ] || fail "job $job still queued 60 s after scancel"
before=$(grep -c . "$SWEEP_OUT/train.jsonl")
[ "$before" -lt 4 ] || fail "the sweep finished ($before records) before scancel reached it; make its runs longer"
(cd "$repo" && timeout 240 sbatch --wait -N 2 --ntasks-per-node 2 -o "$tmp/resumed-%j.out" scripts/slurm/sweep.sbatch) >"$tmp/sbatch.out" 2>&1 ||
  { cat "$tmp/sbatch.out" "$tmp"/resumed-*.out 2>/dev/null; show_logs; fail "the resubmitted sweep: exit $?"; }
grep -q "done before" "$tmp"/resumed-*.out || { cat "$tmp"/resumed-*.out; fail "the resubmitted sweep skipped nothing"; }
/usr/bin/python3 - "$SWEEP_OUT" <<'PY' || { cat "$tmp"/resumed-*.out; fail "the resumed sweep's records"; }
import collections, json, os, sys
out = sys.argv[1]
records = [json.loads(line) for line in open(os.path.join(out, "train.jsonl"))]
runs = collections.Counter((r["strategy"], r["workers"]) for r in records)
expected = [(s, n) for s in ("none", "ps-zmq", "ring-mpi") for n in (1, 2)]
assert sorted(runs) == expected and set(runs.values()) == {1}, f"configurations and counts: {dict(runs)}"
for r in records:
    if r["strategy"] == "ps-zmq":
        names = r["context"]["hostnames"]
        assert names == ["gsl-h1"] + ["gsl-h0"] * r["workers"], f"ps-zmq x{r['workers']}: ranks on {names}"
jobs = {a["slurm_job"] for a in map(json.loads, open(os.path.join(out, "sweep.jsonl")))}
assert len(jobs) == 2, f"attempts from jobs {jobs}, expected the cancelled one and the resubmitted one"
PY
unset SWEEP_MODELS SWEEP_STRATEGIES SWEEP_WORKERS SWEEP_TRAIN_ARGS SWEEP_OUT SWEEP_PS_SERVER_NODES

t=$(now)
"$slurm_down" --dir "$tmp/slurm" >"$tmp/down.out" 2>&1 || { cat "$tmp/down.out"; fail "slurm/down.sh"; }
down_s=$(since "$t")
[ ! -e "$tmp/slurm" ] || fail "down.sh left $tmp/slurm"
for p in $daemons; do
  st=$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null) || continue # gone
  [ "$st" = Z ] || fail "daemon $p ($(cat "/proc/$p/comm" 2>/dev/null)) still runs after down.sh"
done
"$slurm_down" --dir "$tmp/slurm" | grep -q "nothing of $tmp/slurm exists" || fail "a second down.sh is not a no-op"
"$cluster" down --prefix gsl >/dev/null
[ -z "$( (existing_namespaces gsl; existing_links gsl) | tr '\n' ' ')" ] || fail "namespaces or links of gsl left"

# Nothing of the test left: no Slurm daemon naming its folder, no
# slurmstepd or gradsync in the cluster's namespaces or given its cluster.
for p in /proc/[0-9]*; do
  p=${p#/proc/}
  comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
  [ "$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)" != Z ] || continue
  case $comm in slurmctld | slurmd | slurmstepd | munged | gradsync | srun | sbatch) ;; *) continue ;; esac
  ! { tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | grep -qF "$tmp/" || fail "$comm ($p) of the test still runs"
  ! grep -qaF "GRADSYNC_CLUSTER=$GRADSYNC_CLUSTER_DIR/cluster.json" "/proc/$p/environ" 2>/dev/null || fail "$comm ($p) of the test's cluster still runs"
  net=$(readlink "/proc/$p/ns/net" 2>/dev/null) || continue
  for inode in $inodes; do [ "$net" != "net:[$inode]" ] || fail "$comm ($p) is still in a namespace of gsl"; done
done

# One node on loopback.
unset GRADSYNC_CLUSTER OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include
"$slurm_up" --dir "$tmp/slurmlocal" >"$tmp/up.out" 2>&1 || { cat "$tmp/up.out"; fail "slurm/up.sh on loopback"; }
grep -q "^slurm/up.sh: up: 1 node .* on loopback" "$tmp/up.out" || { cat "$tmp/up.out"; fail "up.sh's line on loopback"; }
SLURM_CONF=$tmp/slurmlocal/slurm.conf timeout 60 srun -n 2 hostname >"$tmp/local.out" 2>&1 || { cat "$tmp/local.out"; fail "srun on loopback"; }
[ "$(wc -l <"$tmp/local.out")" -eq 2 ] || { cat "$tmp/local.out"; fail "srun -n 2 on loopback: not 2 lines"; }
"$slurm_down" --dir "$tmp/slurmlocal" >/dev/null || fail "slurm/down.sh on loopback"
[ ! -e "$tmp/slurmlocal" ] || fail "down.sh left $tmp/slurmlocal"

echo "PASS (slurm up ${up_s} s, srun ${srun_s} s, sbatch --wait ${sbatch_s} s, the template's sweep ${template_s} s, cancelled at $before records and resumed, down ${down_s} s, all $(since "$start") s)"
