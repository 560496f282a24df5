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
keys = {"name", "usable", "transport", "algorithm", "detail", "memory", "role", "default", "sharding"}
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

# Gloo's entries, in a build with Gloo or without (the sanitized build is
# configured without, so gloo/absent.cc is compiled and checked there): with
# it, usable and naming Gloo's version; without, unusable with the reason,
# and a run that names one refused in one line, exit 2.
python3 - "$tmp/json" <<'PY' >"$tmp/gloo" || fail "the gloo-* entries are wrong"
import json, sys
gloo = [e for e in json.load(open(sys.argv[1])) if e["name"].startswith("gloo-")]
assert [e["name"] for e in gloo] == ["gloo-ring", "gloo-bcube", "gloo-ring-chunked",
                                     "gloo-halving-doubling"], gloo
assert all(e["memory"] == "host" and not e["default"] for e in gloo), gloo
usable = {e["usable"] for e in gloo}
assert len(usable) == 1, gloo
for e in gloo:
    assert e["detail"].startswith("Gloo " if e["usable"] else "not built: Gloo (libgloo-dev)"), e
print("built" if gloo[0]["usable"] else "absent")
PY
if [ "$(cat "$tmp/gloo")" = absent ]; then
  status=0
  "$GRADSYNC" collectives --strategy gloo-ring -b 4 -e 4 >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$status" = 2 ] || fail "collectives --strategy gloo-ring without Gloo: exit $status, not 2"
  [ "$(grep -c . "$tmp/err")" = 1 ] && grep -q "not usable here: not built: Gloo" "$tmp/err" ||
    fail "collectives --strategy gloo-ring without Gloo: $(cat "$tmp/err")"
fi
echo "strategies: Gloo's entries are $(cat "$tmp/gloo"), and say so"
