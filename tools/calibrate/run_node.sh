#!/usr/bin/env bash
# run_node.sh: builds tools/calibrate's CUDA benchmarks with nvcc alone (no CMake, no other dependency of gpmc)
# and measures this node: calibrate (copies, streams, overlap, peaks) and launch (kernel and NCCL launch costs).
# Usage: tools/calibrate/run_node.sh OUTDIR [NAME]   (docs/calibration.md; NCCL is found if a libnccl.so.2 is
# installed under /usr or /opt, or named by $NCCL_LIB)
set -euo pipefail
out=${1:?usage: run_node.sh OUTDIR [NAME]}
name=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
bin=$(mktemp -d)
arch=${CUDA_ARCH:-native}
{
  echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.max,pcie.link.width.max,memory.total,clocks.max.sm,clocks.max.memory --format=csv || true
  nvcc --version | tail -2 || true
  lscpu | grep -E '^(Model name|Socket|Core|Thread|NUMA node\(s\)|CPU\(s\))' || true
  nvidia-smi topo -m || true
} >"$out/node.txt" 2>&1
sources=("$root/tools/calibrate/calibrate.cu" "$root/tools/calibrate/fit.cpp" "$root/tools/calibrate/raw_csv.cpp"
         "$root/tools/calibrate/machine_writer.cpp")
failed=0
# Each step goes on when another fails, so one run gives every measurement that works.
nvcc -O2 -std=c++17 -arch="$arch" "$root/tools/calibrate/launch.cu" -ldl -o "$bin/launch" || failed=1
args=(--csv "$out/calibration.csv" --gpm "$out/calibration.gpm")
[ -n "$name" ] && args+=(--name "$name")
if nvcc -O2 -std=c++17 -arch="$arch" -I"$root" "${sources[@]}" -o "$bin/calibrate"; then
  "$bin/calibrate" "${args[@]}" || failed=1
else
  failed=1
fi
[ -x "$bin/launch" ] || exit 1
nccl=${NCCL_LIB:-$(find /usr /opt -name 'libnccl.so.2' 2>/dev/null | head -1 || true)}
if [ -n "$nccl" ]; then
  echo "# nccl_lib: $nccl" >>"$out/node.txt"
  "$bin/launch" --nccl-lib "$nccl" >"$out/launch.csv" || { failed=1; "$bin/launch" >"$out/launch.csv"; }
else
  echo "run_node.sh: no libnccl.so.2 found: NCCL launch costs not measured" >&2
  "$bin/launch" >"$out/launch.csv"
fi
echo "run_node.sh: wrote what was measured under $out"
exit $failed
