#!/usr/bin/env bash
# run.sh: the benchmarks of docs/performance.md: sweep throughput and compile latency, then `gpmc eval` wall time.
set -euo pipefail
BENCH=$1
GPMC=$2
cd "$(dirname "$0")/.."
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
echo
"$BENCH" .
echo
# Wall-clock median of 21 runs of `gpmc eval` for each shipped pair and backend.
echo "| gpmc eval | backend | median wall time (ms) |"
echo "|---|---|---|"
for machine in machines/*.gpm; do
  for app in apps/*.gpm; do
    for backend in interp jit; do
      times=()
      for _ in $(seq 21); do
        start=$(date +%s%N)
        "$GPMC" eval "$machine" "$app" --backend "$backend" > /dev/null
        times+=($(( ($(date +%s%N) - start) / 1000 )))
      done
      median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 11p)
      printf '| %s %s | %s | %d.%03d |\n' "$machine" "$app" "$backend" $((median / 1000)) $((median % 1000))
    done
  done
done
