#!/usr/bin/env bash
# mpirun_identical.sh: `mpirun --oversubscribe -np 2` and `-np 4` of gpmc sweep and gpmc search write the same bytes
# (stdout, stderr, --orders-out) with the same exit status as one process; skipped (exit 77) without Open MPI.
#   mpirun_identical.sh GPMC ROOT MPIEXEC PLUGIN
set -uo pipefail
GPMC=$1
here=$(cd "$(dirname "$0")" && pwd)
cd "$2"
MPIEXEC=${3:-}
PLUGIN=${4:-}
if [ -z "$MPIEXEC" ] || ! [ -x "$MPIEXEC" ]; then
  echo "SKIP: no MPI launcher found when gpmc was configured (apt-get install openmpi-bin libopenmpi-dev, reconfigure)"
  exit 77
fi
if ! [ -f "$PLUGIN" ]; then
  echo "SKIP: no MPI plugin $PLUGIN (gpmc was built without MPI)"
  exit 77
fi
# Open MPI refuses root unless told; a test container often runs as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# In the sanitizer build: what Open MPI keeps allocated to the end is not gpmc's leak (and no summary on stderr).
export LSAN_OPTIONS="suppressions=$here/lsan_openmpi.supp:print_suppressions=0:${LSAN_OPTIONS:-}"
# Open MPI's own allocations can come from modules it has already unloaded (`<unknown module>` in the report), which
# no suppression can name: leak checking is off for this test's runs (every other test of the suite keeps it).
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
cases=0

# Runs `gpmc ARGS` once alone and then under mpirun with 2 and 4 ranks; stdout, stderr and the exit status must be
# the same bytes. `-q` keeps mpirun's own notes about a non-zero exit off stderr. A file argument written as @OUT is
# given per run and compared too.
same() {
  local name=$1
  shift
  cases=$((cases + 1))
  local args=("$@") one=("$@") i
  for i in "${!one[@]}"; do [ "${one[$i]}" = "@OUT" ] && one[$i]="$work/one.file"; done
  "$GPMC" "${one[@]}" > "$work/one.out" 2> "$work/one.err"
  local status=$?
  for np in 2 4; do
    local many=("${args[@]}")
    for i in "${!many[@]}"; do [ "${many[$i]}" = "@OUT" ] && many[$i]="$work/np$np.file"; done
    "$MPIEXEC" -q --oversubscribe -np "$np" "$GPMC" "${many[@]}" > "$work/np$np.out" 2> "$work/np$np.raw"
    local got=$?
    # Open MPI's runtime (its libevent) may print `[warn] Epoll MOD(1) on fd N failed ...` when ranks exit early
    # under load; those lines are the launcher's, not gpmc's (whose lines never start so), and are left out.
    grep -v '^\[warn\] ' "$work/np$np.raw" > "$work/np$np.err"
    if [ "$got" != "$status" ]; then
      echo "FAIL: $name: exit status $got with -np $np, $status alone"; fails=$((fails + 1))
    elif ! cmp -s "$work/one.out" "$work/np$np.out"; then
      echo "FAIL: $name: stdout differs with -np $np"; diff "$work/one.out" "$work/np$np.out" | head -n 10
      fails=$((fails + 1))
    elif ! cmp -s "$work/one.err" "$work/np$np.err"; then
      echo "FAIL: $name: stderr differs with -np $np"; diff "$work/one.err" "$work/np$np.err" | head -n 10
      fails=$((fails + 1))
    elif [ -f "$work/one.file" ] && ! cmp -s "$work/one.file" "$work/np$np.file"; then
      echo "FAIL: $name: the written file differs with -np $np"; fails=$((fails + 1))
    fi
  done
  rm -f "$work"/*.file
  echo "ok: $name (exit status $status, $(wc -c < "$work/one.out") bytes)"
}

jacobi=(sweep machines/summit.gpm apps/jacobi2d.gpm --vary n=1024:16384:1024 --vary link_bw=25GB/s,50GB/s)
same "sweep jacobi2d, CSV" "${jacobi[@]}"
same "sweep jacobi2d, JSON" "${jacobi[@]}" --format json
same "sweep jacobi2d, table" "${jacobi[@]}" --format table
same "sweep jacobi2d, one thread per rank" "${jacobi[@]}" --threads 1
# 100,000 points: two batches of 65,536, each split over the ranks.
same "sweep jacobi2d, 100,000 points" sweep machines/summit.gpm apps/jacobi2d.gpm --vary n=1:1000:1 \
  --vary iters=1:100:1
# Shape parameters (one compiled model per stream count and memory kind) and invalid points (copies larger than
# the GPU's memory), whose rows say why; with --strict the sweep stops at the first, with exit status 1.
titan=(sweep machines/titan.gpm apps/bandwidth.gpm --vary bytes=1KiB..256GiB*8 --vary streams=1,8
       --vary memory=pinned,pageable)
same "sweep titan bandwidth, shapes and invalid points" "${titan[@]}"
same "sweep titan bandwidth, shapes and invalid points, JSON" "${titan[@]}" --format json
same "sweep titan bandwidth, --strict" "${titan[@]}" --strict
same "sweep titan bandwidth, interpreter" "${titan[@]}" --backend interp
same "sweep, an error in the command line" sweep machines/summit.gpm apps/jacobi2d.gpm --vary nosuch=1,2
same "sweep, a file that does not exist" sweep machines/summit.gpm apps/nosuch.gpm --vary n=1,2
# Searches: 20,736 orders of the 2D halo exchange, as a table, JSON and every order's makespan.
same "search halo2d, table" search machines/cs_storm_t2.gpm apps/halo2d_8gpu.gpm
same "search halo2d, JSON" search machines/cs_storm_t2.gpm apps/halo2d_8gpu.gpm --format json --threads 1
same "search halo2d, --orders-out" search machines/cs_storm_t2.gpm apps/halo2d_8gpu.gpm --orders-out @OUT
same "search, refused (--max-orders)" search machines/cs_storm_t2.gpm apps/halo2d_8gpu.gpm --max-orders 100
same "search, --orders-out cannot be written" search machines/cs_storm_t2.gpm apps/halo2d_8gpu.gpm \
  --orders-out "$work/no/such/folder.csv"

# A gpmc without the plugin refuses to run as several ranks, once, rather than each rank writing everything.
GPMC_MPI_PLUGIN=/nonexistent/gpmc_mpi.so "$MPIEXEC" -q --oversubscribe -np 2 "$GPMC" "${jacobi[@]}" \
  > "$work/refused.out" 2> "$work/refused.err"
status=$?
refusals=$(grep -c "built without MPI" "$work/refused.err")
if [ "$status" != 1 ] || [ -s "$work/refused.out" ] || [ "$refusals" != 1 ]; then
  echo "FAIL: without the plugin: exit status $status, stdout $(wc -c < "$work/refused.out") bytes, stderr:"
  cat "$work/refused.err"; fails=$((fails + 1))
else
  echo "ok: without the plugin, refused once: $(head -n1 "$work/refused.err")"
fi
[ "$fails" -eq 0 ] || { echo "FAIL: $fails of $((cases * 2 + 1)) comparisons"; exit 1; }
echo "PASS: $cases commands give the same bytes and exit status alone and with 2 and 4 ranks"
