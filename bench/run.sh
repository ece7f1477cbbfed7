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
# Median wall-clock and CPU (user + system) time of 21 runs of `gpmc eval` for each shipped pair and backend.
# On a shared machine the wall time includes waiting for a core; the CPU time does not.
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| gpmc eval | backend | median wall time (ms) | median CPU time (ms) |"
echo "|---|---|---|---|"
TIMEFORMAT='%R %U %S'
for machine in machines/*.gpm; do
  for app in apps/*.gpm; do
    "$GPMC" eval "$machine" "$app" > /dev/null 2>&1 || continue  # pairs that do not fit each other
    for backend in interp jit; do
      walls=()
      cpus=()
      for _ in $(seq 21); do
        read -r real user sys < <({ time "$GPMC" eval "$machine" "$app" --backend "$backend" > /dev/null; } 2>&1)
        walls+=("$real")
        cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
      done
      wall=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n 11p)
      cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n 11p)
      awk -v m="$machine $app" -v b="$backend" -v w="$wall" -v c="$cpu" 'BEGIN { printf "| %s | %s | %.0f | %.0f |\n", m, b, w * 1000, c * 1000 }'
    done
  done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
