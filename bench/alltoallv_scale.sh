#!/usr/bin/env bash
# alltoallv_scale.sh: times `gpmc eval` of bench/alltoallv_scale.gpm (an alltoallv whose `bytes` is evaluated for
# every pair of ranks) under the K-model on machines/summit.gpm and under the fabric model on
# machines/dgx_h100_cluster.gpm (128 nodes), at each rank count given, 3 runs each (wall seconds and the largest
# resident set, as GNU time reports them). Usage: bench/alltoallv_scale.sh [GPMC] [RANKS...]   (from the repository
# root; default ranks: 256 1024 2048 for the K-model, those up to 1024 for the fabric model). Then
# bench/alltoallv_distance.gpm (blocks that depend only on dst - src: evaluated once per distance, counted by runs of
# ranks) over 10^4, 10^5 and 10^6 ranks under the K-model, and 10^6 under postal and max-rate, 3 runs each.
set -eu
gpmc=${1:-build/gpmc}
shift || true
sizes=${*:-256 1024 2048}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# One run: its wall seconds and largest resident set.
run() { /usr/bin/time -f '%e s %M KB' -o "$out" "$gpmc" eval "$@" > /dev/null 2>&1; cat "$out"; }
for n in $sizes; do
  line="kmodel $n ranks:"
  for _ in 1 2 3; do
    line="$line $(run machines/summit.gpm bench/alltoallv_scale.gpm --set ranks="$n"),"
  done
  echo "$line"
done
for n in $sizes; do
  [ "$n" -gt 1024 ] && continue
  line="fabric $n ranks:"
  for _ in 1 2 3; do
    line="$line $(run machines/dgx_h100_cluster.gpm bench/alltoallv_scale.gpm --set ranks="$n" \
                  --set nodes_in_cluster=128),"
  done
  echo "$line"
done
for n in 10000 100000 1000000; do
  line="kmodel distance $n ranks:"
  for _ in 1 2 3; do
    line="$line $(run machines/summit.gpm bench/alltoallv_distance.gpm --set ranks="$n" --set comm_model=kmodel),"
  done
  echo "$line"
done
for model in postal maxrate; do
  line="$model distance 1000000 ranks:"
  for _ in 1 2 3; do
    line="$line $(run machines/summit.gpm bench/alltoallv_distance.gpm --set comm_model=$model),"
  done
  echo "$line"
done
