#!/usr/bin/env bash
# effective_bandwidth.sh: effective copy bandwidth (bytes / predicted time) from 1 B to 1 GiB on Titan and
# Summit, pinned and pageable, host to device and device to host, with `gpmc sweep` over apps/copies.gpm.
# Prints one markdown table per machine (the tables of docs/validation.md). Usage: effective_bandwidth.sh [GPMC]
set -euo pipefail
gpmc=${1:-build/gpmc}
cd "$(dirname "$0")/.."
for machine in titan summit; do
  echo "#### ${machine}"
  echo
  echo "| bytes | h2d pinned | d2h pinned | h2d pageable | d2h pageable |"
  echo "|---:|---:|---:|---:|---:|"
  "$gpmc" sweep "machines/${machine}.gpm" apps/copies.gpm --vary 'bytes=1B..1GiB*4' --backend interp --no-progress |
    awk -F, 'NR > 1 { printf "| %d | %.4g GB/s | %.4g GB/s | %.4g GB/s | %.4g GB/s |\n", $1, $1 / $3 / 1e9, $1 / $4 / 1e9, $1 / $5 / 1e9, $1 / $6 / 1e9 }'
  echo
done
