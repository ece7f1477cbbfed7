#!/usr/bin/env bash
# simgrid_crosscheck.sh [GPMC]: the same all-to-all (1 MB per ordered pair) on the same two-level fat tree (16 hosts
# per leaf, 4 spines, 12.5 GB/s split-duplex cables, no latency, d-mod-k routes) in gpmc and in SimGrid 3.32 with
# pure max-min sharing (CM02 without cross traffic), at 64 and 256 hosts (HOSTS=...): the largest relative difference
# of the per-flow completion times, and each whole process's wall and CPU time (median of three runs).
# HOSTS="64 256 1024" chooses the sizes (default 64 and 256: SimGrid takes about 3 s at 256 hosts, about 5 minutes and
# 2.4 GB at 1,024 on a 2-core machine; SIMGRID_TIMEOUT=SECONDS stops it, default 3600).
# Installs Debian's libsimgrid-dev when it is missing (as root, or through sudo). Results: docs/performance.md.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
gpmc="$(realpath "${1:-$root/build/gpmc}")"
if ! [ -f /usr/include/simgrid/s4u.hpp ]; then
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -q && $sudo_cmd apt-get install -y -q libsimgrid-dev || { echo "cannot install libsimgrid-dev"; exit 1; }
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
g++ -O2 -std=c++17 "$root/bench/simgrid/alltoall.cpp" -o "$work/alltoall" -lsimgrid || exit 1
python3 "$root/bench/simgrid/crosscheck.py" "$gpmc" "$work/alltoall" "$work" ${HOSTS:-64 256}
