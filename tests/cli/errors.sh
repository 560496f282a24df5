#!/usr/bin/env bash
# Bad arguments and bad inputs: each run exits non-zero with exactly one line
# on stderr, "gradsync: error: ..." naming the problem, both as one process and
# under mpirun with 2 ranks (mpirun's own notices are silenced with --quiet;
# gradsync's line must still come once, not once per rank).
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}" "${MPIRUN:?path to scripts/mpirun.sh}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%s\n' '{"schema":"gradsync.result","schema_version":1,"kind":"train"}' '{"schema": oops' \
  >"$tmp/corrupt.jsonl"

failures=0
np=""  # empty: one process; else the rank count under mpirun

# expect_error WORDS ARGS...: gradsync ARGS fails with one stderr line holding WORDS.
expect_error() {
  local words=$1 status=0 lines
  shift
  if [ -n "$np" ]; then
    "$MPIRUN" --quiet -np "$np" "$GRADSYNC" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  else
    "$GRADSYNC" "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  fi
  lines=$(wc -l <"$tmp/err")
  if [ "$status" -eq 0 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "gradsync: error: " "$tmp/err" ||
    ! grep -qF -- "$words" "$tmp/err"; then
    echo "FAIL (np=${np:-none}): gradsync $* -> exit $status, $lines stderr lines;" \
      "expected a failure with one line naming: $words" >&2
    sed 's/^/  | /' "$tmp/err" >&2
    failures=$((failures + 1))
  fi
}

for np in "" 2; do
  expect_error "unknown strategy 'bogus'" collectives --strategy bogus
  expect_error "malformed size '12X'" collectives -b 12X
  # Sizes that cannot be measured as stated: refused, never cut down to a row of zeros.
  expect_error "-b/--minbytes 3 B is not a whole number of floats" collectives -b 3 -e 3
  expect_error "-i/--stepbytes 1 B is not a whole number of floats" collectives -b 4 -e 8 -i 1
  expect_error "-i/--stepbytes 1M steps from -b/--minbytes 4K past -e/--maxbytes 8K" \
    collectives -b 4K -e 8K -i 1M
  expect_error "--ring-segment: 6 is not a whole number of floats" collectives --ring-segment 6
  expect_error "--ring-segment: must be a number above 0" train --ring-segment 0
  expect_error "--ps-partition: malformed size '-4'" train --ps-partition -4
  expect_error "-d/--datatype 'double'" collectives -d double
  expect_error "-o/--op 'max'" collectives -o max
  # A strategy's options are checked against the job before anything is built,
  # by collectives and train alike, in the strategy's own words.
  for sub in collectives train; do
    expect_error "--ps-placement dedicated needs more ranks than --ps-servers (2)" \
      "$sub" --strategy ps-zmq --ps-placement dedicated --ps-servers 2
    expect_error "--ps-sum-threads 5000: from 0 (auto) to 4096" \
      "$sub" --strategy ps-zmq --ps-sum-threads 5000
  done
  expect_error "--with-baseline requires --names" strategies --with-baseline
  expect_error "--memory: gpu not in {host,device}" strategies --names --memory gpu
  expect_error "$tmp/missing.jsonl: cannot read results" report "$tmp/missing.jsonl"
  expect_error "$tmp/corrupt.jsonl:2: not valid JSON" report --strict "$tmp/corrupt.jsonl"
done

[ "$failures" -eq 0 ] || { echo "$failures error case(s) failed" >&2; exit 1; }
echo "errors: all cases give one line and a non-zero exit"
