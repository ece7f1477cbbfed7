#!/usr/bin/env bash
# mpi_ranks.sh: times gpmc sweep and gpmc search alone and under mpirun with 1, 2, 4... ranks (one thread each, up to
# the number of cores), beside one process with one thread and with a thread per core; the figures of
# docs/performance.md (sweeps and searches over MPI ranks). Every output must equal the one process's.
# Usage: bench/mpi_ranks.sh GPMC [RUNS]   (Open MPI's mpirun on the PATH; the median of RUNS runs, default 3;
# RANKS="1 2 4" names the rank counts)
set -euo pipefail
GPMC=$1
RUNS=${2:-3}
cd "$(dirname "$0")/.."
command -v mpirun > /dev/null || { echo "mpirun not found (apt-get install openmpi-bin libopenmpi-dev)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores=$(nproc)
if [ -z "${RANKS:-}" ]; then
  RANKS=1
  for ((np = 2; np <= cores; np *= 2)); do RANKS="$RANKS $np"; done
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $(mpirun --version | head -n1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| work | processes | threads each | median wall time (s) | median CPU time (s) |"
echo "|---|---|---|---|---|"
TIMEFORMAT='%R %U %S'
# time_it LABEL PROCESSES THREADS COMMAND...: the median wall and CPU (user + system, children included) of RUNS runs.
time_it() {
  local label=$1 procs=$2 threads=$3
  shift 3
  local walls=() cpus=() real user sys reference=""
  for _ in $(seq "$RUNS"); do
    read -r real user sys < <({ time "$@" > "$out"; } 2>&1)
    walls+=("$real")
    cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
  done
  echo "| $label | $procs | $threads | $(printf '%s\n' "${walls[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p") |" \
       "$(printf '%s\n' "${cpus[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p") |"
}
run_all() {
  local label=$1
  shift
  time_it "$label" "1 (alone)" 1 "$GPMC" "$@" --threads 1
  cp "$out" "$out.alone"
  time_it "$label" "1 (alone)" "$cores" "$GPMC" "$@" --threads "$cores"
  cmp -s "$out" "$out.alone" || { echo "the output with $cores threads differs from one thread's"; exit 1; }
  for np in $RANKS; do
    time_it "$label" "$np (mpirun)" 1 mpirun -q --oversubscribe -np "$np" "$GPMC" "$@" --threads 1
    cmp -s "$out" "$out.alone" || { echo "the output with $np ranks differs from one process's"; exit 1; }
  done
  rm -f "$out.alone"
}
run_all "sweep jacobi2d 10^6 points, JIT, CSV" sweep machines/summit.gpm apps/jacobi2d.gpm --vary n=1:1000:1 \
  --vary iters=1:1000:1
run_all "sweep jacobi2d 10^6 points, interpreter, CSV" sweep machines/summit.gpm apps/jacobi2d.gpm \
  --vary n=1:1000:1 --vary iters=1:1000:1 --backend interp
run_all "search halo3d_8gpu, 1,679,616 orders" search machines/cs_storm_t2.gpm apps/halo3d_8gpu.gpm --format json
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
