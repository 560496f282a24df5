#!/usr/bin/env bash
# Any `gradsync collectives` run repeated in alternating rounds, and a
# Markdown table of each figure over the rounds: the median (with its ratio to
# a reference strategy measured in the same rounds), the min-max, or both
# strategies of a pair side by side. A noisy machine moves every strategy and
# variant of a round alike, so each round runs them all one after another.
# The figures come from the runs' JSON records (--json), which name the
# strategy, and each variant's runs write their own file, so a compressed run
# is never mistaken for an uncompressed one (the text rows do not say; the
# records' strategy_options.compression does, and is checked against a
# variant labelled none, fp16 or bf16).
#
#   scripts/collectives-rounds.sh [OPTIONS] [--] COLLECTIVES_ARGS...
#
# -p P[,P...]    worker counts, each one's rounds run before the next (default 2)
# -r ROUNDS      rounds (default $ROUNDS, else 3)
# -V LABEL=ARGS  a variant: ARGS (split at spaces) added to the collectives
#                arguments; repeat it, and every round runs every variant in
#                the order given (default: one variant, no extra arguments)
# -m busbw|algbw|time   the figure (default busbw; GB/s, GB/s, us per call)
# -s median-ratio|spread|median|range|pair   what a cell shows (default
#                median-ratio):
#                median-ratio  median and (x) its ratio to the reference
#                spread        median, +-half its range over the rounds in
#                              percent, and (x) its ratio to the reference
#                every ratio is the median of the rounds' own ratios (each
#                round's figure over the same round's reference), so that a
#                round in which the machine was slower moves both sides alike
#                median        median
#                range         min-max over the rounds
#                pair          median with its unit, for exactly two
#                              strategies (the second the reference), and a
#                              ratio column
#                ratios are "above 1 is better": the reference's time over
#                this one's for time
# -x STRATEGY    the reference of the ratios (default mpi-allreduce)
# -l size|variant  rows per size and a column per strategy, a table per
#                worker count and variant (default with one variant); or a
#                row per strategy and a column per variant, a table per
#                worker count and size (default with several)
# -z bytes|human   the size column in bytes, "size (B)" (default), or as
#                4 B, 64 KiB, 16 MiB
#
# How long: what the collectives arguments take, times ROUNDS, times the
# variants, plus about a second per run to start the ranks.
# GRADSYNC_BUILD_DIR picks the build (default build/); GRADSYNC_ROUNDS_KEEP=DIR
# keeps the runs' records there (P.VARIANT.ROUND.jsonl, the variant by its
# index from 0).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "collectives-rounds: $*" >&2; exit 2; }

ranks=2 rounds=${ROUNDS:-3} metric=busbw cells=median-ratio reference=mpi-allreduce layout='' sizes=bytes
labels=() variants=()
while getopts ':p:r:V:m:s:x:l:z:' opt; do
  case $opt in
    p) ranks=$OPTARG ;;
    r) rounds=$OPTARG ;;
    V) [[ $OPTARG == *=* ]] || usage "-V wants LABEL=ARGS (got '$OPTARG')"
       labels+=("${OPTARG%%=*}") variants+=("${OPTARG#*=}") ;;
    m) metric=$OPTARG ;;
    s) cells=$OPTARG ;;
    x) reference=$OPTARG ;;
    l) layout=$OPTARG ;;
    z) sizes=$OPTARG ;;
    :) usage "-$OPTARG wants a value" ;;
    *) usage "unknown option -$OPTARG (see the header of $0)" ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" != -- ] || shift
args=("$@")

[[ $ranks =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || usage "-p wants worker counts like 2,4 (got '$ranks')"
case $rounds in '' | *[!0-9]* | 0) usage "ROUNDS must be a positive whole number (got '$rounds')" ;; esac
case $metric in busbw | algbw | time) ;; *) usage "-m: unknown figure '$metric' (known: busbw, algbw, time)" ;; esac
case $cells in median-ratio | spread | median | range | pair) ;; *) usage "-s: unknown cells '$cells' (known: median-ratio, spread, median, range, pair)" ;; esac
case $sizes in bytes | human) ;; *) usage "-z: unknown size column '$sizes' (known: bytes, human)" ;; esac
if [ ${#variants[@]} -eq 0 ]; then labels=('') variants=(''); fi
[ -n "$layout" ] || { [ ${#variants[@]} -gt 1 ] && layout=variant || layout=size; }
case $layout in size | variant) ;; *) usage "-l: unknown layout '$layout' (known: size, variant)" ;; esac
[ "$cells" != pair ] || [ "$layout" = size ] || usage "-s pair needs -l size"
for a in "${args[@]}"; do
  case $a in --json | --json=*) usage "the collectives arguments may not name --json (each run writes its own)" ;; esac
done
if [ "$cells" = pair ]; then
  list='' prev=''
  for a in "${args[@]}"; do
    [ "$prev" != --strategy ] || list=$a
    case $a in --strategy=*) list=${a#--strategy=} ;; esac
    prev=$a
  done
  [[ $list =~ ^[^,]+,[^,]+$ ]] || usage "-s pair needs --strategy A,B with exactly two strategies (got '${list:-the default list}')"
fi
bin=${GRADSYNC_BUILD_DIR:-build}/bin/gradsync
[ -x "$bin" ] || scripts/build.sh >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
IFS=, read -ra counts <<<"$ranks"
for p in "${counts[@]}"; do
  for ((round = 1; round <= rounds; ++round)); do
    for i in "${!variants[@]}"; do
      # One file per worker count, variant and round: the file says which.
      read -ra extra <<<"${variants[i]}"
      status=0
      scripts/mpirun.sh -np "$p" "$bin" collectives "${args[@]}" "${extra[@]}" \
        --json "$tmp/$p.$i.$round.jsonl" >"$tmp/log" 2>&1 || status=$?
      if [ "$status" -ne 0 ]; then
        # gradsync refuses bad arguments with one line and status 2: pass it on.
        if [ "$status" -eq 2 ] && line=$(grep -m1 '^gradsync: error:' "$tmp/log"); then
          echo "collectives-rounds: $line" >&2
          exit 2
        fi
        tail -n 20 "$tmp/log" >&2
        echo "collectives-rounds: the run at $p workers, round $round${labels[i]:+, ${labels[i]}} failed (above)" >&2
        exit 1
      fi
    done
  done
done

if [ -n "${GRADSYNC_ROUNDS_KEEP:-}" ]; then
  mkdir -p "$GRADSYNC_ROUNDS_KEEP"
  cp "$tmp"/*.jsonl "$GRADSYNC_ROUNDS_KEEP"/
fi

# The tables, from the records: plots/gsplots/rounds.py (no matplotlib needed).
variant_args=()
for label in "${labels[@]}"; do variant_args+=("--variant=$label"); done
python3 plots/gradsync_plots.py rounds "$tmp" --workers="$ranks" --rounds="$rounds" --metric="$metric" \
  --cells="$cells" --reference="$reference" --layout="$layout" --sizes="$sizes" "${variant_args[@]}"
