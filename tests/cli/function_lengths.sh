#!/usr/bin/env bash
# The harness's functions stay short enough to read: none longer than 80
# lines, counted by scripts/function-lengths.sh (signature to closing brace,
# lambdas included). A function that grows past it is split into named parts
# (the training step, train_step.h, is the model). The test checks the
# script first: a tree holding one 90-line function must fail, naming it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
limit=80
fail() { echo "FAIL: $*" >&2; exit 1; }
lengths=$root/scripts/function-lengths.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/harness"
{
  echo 'int short_one(int x) { return x + 1; }'
  echo 'int long_one(int x) {'
  for i in $(seq 1 88); do echo "  x += $i;"; done
  echo '  return x;'
  echo '}'
} >"$tmp/harness/sample.cc"
if out=$("$lengths" --over "$limit" "$tmp/harness"); then
  fail "a 91-line function passed the check: $out"
fi
grep -q "^ *91  $tmp/harness/sample.cc:2  long_one$" <<<"$out" ||
  fail "the check did not name the long function as expected: $out"
grep -q short_one <<<"$out" && fail "the check named a short function: $out"

cd "$root"
"$lengths" --over "$limit" harness ||
  fail "functions of harness/ longer than $limit lines (above); split them into named parts"
echo "function lengths: every function of harness/ is at most $limit lines"
