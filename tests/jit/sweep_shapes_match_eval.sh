#!/usr/bin/env bash
# sweep_shapes_match_eval.sh: sweeps over parameters that shape the model (stream counts, word parameters): the
# rows equal `gpmc eval` at their points, come in the order of the points, and are the same for every --threads
# and with either backend.
set -euo pipefail
GPMC=$1
cd "$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Titan bandwidth: 31 sizes x 3 stream counts x 2 memories x 2 directions = 372 rows, the first axis outermost.
args=(machines/titan.gpm apps/bandwidth.gpm --vary bytes=1B..1GiB*2 --vary streams=1,8,42 --vary memory=pinned,pageable
      --vary direction=h2d,d2h)
"$GPMC" sweep "${args[@]}" --threads 1 > "$work/t1.csv"
rows=$(($(wc -l < "$work/t1.csv") - 1))
[ "$rows" -eq 372 ] || { echo "FAIL: $rows rows, 372 expected"; exit 1; }
[ "$(head -n1 "$work/t1.csv" | cut -d, -f1-5)" = "bytes,streams,memory,direction,total_s" ] ||
  { echo "FAIL: header $(head -n1 "$work/t1.csv")"; exit 1; }
[ "$(sed -n 2p "$work/t1.csv" | cut -d, -f1-4)" = "1,1,pinned,h2d" ] || { echo "FAIL: first row"; exit 1; }
[ "$(sed -n 13p "$work/t1.csv" | cut -d, -f1-4)" = "1,42,pageable,d2h" ] || { echo "FAIL: row 12"; exit 1; }
[ "$(sed -n 14p "$work/t1.csv" | cut -d, -f1-4)" = "2,1,pinned,h2d" ] || { echo "FAIL: row 13"; exit 1; }
for threads in 2 7; do
  "$GPMC" sweep "${args[@]}" --threads "$threads" | cmp -s - "$work/t1.csv" || { echo "FAIL: --threads $threads"; exit 1; }
done
"$GPMC" sweep "${args[@]}" --backend interp --threads 3 | cmp -s - "$work/t1.csv" || { echo "FAIL: --backend interp"; exit 1; }
for format in json table; do
  "$GPMC" sweep "${args[@]}" --format "$format" --threads 1 > "$work/a"
  "$GPMC" sweep "${args[@]}" --format "$format" --threads 2 --backend interp | cmp -s - "$work/a" ||
    { echo "FAIL: --format $format differs across threads or backends"; exit 1; }
done
# Every 11th row, and the last, equals eval at its point (total and phase, as doubles).
for line in $(seq 2 11 373) 373; do
  IFS=, read -r bytes streams memory direction total phase <<< "$(sed -n "${line}p" "$work/t1.csv")"
  json=$("$GPMC" eval machines/titan.gpm apps/bandwidth.gpm --set "bytes=${bytes} B" --set streams="$streams" \
         --set memory="$memory" --set direction="$direction" --format json)
  eval_total=$(printf '%s\n' "$json" | sed -n 's/^  "total_s": \(.*\),$/\1/p')
  eval_phase=$(printf '%s\n' "$json" | sed -n 's/^      "time_s": \(.*\),$/\1/p' | head -n1)
  awk -v a="$total" -v b="$eval_total" -v c="$phase" -v d="$eval_phase" 'BEGIN { exit !(a + 0 == b + 0 && c + 0 == d + 0) }' ||
    { echo "FAIL: row $line ($bytes, $streams, $memory, $direction): sweep $total / $phase, eval $eval_total / $eval_phase"; exit 1; }
done

# An offload's strategy (a word parameter) and stream count shape its schedule: one compiled model per
# combination; a value listed twice reuses its model. Rows equal eval, for any --threads.
app=tests/jit/inputs/offload_sweep.gpm
args=(machines/das4_k20m.gpm "$app" --vary strategy=explicit,streams,hybrid --vary streams=1,2,16,2 --vary bytes=1MiB,64MiB)
"$GPMC" sweep "${args[@]}" --threads 1 > "$work/o1.csv"
[ "$(wc -l < "$work/o1.csv")" -eq 25 ] || { echo "FAIL: offload row count"; exit 1; }
"$GPMC" sweep "${args[@]}" --threads 4 | cmp -s - "$work/o1.csv" || { echo "FAIL: offload --threads 4"; exit 1; }
"$GPMC" sweep "${args[@]}" --backend interp | cmp -s - "$work/o1.csv" || { echo "FAIL: offload --backend interp"; exit 1; }
tail -n +2 "$work/o1.csv" | while IFS=, read -r strategy streams bytes total _; do
  json=$("$GPMC" eval machines/das4_k20m.gpm "$app" --set strategy="$strategy" --set streams="$streams" \
         --set "bytes=$bytes B" --format json)
  eval_total=$(printf '%s\n' "$json" | sed -n 's/^  "total_s": \(.*\),$/\1/p')
  awk -v a="$total" -v b="$eval_total" 'BEGIN { exit !(a + 0 == b + 0) }' ||
    { echo "FAIL: offload $strategy streams=$streams bytes=$bytes: sweep $total, eval $eval_total"; exit 1; }
done
echo "ok"
