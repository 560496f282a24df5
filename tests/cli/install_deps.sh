#!/usr/bin/env bash
# scripts/install-deps.sh prints one line per phase and keeps apt's output in
# its log, run against stand-ins on PATH for dpkg-query (which says which
# packages are missing), apt-get (hundreds of lines, as on a fresh machine,
# and a failure on demand) and sudo: nothing is installed and no network is
# used. Checks:
#   - all packages present: one line, apt not run, no log written;
#   - packages missing: four lines on the screen (what is missing, where the
#     log is, one per phase), apt's lines all in the log, none on the screen;
#   - apt failing: the phase's line says so, stderr holds the log's tail (apt's
#     error line among it) and names the log, and the script exits with apt's
#     status.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/usr/bin/env bash
# Absent: the packages named in $STUB_MISSING; the rest installed.
for p in $STUB_MISSING; do [ "$p" = "${*: -1}" ] && exit 1; done
printf 'install ok installed'
EOF
cat >"$tmp/bin/apt-get" <<'EOF'
#!/usr/bin/env bash
# 300 lines for each call, as apt prints on a fresh machine; install fails
# with apt's status 100 when $STUB_FAIL is set.
echo "$*" >>"$STUB_CALLS"
for i in $(seq 300); do echo "Setting up stub-package-$i ..."; done
if [ "$1" = install ] && [ -n "${STUB_FAIL:-}" ]; then
  echo "E: Unable to locate package $STUB_FAIL"
  exit 100
fi
EOF
printf '#!/usr/bin/env bash\nexec "$@"\n' >"$tmp/bin/sudo"
chmod +x "$tmp/bin/"*
export PATH=$tmp/bin:$PATH STUB_CALLS=$tmp/calls GRADSYNC_INSTALL_LOG=$tmp/install.log
install=$root/scripts/install-deps.sh

# All present.
STUB_MISSING="" "$install" build >"$tmp/out" 2>"$tmp/err"
[ "$(cat "$tmp/out")" = "install-deps: all 20 packages for build already installed" ] ||
  fail "all present: $(cat "$tmp/out")"
[ ! -s "$tmp/err" ] && [ ! -e "$tmp/calls" ] && [ ! -e "$tmp/install.log" ] ||
  fail "all present: apt ran or something went to stderr or the log"

# Two missing.
STUB_MISSING="cmake python3-matplotlib" "$install" build >"$tmp/out" 2>"$tmp/err"
[ "$(wc -l <"$tmp/out")" -eq 4 ] && [ ! -s "$tmp/err" ] ||
  { cat "$tmp/out" "$tmp/err" >&2; fail "missing: expected 4 lines on stdout, none on stderr"; }
grep -qx "install-deps: 2 of 20 packages for build missing: cmake python3-matplotlib" "$tmp/out" ||
  fail "missing: no line naming the missing packages"
grep -qx "install-deps: apt's output goes to $tmp/install.log" "$tmp/out" || fail "missing: the log is not named"
grep -q '^install-deps: \[1/2\] refreshing the package lists (apt-get update) \.\.\. done ([0-9]* s)$' "$tmp/out" ||
  fail "missing: no line for the update phase"
grep -q '^install-deps: \[2/2\] installing them and what they need (apt-get install) \.\.\. done ([0-9]* s)$' "$tmp/out" ||
  fail "missing: no line for the install phase"
! grep -q "Setting up" "$tmp/out" || fail "missing: apt's output on the screen"
[ "$(grep -c '^Setting up' "$tmp/install.log")" -eq 600 ] || fail "missing: apt's output is not all in the log"
grep -qx "install -y --no-install-recommends cmake python3-matplotlib" "$tmp/calls" ||
  fail "missing: apt-get install was not asked for the two: $(cat "$tmp/calls")"

# apt fails.
status=0
STUB_MISSING="cmake" STUB_FAIL=cmake "$install" build >"$tmp/out" 2>"$tmp/err" || status=$?
[ "$status" -eq 100 ] || fail "apt failing: exit $status, expected apt's 100"
grep -q '^install-deps: \[2/2\] installing them and what they need (apt-get install) \.\.\. failed$' "$tmp/out" ||
  fail "apt failing: the phase's line does not say it failed: $(cat "$tmp/out")"
grep -qx "install-deps: the last 25 lines of $tmp/install.log:" "$tmp/err" &&
  grep -qx "  E: Unable to locate package cmake" "$tmp/err" &&
  grep -qx "install-deps: error: \[2/2\] installing them and what they need (apt-get install) failed (exit 100); apt's whole output is in $tmp/install.log" "$tmp/err" ||
  { cat "$tmp/err" >&2; fail "apt failing: stderr lacks the log's tail, apt's error or the log's name"; }
[ "$(wc -l <"$tmp/err")" -eq 27 ] || fail "apt failing: $(wc -l <"$tmp/err") lines on stderr, expected 27"
echo "PASS: install-deps.sh: one line per phase, apt's output in the log, its tail on failure"
