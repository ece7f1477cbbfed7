#!/usr/bin/env bash
# congestion_search.sh: times `gpmc search` over every order of the 3D halo exchange on T2 (1,679,616 congestion
# graphs) and of the 2D one (20,736), with 1 and 2 threads; the figures of docs/performance.md (congestion search).
# Usage: bench/congestion_search.sh GPMC   (or `cmake --build build --target bench-congestion`)
set -euo pipefail
GPMC=$1
cd "$(dirname "$0")/.."
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| search | threads | orders | median wall time (s) | median CPU time (s) |"
echo "|---|---|---|---|---|"
TIMEFORMAT='%R %U %S'
for app in halo2d_8gpu halo3d_8gpu; do
  for threads in 1 2; do
    walls=()
    cpus=()
    for _ in 1 2 3; do
      read -r real user sys < <({ time "$GPMC" search machines/cs_storm_t2.gpm "apps/$app.gpm" --threads "$threads" \
        --format json > /tmp/gpmc_search_bench.json; } 2>&1)
      walls+=("$real")
      cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
    done
    orders=$(sed -n 's/^  "orders": \([0-9]*\),/\1/p' /tmp/gpmc_search_bench.json)
    wall=$(printf '%s\n' "${walls[@]}" | sort -g | sed -n 2p)
    cpu=$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n 2p)
    echo "| $app on cs_storm_t2 | $threads | $orders | $wall | $cpu |"
  done
done
rm -f /tmp/gpmc_search_bench.json
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
