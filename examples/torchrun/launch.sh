#!/bin/bash
# torchrun starts NPROC ranks of `rowflow reshard` on this node with RANK,
# WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE set, which rowflow reads.
# On one node:
#   NPROC=8 examples/torchrun/launch.sh
# On each of NNODES nodes, the same command with the node's rank and the
# address of node 0:
#   NNODES=2 NPROC=4 NODE_RANK=0 MASTER_ADDR=node0.example examples/torchrun/launch.sh
# The node of rank 0 commits the output when its ranks are done, which is
# once every node's are: torchrun ends a run when all its workers have.
#
# The flags are spelt with underscores and -r 1 -t 2 are given, so that the
# script runs with torch 1.13 (Debian 12's python3-torch) as well as 2.x.
# Each rank's standard output, the line "rank R of W (...): N rows ...",
# goes to LOG_DIR/<run id>/attempt_0/<local rank>/stdout.log.
#
# The variables of examples/slurm/reshard-array.sbatch are used too:
# ROWFLOW, INPUT, OUTPUT, ROWS_PER_FILE, RESHARD_FLAGS, and ROWS.
#
# Given a command, the script runs it under torchrun instead of reshard,
# and commits nothing: the Go loader of examples/torchrun/loader, say:
#   NPROC=3 examples/torchrun/launch.sh ./loader -data /shared/input
set -euo pipefail
rowflow=${ROWFLOW:-rowflow}
out=${OUTPUT:-/shared/shards}
nnodes=${NNODES:-1}
nproc=${NPROC:-8}
if [ "$nnodes" = 1 ]; then
	where=(--standalone)
else
	where=(--node_rank "${NODE_RANK:?NODE_RANK is needed with NNODES > 1}"
		--master_addr "${MASTER_ADDR:?MASTER_ADDR is needed with NNODES > 1}" --master_port "${MASTER_PORT:-29500}")
fi
launch=(torchrun --nnodes "$nnodes" --nproc_per_node "$nproc" "${where[@]}"
	--log_dir "${LOG_DIR:-torchrun-logs}" -r 1 -t 2 --no_python)
if [ $# -gt 0 ]; then
	exec "${launch[@]}" "$@"
fi
"${launch[@]}" "$rowflow" reshard -out "$out" -rows-per-file "${ROWS_PER_FILE:-1000000}" \
	${RESHARD_FLAGS--shuffle-window 64 -seed 7} "${INPUT:-/shared/input}"
if [ "${NODE_RANK:-0}" = 0 ]; then
	"$rowflow" commit -world $((nnodes * nproc)) ${ROWS:+-rows "$ROWS"} "$out"
fi
