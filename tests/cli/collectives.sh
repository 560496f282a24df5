#!/usr/bin/env bash
# Every strategy usable here, under mpirun with 2 and 3 ranks, over sizes
# 0..1M: the run exits 0, every #wrong is 0, --json appends one valid record
# per strategy and keeps what the file already held, the header names the MPI
# library as the records do, and `report` reads it.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Host strategies only: the NCCL ones need a GPU per rank (tests/cli/gpu.sh).
strategies=$("$GRADSYNC" strategies | awk 'NR > 1 && $2 == "yes" && $3 != "NCCL" { print $1 }' | paste -sd, -)
[ -n "$strategies" ] || fail "gradsync strategies lists no usable strategy"
count=$(tr ',' '\n' <<<"$strategies" | wc -l)
sizes=11  # 0, 4, 16, ..., 1M
existing='{"schema":"gradsync.result","schema_version":1,"kind":"note","note":"written before"}'
echo "strategies: $strategies"

for np in 2 3; do
  json=$tmp/np$np.jsonl
  echo "$existing" >"$json"
  "$MPIRUN" -np "$np" "$GRADSYNC" collectives -b 0 -e 1M -f 4 -n 2 -w 1 \
    --strategy "$strategies" --json "$json" >"$tmp/out" || fail "np=$np: exit status $?"
  cat "$tmp/out"

  rows=$(grep -cv '^#' "$tmp/out" || true)
  [ "$rows" -eq $((count * sizes)) ] || fail "np=$np: $rows table rows, expected $((count * sizes))"
  wrong=$(awk '!/^#/ && $NF != "0"' "$tmp/out")
  [ -z "$wrong" ] || fail "np=$np: rows with #wrong other than 0:"$'\n'"$wrong"

  python3 - "$json" "$np" "$strategies" "$existing" "$tmp/out" <<'PY' || fail "np=$np: bad --json output"
import json, sys
path, np, strategies, existing, text = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4], sys.argv[5]
lines = open(path).read().splitlines()
# The header names the MPI library as the records do (its first line).
library = [l[len("# MPI library: "):] for l in open(text).read().splitlines() if l.startswith("# MPI library: ")]
assert lines[0] == existing, f"the line already there changed: {lines[0]!r}"
records = [json.loads(line) for line in lines[1:]]
assert [r["strategy"] for r in records] == strategies, [r["strategy"] for r in records]
for r in records:
    name = r["strategy"]
    assert r["schema"] == "gradsync.result" and r["schema_version"] == 1 and r["kind"] == "collectives", name
    assert r["ranks"] == np and r["workers"] == np and r["correct"] is True, name
    assert [row["size_bytes"] for row in r["rows"]] == [0] + [4 ** k for k in range(1, 11)], name
    assert all(row["wrong"] == 0 and row["count"] * 4 == row["size_bytes"] for row in r["rows"]), name
    assert len(r["traffic"]["per_rank"]) == np, name
    assert " collectives -b 0 -e 1M " in r["context"]["command_line"], r["context"]["command_line"]
    assert library == [r["context"]["mpi_library"]] and library[0], (library, r["context"]["mpi_library"])
    assert r["context"]["hostnames"] and r["context"]["iters"] == 2 and r["context"]["warmup"] == 1, name
PY
done

# Placement with a dedicated server rank, when the parameter server is built.
if grep -qx ps-zmq <<<"${strategies//,/$'\n'}"; then
  "$MPIRUN" -np 3 "$GRADSYNC" collectives -b 0 -e 64K -f 4 -n 2 -w 1 --strategy ps-zmq \
    --ps-placement dedicated >"$tmp/out" || fail "ps-zmq dedicated: exit status $?"
  awk '!/^#/ && $NF != "0" { bad = 1 } END { exit bad }' "$tmp/out" || fail "ps-zmq dedicated: wrong rows"
  # A wildcard bind is advertised as an address the workers reach (loopback,
  # since every rank is on this host), not as 0.0.0.0 (which the workers
  # could not connect to; they waited for the timeout).
  "$MPIRUN" -np 2 "$GRADSYNC" collectives -b 4K -e 64K -f 4 -n 2 -w 1 --strategy ps-zmq \
    --ps-bind 0.0.0.0 --timeout 10 >"$tmp/out" || fail "ps-zmq --ps-bind 0.0.0.0: exit status $?"
  awk '!/^#/ && $NF != "0" { bad = 1 } END { exit bad }' "$tmp/out" || fail "ps-zmq wildcard: wrong rows"
fi

"$GRADSYNC" report "$tmp/np2.jsonl" "$tmp/np3.jsonl" --csv "$tmp/table.csv" >"$tmp/report" ||
  fail "report: exit status $?"
cat "$tmp/report"
first=${strategies%%,*}
grep -qF "| size (B) | n=2 $first |" "$tmp/report" || fail "report: no first column for $first at 2 workers"
grep -qF "| n=3 $first |" "$tmp/report" || fail "report: no column for $first at 3 workers"
[ "$(grep -c '^| [0-9]' "$tmp/report")" -eq "$sizes" ] || fail "report: expected $sizes size rows"
[ "$(wc -l <"$tmp/table.csv")" -eq $((sizes + 1)) ] || fail "report --csv: expected a header and $sizes rows"
echo "collectives: all strategies correct at 2 and 3 ranks"
