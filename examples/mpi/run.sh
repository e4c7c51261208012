#!/bin/bash
# mpirun starts NP ranks of `rowflow reshard`; Open MPI sets
# OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE (and PMIX_RANK), MPICH's
# Hydra PMI_RANK and PMI_SIZE, and rowflow reads them. rowflow does not
# link MPI: the ranks share nothing but the output directory. When they
# have all finished, the output is committed.
#   NP=8 examples/mpi/run.sh
#   NP=8 MPIRUN_FLAGS="--hostfile hosts" examples/mpi/run.sh
# MPIRUN_FLAGS are given to mpirun as they are (Open MPI on a machine with
# fewer cores than ranks, as root: --oversubscribe --allow-run-as-root).
# The variables of examples/slurm/reshard-array.sbatch are used too:
# ROWFLOW, INPUT, OUTPUT, ROWS_PER_FILE, RESHARD_FLAGS, and ROWS.
set -euo pipefail
rowflow=${ROWFLOW:-rowflow}
out=${OUTPUT:-/shared/shards}
np=${NP:-8}
mpirun -n "$np" ${MPIRUN_FLAGS:-} "$rowflow" reshard -out "$out" -rows-per-file "${ROWS_PER_FILE:-1000000}" \
	${RESHARD_FLAGS--shuffle-window 64 -seed 7} "${INPUT:-/shared/input}"
"$rowflow" commit -world "$np" ${ROWS:+-rows "$ROWS"} "$out"
