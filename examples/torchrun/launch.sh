#!/bin/bash
# torchrun starts one process per rank with RANK and WORLD_SIZE set;
# `rowflow reshard` reads them. On each of 2 nodes:
#   examples/torchrun/launch.sh <node-rank> <master-address>
# then, once all ranks are done:
#   rowflow commit -world 8 /shared/shards
set -euo pipefail
torchrun --nnodes=2 --nproc-per-node=4 --node-rank="$1" \
	--master-addr="$2" --master-port=29500 \
	--no-python rowflow reshard -out /shared/shards -rows-per-file 1000000 \
	-shuffle-window 64 -seed 7 /shared/input
