#!/usr/bin/env bash
# fabric_scale.sh: times `gpmc eval` of collectives on machines/dgx_h100_cluster.gpm (8 ranks per node, rail fabric)
# from 10^3 to 10^6 ranks under the fabric and nccl models, with the fast path (docs/models.md section 9.8) and
# without it (GPMC_FABRIC_FAST_PATH=off: every flow built, as before the fast path). Wall seconds of the whole
# command (bash's `time`), one run each; a run past LIMIT seconds (default 60) is stopped and shown as `>LIMIT`, a
# refused model as `refused` (its first diagnostic on stderr); the all-to-all only up to 8,192 ranks.
# Usage: bench/fabric_scale.sh [GPMC] [RANKS...]   (from the repository root; default ranks 1024 8192 65536 1000000)
set -u
gpmc=${1:-build/gpmc}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1024 8192 65536 1000000)
limit=${LIMIT:-60}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
TIMEFORMAT=%R
# name|extra attributes: the fabric model's schedules; the nccl model takes no `algorithm` here (its tuner chooses).
fabric_ops=("allreduce|algorithm = ring" "allreduce|algorithm = recursive_doubling" "allgather|algorithm = ring"
            "alltoall|algorithm = pairwise" "bcast|algorithm = binomial_tree")
nccl_ops=("allreduce|" "allgather|" "alltoall|" "bcast|")
echo "| model | operation | ranks | nodes | fast path (s) | every flow (s) |"
echo "|---|---|---:|---:|---:|---:|"
run() {  # run ENV_VALUE MACHINE APP SETTINGS...: prints seconds, >LIMIT or refused
  local env=$1 app=$2
  shift 2
  local t
  t=$( { time GPMC_FABRIC_FAST_PATH=$env timeout "$limit" "$gpmc" eval machines/dgx_h100_cluster.gpm "$app" "$@" \
         > "$dir/out" 2> "$dir/err"; } 2>&1 )
  local rc=$?
  if [ $rc -eq 124 ]; then echo ">$limit"
  elif [ $rc -ne 0 ] || grep -q '^error' "$dir/err" 2>/dev/null; then
    echo "refused"; sed -n 's/^.*error: //p' "$dir/err" | head -1 >&2
  else echo "$t"; fi
}
for model in fabric nccl; do
  if [ "$model" = fabric ]; then ops=("${fabric_ops[@]}"); else ops=("${nccl_ops[@]}"); fi
  for op in "${ops[@]}"; do
    name=${op%%|*}
    extra=${op#*|}
    for ranks in "${sizes[@]}"; do
      nodes=$(( (ranks + 7) / 8 ))
      if [ "$name" = alltoall ] && [ "$ranks" -gt 8192 ]; then
        # Its p - 1 rounds list p (p - 1) messages before the flows are counted: tens of GB from 65,536 ranks on.
        echo "| $model | $name${extra:+ (${extra#algorithm = })} | $ranks | $nodes | not run | not run |"
        continue
      fi
      echo "app scale { mpi $name { ranks = $ranks; bytes = 64 MiB${extra:+; $extra} } }" > "$dir/app.gpm"
      fast=$(run on "$dir/app.gpm" --set nodes_in_cluster=$nodes --set comm_model=$model)
      full=$(run off "$dir/app.gpm" --set nodes_in_cluster=$nodes --set comm_model=$model)
      echo "| $model | $name${extra:+ (${extra#algorithm = })} | $ranks | $nodes | $fast | $full |"
    done
  done
done
