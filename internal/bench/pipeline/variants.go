package main

import (
	"context"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/bench/mapfilter"
	"github.com/rowflow/rowflow/operators"
)

// The measured work is mapfilter's: map v → 3v, keep the even results,
// count them.

// defaultPartition is the default partition size of rowflow's source (-p).
const defaultPartition = mapfilter.Partition

// A variant is one implementation of the measured work. run returns the
// count for data.
type variant struct {
	name string
	desc string
	// small: the variant is slow and runs on the first -streams-n values.
	small bool
	run   func(ctx context.Context, data []int64) (int64, error)
}

// Names of the reference variants, which the table compares against.
const (
	nameHand      = "hand"
	nameHandFuncs = "hand-funcs"
	nameGoStreams = "gostreams"
	nameLoop      = "loop"
	nameRowflow   = "rowflow"
	nameItems     = "rowflow-items"
	nameValues    = "rowflow-values"
	nameItemIDs   = "rowflow-items-ids"
	nameMonitored = "rowflow-monitored"
)

// variants returns every variant, rowflow's first. part is the partition
// size of rowflow's slice source.
func variants(part int) []variant {
	rf := func(shape func(*flow.Pipeline) *flow.Pipeline) func(context.Context, []int64) (int64, error) {
		return func(ctx context.Context, data []int64) (int64, error) {
			return mapfilter.Rowflow(ctx, data, part, shape)
		}
	}
	return []variant{
		{name: nameRowflow, desc: "From(Slice).Via(Map).Parallel(2).Via(Filter).Parallel(2): map and filter fused on 2 workers, ordered merge, the source on its own goroutine",
			run: rf(headline)},
		{name: nameItems, desc: "as rowflow, counted in a loop over flow.Items instead of by sinks.Count", run: runItems(part)},
		{name: nameMonitored, desc: "as rowflow, observed by a flow.Monitor (per-stage counters on)", run: runMonitored(part)},
		{name: nameValues, desc: "as rowflow, counted in a loop over flow.Values", run: runValues(part)},
		{name: nameItemIDs, desc: "as rowflow-items, with a loop body that reads each item's row ID too", run: runItemIDs(part)},
		{name: "rowflow-unordered", desc: "as rowflow, with Unordered()",
			run: rf(func(p *flow.Pipeline) *flow.Pipeline {
				return p.Via(mapStage()).Parallel(2).Via(filterStage()).Parallel(2).Unordered()
			})},
		{name: "rowflow-parsrc", desc: "as rowflow, with the source fused into the 2 workers too (Parallel(2) on the source)",
			run: rf(func(p *flow.Pipeline) *flow.Pipeline { return fused(p, 2) })},
		{name: "rowflow-p1", desc: "source, map and filter on one goroutine (Parallel(1))",
			run: rf(func(p *flow.Pipeline) *flow.Pipeline { return fused(p, 1) })},
		{name: "rowflow-chunks", desc: "as rowflow, with the chunk-level MapChunks and FilterChunks: one call per 1024-value chunk",
			run: rf(func(p *flow.Pipeline) *flow.Pipeline {
				return mapfilter.Chunks(p)
			})},
		{name: "rowflow-filtermap", desc: "as rowflow, with one FilterMapChunks stage: one call and one pass per 1024-value chunk, as in (b)",
			run: rf(func(p *flow.Pipeline) *flow.Pipeline {
				return mapfilter.FilterMap(p)
			})},
		{name: nameHand, desc: "(b) hand-written: 1024-value chunks over channels, 2 workers, map and filter inlined", run: mapfilter.Hand},
		{name: nameHandFuncs, desc: "(b') as (b), calling the map and filter through the same function values rowflow's stages get", run: runHandFuncs},
		{name: nameGoStreams, desc: "(a) go-streams v0.13.0: NewMap and NewFilter at parallelism 2",
			small: true, run: runGoStreams},
		{name: nameLoop, desc: "(c) plain loop on one goroutine", run: runLoop},
	}
}

func mapStage() flow.Stage { return operators.Map(userMap) }

func filterStage() flow.Stage { return operators.Filter(userKeep) }

// fused runs the source, the map and the filter on w workers each; stages
// of equal parallelism are fused, so one worker takes a partition through
// all three.
func fused(p *flow.Pipeline, w int) *flow.Pipeline {
	return p.Parallel(w).Via(mapStage()).Parallel(w).Via(filterStage()).Parallel(w)
}

// runLoop is the work as one loop on one goroutine.
func runLoop(_ context.Context, data []int64) (int64, error) {
	var n int64
	for _, v := range data {
		if mapfilter.Even(mapfilter.Triple(v)) {
			n++
		}
	}
	return n, nil
}
