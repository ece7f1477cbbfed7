#!/usr/bin/env bash
# mpi_scale.sh: times `gpmc eval` of a halo exchange and an allreduce over 10^6 ranks (bench/mpi_million.gpm on
# machines/summit.gpm): 2D (1000 x 1000, 4 neighbours) and 3D (100^3, 26 neighbours), each model, 3 runs each
# (wall seconds, as bash's `time` reports them); then the long-message collectives of
# bench/mpi_million_collectives.gpm, each model, 3 runs; then Open MPI's base algorithms of
# bench/mpi_million_openmpi.gpm, the K-model, 3 runs. Usage: bench/mpi_scale.sh [GPMC]   (from the repository root)
set -eu
gpmc=${1:-build/gpmc}
TIMEFORMAT=%R
for dims in 2 3; do
  for model in postal maxrate kmodel; do
    times=""
    for _ in 1 2 3; do
      t=$( { time "$gpmc" eval machines/summit.gpm bench/mpi_million.gpm --set dims=$dims --set comm_model=$model \
             > /dev/null; } 2>&1 )
      times="$times $t"
    done
    echo "${dims}D $model:$times s"
  done
done
# The long-message collectives (pipelined bcast and reduce, scatter-allgather bcast, both reduce-scatters).
for model in postal maxrate kmodel; do
  times=""
  for _ in 1 2 3; do
    t=$( { time "$gpmc" eval machines/summit.gpm bench/mpi_million_collectives.gpm --set comm_model=$model \
           > /dev/null; } 2>&1 )
    times="$times $t"
  done
  echo "collectives $model:$times s"
done
# Open MPI's base algorithms (trees, a chain, linear ones, the neighbour exchange, the butterfly), nine operations.
times=""
for _ in 1 2 3; do
  t=$( { time "$gpmc" eval machines/summit.gpm bench/mpi_million_openmpi.gpm > /dev/null; } 2>&1 )
  times="$times $t"
done
echo "openmpi algorithms kmodel:$times s"
