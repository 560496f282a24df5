#!/usr/bin/env bash
# Prints the longest C++ functions of the suite, longest first, as
#
#   LINES  FILE:LINE  NAME
#
#   scripts/function-lengths.sh [--top N] [--over LINES] [DIR...]
#
# DIRs default to harness/ and strategies/ (gpu/ and models/ may be named
# too). A function's length counts its lines from the signature to the
# closing brace, lambdas inside it included; lambdas are listed on their own
# as well (as NAME:lambda), since they are what a long function is split
# into first. --over LINES lists only what is longer, and exits 1 when
# anything is, so that a check can hold a limit. Needs universal-ctags
# (scripts/install-deps.sh tests installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
top=20 over=0
dirs=()
while [ $# -gt 0 ]; do
  case $1 in
    --top) top=${2:?--top needs a count}; shift 2 ;;
    --over) over=${2:?--over needs a line count}; top=0; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "function-lengths: unknown option '$1'" >&2; exit 2 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[ ${#dirs[@]} -gt 0 ] || dirs=(harness strategies)
command -v ctags >/dev/null && ctags --version 2>/dev/null | grep -q 'Universal Ctags' ||
  { echo "function-lengths: needs universal-ctags (scripts/install-deps.sh tests)" >&2; exit 2; }

# ctags names a lambda __anonXXXX; it is reported under its enclosing
# function, which is the one whose extent holds it.
listing=$(find "${dirs[@]}" \( -name '*.cc' -o -name '*.h' -o -name '*.cu' \) -print0 | sort -z |
  xargs -0 ctags -x --language-force=C++ --kinds-C++=f --fields=+ne \
    --_xformat='%{line} %{end} %F %N' -o - |
  awk '$2 != "" && $2 >= $1 {
         length_ = $2 - $1 + 1; name = $4
         if (name ~ /^__anon/) name = enclosing[$3] ":lambda"
         else if ($2 > last_end[$3]) { enclosing[$3] = name; last_end[$3] = $2 }
         printf "%d %s:%d %s\n", length_, $3, $1, name
       }' | sort -k1,1nr -k2,2)
if [ "$over" -gt 0 ]; then
  longer=$(awk -v over="$over" '$1 > over' <<<"$listing")
  [ -z "$longer" ] && { echo "function-lengths: nothing in ${dirs[*]} is longer than $over lines"; exit 0; }
  printf '%s\n' "$longer" | awk '{printf "%6d  %s  %s\n", $1, $2, $3}'
  exit 1
fi
printf '%s\n' "$listing" | head -n "$top" | awk '{printf "%6d  %s  %s\n", $1, $2, $3}'
