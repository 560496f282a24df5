# ps-schedule    ps-zmq's push schedule across hosts: 4 and 8 hosts x 1
#                slot at 500mbit (MTU 9000), a 16 MiB allreduce with one
#                shard per worker and with one shard, all at once against
#                rotated with windows of 1, 2 and 4, beside ring-mpi, 3
#                alternating rounds, each run's packets dropped at the links'
#                queues (scripts/cluster.sh drops); a table of the median
#                time per call and drops, ps-schedule.md (about 15 minutes;
#                not in the default set).

# shellcheck shell=bash
ps_schedule() {
  local dir=$out/ps-schedule hosts shards
  mkdir -p "$dir"
  : >"$dir/runs.tsv"
  for hosts in 4 8; do
    jumbo_cluster_up "$dir/$hosts-hosts" gss "$hosts"
    for _ in 1 2 3; do  # three rounds, each of every run
      for shards in "$hosts" 1; do
        ps_schedule_run "$dir" "$hosts" "ps-zmq $shards shard(s), all at once" \
          --strategy ps-zmq "${ps[@]}" --ps-servers "$shards" --ps-schedule all-at-once
        for window in 1 2 4; do
          ps_schedule_run "$dir" "$hosts" "ps-zmq $shards shard(s), rotated, window $window" \
            --strategy ps-zmq "${ps[@]}" --ps-servers "$shards" --ps-schedule rotated \
            --ps-window "$window"
        done
      done
      ps_schedule_run "$dir" "$hosts" ring-mpi --strategy ring-mpi
    done
    jumbo_cluster_down
  done
  ps_schedule_table "$dir/runs.tsv" >"$dir/ps-schedule.md"
  echo "ps-schedule: $dir/ps-schedule.md"
}

# ps_schedule_run DIR HOSTS LABEL ARGS...: one 16 MiB run on HOSTS hosts; a
# line "HOSTS<tab>LABEL<tab>seconds per call<tab>dropped sending<tab>dropped
# receiving" in DIR/runs.tsv, the record in DIR/runs.jsonl.
ps_schedule_run() {
  local dir=$1 hosts=$2 label=$3 before after seconds
  shift 3
  before=$(scripts/cluster.sh drops)
  scripts/cluster.sh mpirun -np "$hosts" "$bin" collectives -b 16M -e 16M -n 5 -w 1 "$@" \
    --json "$dir/runs.jsonl" >>"$dir/log.txt"
  after=$(scripts/cluster.sh drops)
  seconds=$(tail -n 1 "$dir/runs.jsonl" | jq '.rows[0].time_us / 1e6')
  printf '%s\t%s\t%s\t%s\t%s\n' "$hosts" "$label" "$seconds" \
    $(($(echo "$after" | awk '{print $2}') - $(echo "$before" | awk '{print $2}'))) \
    $(($(echo "$after" | awk '{print $4}') - $(echo "$before" | awk '{print $4}'))) >>"$dir/runs.tsv"
}

# ps_schedule_table TSV: per hosts and label, the median time per call
# (min-max) and the median drops at each end, as a Markdown table.
ps_schedule_table() {
  python3 - "$1" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    hosts, label, seconds, sending, receiving = line.rstrip("\n").split("\t")
    runs[(int(hosts), label)].append((float(seconds), int(sending), int(receiving)))
print("| hosts | run | time per call, median (min-max) | dropped, sending ends | dropped, receiving ends |")
print("|---:|---|---:|---:|---:|")
for (hosts, label), rows in runs.items():
    t = [r[0] for r in rows]
    print(f"| {hosts} | {label} | {statistics.median(t):.3f} s ({min(t):.3f}-{max(t):.3f}) | "
          f"{statistics.median(r[1] for r in rows):.0f} | {statistics.median(r[2] for r in rows):.0f} |")
PY
}
