#!/usr/bin/env bash
# The documentation's own rules, on README.md and docs/**/*.md:
#   length       README.md has at most 250 lines (a front door, not the manual);
#   tracker      no tracker numbers ("issue 15", "#14") outside code: pages
#                speak of the project, not of its bug tracker;
#   link         every relative link points at a file that exists, and its
#   anchor       #anchor at a heading of that page (GitHub's slugs);
#   command      every table in docs/results/*.md has a "Command:" line
#                between the heading before it and the table (how to
#                reproduce the figures);
#   marker       no "<!-- COMMAND NEEDED: ... -->" marker is left (a measured
#                figure whose reproducing command is still to be written);
#   placeholder  no time placeholder is left unfilled (QUICKSTART_MIN, ...);
#   toc          a page over 120 lines links to one of its own sections
#                within its first 30 lines (a table of contents).
# Code (fenced blocks and inline spans) is left out of every check but
# "command", "marker" and "placeholder".
#
#   bash tests/cli/docs.sh [ROOT]     ROOT: the repository (default: this script's)
#
# The test checks itself first: a clean tree passes, and a copy broken in
# each of the ways above fails, naming the rule.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: $*" >&2; exit 1; }

python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3) || fail "no python3 to run the checker"

# lint ROOT: prints one line per violation ("rule: file:line: what"), exits 1 if any.
lint() {
  "$python" - "$1" <<'PY'
import os, re, sys

root = sys.argv[1]
README_MAX = 250
TOC_MIN_LINES, TOC_WITHIN = 120, 30
PLACEHOLDERS = ("QUICKSTART_MIN", "INSTALL_SHARE", "INSTALL_MIN", "TEST_FAST_MIN", "TEST_THOROUGH_MIN")
problems = []

def report(rule, path, line, what):
    problems.append(f"{rule}: {os.path.relpath(path, root)}:{line}: {what}")

def pages():
    found = [os.path.join(root, "README.md")] if os.path.isfile(os.path.join(root, "README.md")) else []
    for d, dirs, files in os.walk(os.path.join(root, "docs")):
        dirs.sort()
        found += [os.path.join(d, f) for f in sorted(files) if f.endswith(".md")]
    return found

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")

def prose(lines):
    """(line number, text outside code, whether the line is inside a fence)."""
    out, fence = [], None
    for i, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append((i, "", True))
            continue
        if m:
            fence = m.group(1)
            out.append((i, "", True))
            continue
        out.append((i, re.sub(r"(`+)(.+?)\1", "", line), False))
    return out

def slug(text):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link shows its text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
anchor_cache = {}

def anchors(path):
    if path not in anchor_cache:
        seen, found = {}, set()
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        for i, text, in_fence in prose(lines):
            m = HEADING.match(lines[i - 1]) if not in_fence else None
            if not m:
                continue
            s = slug(m.group(2))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else f"{s}-{n}")
        anchor_cache[path] = found
    return anchor_cache[path]

LINK = re.compile(r"\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
TRACKER = [re.compile(r"\b[Ii]ssues?\s*#?\d+\b"),
           re.compile(r"\b(?:PR|[Pp]ull [Rr]equest)s?\s*#?\d+\b"),
           re.compile(r"(?<![\w&/#])#\d+\b")]
TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")

for path in pages():
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    rel = os.path.relpath(path, root)
    text = prose(lines)
    if rel == "README.md" and len(lines) > README_MAX:
        report("length", path, len(lines), f"{len(lines)} lines, more than {README_MAX}")
    for i, line in enumerate(lines, 1):
        if re.search(r"<!--\s*COMMAND NEEDED", line):
            report("marker", path, i, "a COMMAND NEEDED marker is left")
        for p in PLACEHOLDERS:
            if p in line:
                report("placeholder", path, i, f"{p} is not filled in")
    for i, t, _ in text:
        bare = LINK.sub("]", t)
        for pattern in TRACKER:
            m = pattern.search(bare)
            if m:
                report("tracker", path, i, f"tracker number '{m.group(0)}'")
                break
        for m in LINK.finditer(t):
            target = m.group(1)
            if not target or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", target):
                continue  # http:, https:, mailto: ...
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                report("link", path, i, f"{target}: no such file")
                continue
            if anchor and dest.endswith(".md") and os.path.isfile(dest) and anchor not in anchors(dest):
                report("anchor", path, i, f"{target}: no heading '#{anchor}' in {os.path.relpath(dest, root)}")
    if len(lines) > TOC_MIN_LINES:
        own = [t for i, t, _ in text[:TOC_WITHIN] if re.search(r"\]\(#[^)]+\)", t)]
        if not own:
            report("toc", path, 1, f"{len(lines)} lines and no table of contents in the first {TOC_WITHIN}")
    if rel.startswith(os.path.join("docs", "results") + os.sep):
        since_heading = []  # raw lines outside fences since the last heading
        for k, (i, t, in_fence) in enumerate(text):
            line = lines[i - 1]
            if in_fence:
                continue
            if HEADING.match(line):
                since_heading = []
                continue
            is_start = (line.lstrip().startswith("|") and k + 1 < len(text) and not text[k + 1][2]
                        and TABLE_RULE.match(lines[i]) and "-" in lines[i])
            if is_start and not any(s.startswith("Command:") for s in since_heading):
                report("command", path, i, "a table with no 'Command:' line since the heading before it")
            since_heading.append(line.lstrip())

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
}

# --- Self-test: a clean tree passes; each broken copy fails, naming its rule.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
good=$tmp/good
mkdir -p "$good/docs/results" "$good/docs/guide"
cat >"$good/README.md" <<'EOF'
# Project

See [the guide](docs/README.md#a-guide-v2), [a section](docs/guide/page.md#options--flags-1)
and [the same section](#project). Code may say `issue 15` or `#14`.

```sh
echo "issue 12 and [a link](nowhere.md) inside a fence are code"
```
EOF
cat >"$good/docs/README.md" <<'EOF'
# A guide (v2)

- [Results](results/r.md) and [a page](guide/page.md).
EOF
{
  echo "# Page"
  echo
  echo "- [Options & flags](#options--flags)"
  echo "- [Again](#options--flags-1)"
  for i in $(seq 1 125); do echo "Line $i."; done
  echo "## Options & flags"
  echo "## Options & flags"
} >"$good/docs/guide/page.md"
cat >"$good/docs/results/r.md" <<'EOF'
# Results

## Measured

Command: `run it`

| a | b |
|---|---:|
| 1 | 2 |

A second table under the same heading shares its command:

| c |
|---|
| 3 |
EOF
out=$(lint "$good") || fail "self-test: a clean tree was refused: $out"

# broken NAME RULE: copies the clean tree to $tmp/NAME (cd'd into it by the
# caller's edit, read from stdin as a bash snippet), expects RULE to fail.
broken() {
  local name=$1 rule=$2 dir=$tmp/$1
  cp -r "$good" "$dir"
  (cd "$dir" && bash -e) || fail "self-test: could not break the copy for $name"
  out=$(lint "$dir") && fail "self-test: $name was accepted"
  grep -q "^$rule: " <<<"$out" || fail "self-test: $name did not fail on $rule: $out"
  return 0
}
broken readme-251-lines length <<'EOF'
for i in $(seq 1 251); do echo "line $i"; done >README.md
EOF
broken tracker-issue tracker <<'EOF'
echo "Fixed in issue 15." >>docs/guide/page.md
EOF
broken tracker-hash tracker <<'EOF'
echo "As asked in #14, the default changed." >>docs/README.md
EOF
broken missing-file link <<'EOF'
echo "See [gone](../gone.md)." >>docs/results/r.md
EOF
broken missing-anchor anchor <<'EOF'
echo "See [the section](guide/page.md#no-such-section)." >>docs/README.md
EOF
broken missing-own-anchor anchor <<'EOF'
echo "See [above](#nowhere)." >>README.md
EOF
broken table-without-command command <<'EOF'
printf '\n## Another\n\n| x |\n|---|\n| 1 |\n' >>docs/results/r.md
EOF
broken command-needed marker <<'EOF'
sed -i 's/^Command: `run it`$/<!-- COMMAND NEEDED: what it measures -->/' docs/results/r.md
EOF
# A marker in place of the command fails on both rules.
grep -q "^command: " <<<"$out" || fail "self-test: a table under a COMMAND NEEDED marker alone passed the command rule"
broken placeholder placeholder <<'EOF'
echo "It takes QUICKSTART_MIN minutes." >>README.md
EOF
broken long-page-without-toc toc <<'EOF'
sed -i '/(#options--flags/d' docs/guide/page.md
EOF

# --- The repository.
out=$(lint "$root") || { echo "$out" >&2; fail "the documentation breaks its rules ($(wc -l <<<"$out") problems above)"; }
echo "docs: README.md within 250 lines; no tracker numbers; every relative link and anchor resolves; every results table names its command; long pages open with a table of contents"
