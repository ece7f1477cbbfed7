#!/usr/bin/env bash
# sweep_matches_eval.sh: `gpmc sweep` rows equal `gpmc eval` at each point (the total and each phase, exactly),
# and the output is the same for every --threads and with either backend.
set -euo pipefail
GPMC=$1
cd "$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Titan bandwidth, bytes from 1 B to 1 GiB by factors of 2: a header and 31 rows.
"$GPMC" sweep machines/titan.gpm apps/bandwidth.gpm --vary bytes=1B..1GiB*2 --format csv > "$work/sweep.csv"
rows=$(($(wc -l < "$work/sweep.csv") - 1))
[ "$rows" -eq 31 ] || { echo "FAIL: $rows rows, 31 expected"; exit 1; }
[ "$(head -n1 "$work/sweep.csv")" = "bytes,total_s,copy h2d bytes pinned (ddr3 -> opteron -> k20x),error" ] ||
  { echo "FAIL: header $(head -n1 "$work/sweep.csv")"; exit 1; }
tail -n +2 "$work/sweep.csv" | while IFS=, read -r bytes total phase error; do
  [ -z "$error" ] || { echo "FAIL: bytes=$bytes: $error"; exit 1; }
  json=$("$GPMC" eval machines/titan.gpm apps/bandwidth.gpm --set "bytes=${bytes} B" --format json)
  eval_total=$(printf '%s\n' "$json" | sed -n 's/^  "total_s": \(.*\),$/\1/p')
  eval_phase=$(printf '%s\n' "$json" | sed -n 's/^      "time_s": \(.*\),$/\1/p' | head -n1)
  # awk compares the numbers as doubles: equal, not merely close.
  awk -v a="$total" -v b="$eval_total" -v c="$phase" -v d="$eval_phase" 'BEGIN { exit !(a + 0 == b + 0 && c + 0 == d + 0) }' ||
    { echo "FAIL: bytes=$bytes: sweep $total / $phase, eval $eval_total / $eval_phase"; exit 1; }
done

# Two axes on Summit: identical output for 1, 2 and 7 threads and for the interpreter.
args=(machines/summit.gpm apps/jacobi2d.gpm --vary n=512:8192:512 --vary "link_bw=25GB/s,50GB/s,75 GB/s" --vary iters=1,10)
"$GPMC" sweep "${args[@]}" --threads 1 > "$work/t1.csv"
[ "$(wc -l < "$work/t1.csv")" -eq $((16 * 3 * 2 + 1)) ] || { echo "FAIL: jacobi2d row count"; exit 1; }
for threads in 2 7; do
  "$GPMC" sweep "${args[@]}" --threads "$threads" | cmp -s - "$work/t1.csv" || { echo "FAIL: --threads $threads"; exit 1; }
done
"$GPMC" sweep "${args[@]}" --backend interp | cmp -s - "$work/t1.csv" || { echo "FAIL: --backend interp"; exit 1; }
for format in json table; do
  "$GPMC" sweep "${args[@]}" --format "$format" --threads 1 > "$work/a"
  "$GPMC" sweep "${args[@]}" --format "$format" --threads 2 --backend interp | cmp -s - "$work/a" ||
    { echo "FAIL: --format $format differs across threads or backends"; exit 1; }
done
# A row in the middle equals eval at its point.
row=$(sed -n 20p "$work/t1.csv")
IFS=, read -r n link_bw iters total _ <<< "$row"
json=$("$GPMC" eval machines/summit.gpm apps/jacobi2d.gpm --set n="$n" --set "link_bw=$link_bw B/s" --set iters="$iters" --format json)
eval_total=$(printf '%s\n' "$json" | sed -n 's/^  "total_s": \(.*\),$/\1/p')
awk -v a="$total" -v b="$eval_total" 'BEGIN { exit !(a + 0 == b + 0) }' || { echo "FAIL: row 20: $total vs $eval_total"; exit 1; }
echo "ok"
