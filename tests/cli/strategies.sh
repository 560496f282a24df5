#!/usr/bin/env bash
# `gradsync strategies` in its machine-readable forms, which scripts and plots
# ask instead of keeping their own lists: --names (and its filters) agrees with
# --json, which holds every entry of the plain table in the same order.
set -euo pipefail
: "${GRADSYNC:?path to the gradsync binary}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$GRADSYNC" strategies >"$tmp/plain" || fail "strategies: exit $?"
"$GRADSYNC" strategies --json >"$tmp/json" || fail "strategies --json: exit $?"
for form in "" "--with-baseline" "--all" "--memory host" "--all --memory device" \
  "--with-baseline --all"; do
  # shellcheck disable=SC2086
  "$GRADSYNC" strategies --names $form >"$tmp/names" || fail "strategies --names $form: exit $?"
  [ "$(wc -l <"$tmp/names")" = 1 ] || fail "--names $form: not one line: $(cat "$tmp/names")"
  echo "--names $form: $(cat "$tmp/names")"
  python3 - "$tmp/json" "$tmp/plain" "$(cat "$tmp/names")" $form <<'PY' || fail "--names $form disagrees with --json"
import json, sys
entries = json.load(open(sys.argv[1]))
plain = [line.split()[0] for line in open(sys.argv[2]).read().split("\n\n")[0].splitlines()[1:]]
names, form = sys.argv[3].split(","), sys.argv[4:]
keys = {"name", "usable", "transport", "algorithm", "detail", "memory", "role", "default"}
assert all(set(e) == keys for e in entries), entries
assert [e["name"] for e in entries] == plain, (plain, entries)
assert [e["role"] for e in entries].count("baseline") == 1
assert all(e["role"] in ("synchronizer", "baseline", "reference") for e in entries)
baseline = next(e["name"] for e in entries if e["role"] == "baseline")
chosen = [e for e in entries if "--all" in form or e["default"]]
if "--memory" in form:
    kind = form[form.index("--memory") + 1]
    chosen = [e for e in chosen if e["memory"] == kind]
want = [e["name"] for e in chosen]
if "--with-baseline" in form:
    want = [baseline] + [n for n in want if n != baseline]
assert names == want, (names, want)
assert names and all(names), names
PY
done

# The default set has no baseline and holds the reference.
default=$("$GRADSYNC" strategies --names)
python3 - "$tmp/json" "$default" <<'PY' || fail "the default set is wrong"
import json, sys
entries = {e["name"]: e for e in json.load(open(sys.argv[1]))}
names = sys.argv[2].split(",")
assert all(entries[n]["role"] != "baseline" for n in names), names
assert any(entries[n]["role"] == "reference" for n in names), names
PY
echo "strategies: --names and its filters agree with --json and the table"
