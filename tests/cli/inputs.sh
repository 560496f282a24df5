#!/usr/bin/env bash
# Bad numbers in the inputs of the cost model: a cluster file, a published
# scaling table, simulate's numeric flags. Each is refused before any output
# with exactly one line "gradsync: error: ..." naming the file, the key or
# line, and the rule, and a non-zero exit (never a signal, never a table
# holding nan).
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"

root=$(cd "$(dirname "$0")/../.." && pwd)
cluster=$root/results/reference/clusters/horovod-p100-roce25.json
table=$root/results/reference/published-scaling.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect_error WORDS ARGS...: gradsync ARGS exits 1 or 2 with one stderr line holding WORDS.
expect_error() {
  local words=$1 status=0 lines
  shift
  "$GRADSYNC" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  lines=$(wc -l <"$tmp/err")
  if { [ "$status" -ne 1 ] && [ "$status" -ne 2 ]; } || [ "$lines" -ne 1 ] ||
    [ -s "$tmp/out" ] || ! grep -qF -- "gradsync: error: $words" "$tmp/err"; then
    echo "FAIL: gradsync $* -> exit $status, $lines stderr lines;" \
      "expected one line naming: $words" >&2
    sed 's/^/  | /' "$tmp/err" "$tmp/out" | head -5 >&2
    failures=$((failures + 1))
  fi
}

# cluster_with NAME PYTHON: the reference cluster file with PYTHON applied to d.
cluster_with() {
  python3 - "$cluster" "$tmp/$1.json" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}

project() { echo simulate project --cluster "$1" --model vgg16 --strategy nccl-ring --workers 1,16; }

cluster_with rate 'd["inter"]["bandwidth_bits_per_s"]["value"] = 1e-300'
expect_error "$tmp/rate.json: inter.bandwidth_bits_per_s.value: must be at least 1000 bit/s (got 1e-300)" $(project "$tmp/rate.json")
cluster_with latency 'd["inter"]["latency_s"]["value"] = 1e308'
expect_error "$tmp/latency.json: inter.latency_s.value: must be at most 10 s (got 1e+308)" $(project "$tmp/latency.json")
cluster_with fraction 'd["workers_per_node"] = 2.5'
expect_error "$tmp/fraction.json: workers_per_node: must be a whole number (got 2.5)" $(project "$tmp/fraction.json")
cluster_with nan 'd["nodes"] = "NaN"'
expect_error "$tmp/nan.json: nodes: must be a whole number (got the string \"NaN\")" $(project "$tmp/nan.json")
cluster_with fit 'd["calibration"]["fits"] = [{"strategy": "ring-mpi", "link": "inter", "overhead_s": 0, "alpha_s": -1, "beta_s_per_byte": 0, "gamma_s_per_byte": 0}]'
expect_error "$tmp/fit.json: calibration.fits[0].alpha_s: must be at least 0 s (got -1)" $(project "$tmp/fit.json")
{ cat "$cluster"; echo '{}'; } >"$tmp/trailing.json"
expect_error "$tmp/trailing.json: not valid JSON (" $(project "$tmp/trailing.json")
sed '0,/"nodes"/s/"nodes": *[0-9]*/"nodes": 2, "nodes": 4/' "$cluster" >"$tmp/twice.json"
expect_error "$tmp/twice.json: the key \"nodes\" is given twice in one object" $(project "$tmp/twice.json")
: >"$tmp/empty.json"
expect_error "$tmp/empty.json: not valid JSON (" $(project "$tmp/empty.json")

# The published table: line 8 is the first row (4 comment lines, the header).
row() { sed "8s/.*/$1/" "$table" >"$tmp/$2.csv"; }
row 'horovod,nccl-ring,inception3,16,0,Pascal (P100),RoCE,64,134.4,94' per-node
expect_error "$tmp/per-node.csv:8:33: gpus_per_node: must be at least 1 (got 0)" simulate published --cluster "$cluster" "$tmp/per-node.csv"
row 'horovod,nccl-ring,inception3,16.5,4,Pascal (P100),RoCE,64,134.4,94' fraction
expect_error "$tmp/fraction.csv:8:30: gpus: must be a whole number (got 16.5)" simulate published --cluster "$cluster" "$tmp/fraction.csv"
row 'horovod,nccl-ring,inception3,16,-4,Pascal (P100),RoCE,64,134.4,94' negative
expect_error "$tmp/negative.csv:8:33: gpus_per_node: must be at least 1 (got -4)" simulate published --cluster "$cluster" "$tmp/negative.csv"
for pct in -5 500; do
  row "horovod,nccl-ring,inception3,16,4,Pascal (P100),RoCE,64,134.4,$pct" "pct$pct"
  expect_error "$tmp/pct$pct.csv:8:" simulate published --cluster "$cluster" "$tmp/pct$pct.csv"
  grep -qF "efficiency_pct: must be" "$tmp/err" || { echo "FAIL: efficiency $pct not named" >&2; failures=$((failures + 1)); }
done
: >"$tmp/empty.csv"
expect_error "$tmp/empty.csv: no header line" simulate published --cluster "$cluster" "$tmp/empty.csv"

# A measured record simulate validate reads: its numbers keep the same rules.
python3 - "$root/results/reference/cost-model/500mbit/train.jsonl" "$tmp/record.jsonl" <<'PY'
import json, sys
record = json.loads(open(sys.argv[1]).readline())
record["device_profile"]["flops_per_second"] = 0
open(sys.argv[2], "w").write(json.dumps(record) + "\n")
PY
expect_error "$tmp/record.jsonl:1: cannot simulate this train record (device_profile.flops_per_second: must be more than 0 FLOP/s (got 0))" \
  simulate validate --cluster "$root/results/reference/smpi/validation/cluster.json" "$tmp/record.jsonl"

# simulate's numeric flags.
expect_error "--workers-per-node: must be a whole number (got 2.5)" $(project "$cluster") --workers-per-node 2.5
expect_error "--workers-per-node: must be at most 1024 (got 100000)" $(project "$cluster") --workers-per-node 100000
expect_error "--emulate-img-per-sec: must be at most 1e+07 img/s (got 1e+308)" $(project "$cluster") --emulate-img-per-sec 1e308
expect_error "--inter-bandwidth: rate '1e-300' must be at least 1000 bit/s (got 1e-300)" $(project "$cluster") --inter-bandwidth 1e-300
expect_error "--fusion-mb: must be at most 1e+06 MiB (got 1e+300)" $(project "$cluster") --fusion-mb 1e300
expect_error "--batch-size: must be at least 1 (got 0)" $(project "$cluster") --batch-size 0

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "inputs: every bad number refused in one line"
