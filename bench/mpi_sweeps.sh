#!/usr/bin/env bash
# mpi_sweeps.sh: the communication what-ifs of docs/validation.md, by looping `gpmc eval --set` (ranks per node,
# ranks and mapping shape the communication engine, so `gpmc sweep` does not vary them). Prints the communication
# time per iteration of each point. Usage: bench/mpi_sweeps.sh [GPMC]   (from the repository root)
set -eu
gpmc=${1:-build/gpmc}
comm() {  # the communication part per iteration, from the table's last summary line
  "$gpmc" eval "$@" | sed -n 's/^per iteration .*communication \([^,]*\),.*/\1/p'
}

echo "== E2E section 6.1: Jacobi2D on Lassen's fits, 256 ranks, GPUs per node 1..16 (two sockets)"
printf '%-14s %-12s %-12s %-12s\n' "gpus/node" postal maxrate kmodel
for g in 1 2 4 8 16; do
  printf '%-14s' "$g"
  for m in postal maxrate kmodel; do
    printf ' %-12s' "$(comm machines/lassen.gpm apps/jacobi2d.gpm --set ranks=256 --set gpus_per_node=$g --set comm_model=$m)"
  done
  echo
done

echo "== GPUDirect paper section V: synthetic Minisweep on Lassen's fits, 1, 2, 4, 6 ranks per node (max-rate)"
printf '%-8s %-14s %-14s %-14s %-14s\n' ranks "1/node" "2/node" "4/node" "6/node"
for r in 32 64 128 256; do
  printf '%-8s' "$r"
  for g in 1 2 4 6; do
    printf ' %-14s' "$(comm machines/lassen.gpm apps/minisweep.gpm --set ranks=$r --set gpus_per_node=$g --set comm_model=maxrate)"
  done
  echo
done

echo "== GPUDirect versus host-staged: the synthetic apps on Lassen, 4 ranks per node, K-model"
printf '%-10s %-8s %-14s %-14s\n' app ranks staged gpudirect
for app in minisweep sw4lite lulesh amgx; do
  sizes="32 64 128 256"
  [ "$app" = lulesh ] && sizes="27 64 125 216"   # LULESH runs on cubes (GPUD section IV)
  for r in $sizes; do
    printf '%-10s %-8s %-14s %-14s\n' "$app" "$r" \
      "$(comm machines/lassen.gpm apps/$app.gpm --set ranks=$r --set transport=staged)" \
      "$(comm machines/lassen.gpm apps/$app.gpm --set ranks=$r --set transport=gpudirect)"
  done
done

echo "== GPUDirect versus host-staged on the GPUDirect paper's fat tree (fattree_edr), 4 ranks per node"
printf '%-10s %-8s %-14s %-14s %-14s %-14s\n' app ranks "staged kmodel" "gpud kmodel" "staged maxrate" "gpud maxrate"
for app in minisweep sw4lite lulesh amgx; do
  sizes="32 256"
  [ "$app" = lulesh ] && sizes="27 216"
  for r in $sizes; do
    printf '%-10s %-8s' "$app" "$r"
    for m in kmodel maxrate; do
      for t in staged gpudirect; do
        printf ' %-14s' "$(comm machines/fattree_edr.gpm apps/$app.gpm --set ranks=$r --set transport=$t --set comm_model=$m)"
      done
    done
    echo
  done
done

echo "== GPUDirect versus host-staged on the fabric: the same fat tree node by node (fattree_edr_cluster), 4 ranks per node"
printf '%-10s %-8s %-14s %-14s\n' app ranks staged gpudirect
for app in minisweep sw4lite lulesh amgx; do
  sizes="32 256"
  [ "$app" = lulesh ] && sizes="27 216"
  for r in $sizes; do
    printf '%-10s %-8s %-14s %-14s\n' "$app" "$r" \
      "$(comm machines/fattree_edr_cluster.gpm apps/$app.gpm --set ranks=$r --set transport=staged)" \
      "$(comm machines/fattree_edr_cluster.gpm apps/$app.gpm --set ranks=$r --set transport=gpudirect)"
  done
done
