package main

import (
	"context"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// The measured work: map v → 3v, keep the even results, count them. Over
// the values 0 … n-1, 3v is even exactly when v is, so the count is
// (n+1)/2: n/2 for even n. Every variant checks it.

func triple(v int64) int64 { return v * 3 }

func even(v int64) bool { return v%2 == 0 }

// chunkSize is the number of values per chunk in rowflow and in the
// hand-written pipeline; defaultPartition is the default partition size of
// rowflow's source (-p): 64 chunks.
const (
	chunkSize        = 1024
	defaultPartition = 65536
)

// want returns the count every variant must produce for data(n).
func want(n int) int64 { return int64(n+1) / 2 }

// data returns the values 0 … n-1.
func data(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i)
	}
	return s
}

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
			return runRowflow(ctx, data, part, shape)
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
				return p.Via(operators.MapChunks(userMapChunk)).Parallel(2).Via(operators.FilterChunks(userKeepChunk)).Parallel(2)
			})},
		{name: "rowflow-filtermap", desc: "as rowflow, with one FilterMapChunks stage: one call and one pass per 1024-value chunk, as in (b)",
			run: rf(func(p *flow.Pipeline) *flow.Pipeline {
				return p.Via(operators.FilterMapChunks(userMapFilterChunk)).Parallel(2)
			})},
		{name: nameHand, desc: "(b) hand-written: 1024-value chunks over channels, 2 workers, map and filter inlined", run: runHand},
		{name: nameHandFuncs, desc: "(b') as (b), calling the map and filter through the same function values rowflow's stages get", run: runHandFuncs},
		{name: nameGoStreams, desc: "(a) go-streams v0.13.0: NewMap and NewFilter at parallelism 2",
			small: true, run: runGoStreams},
		{name: nameLoop, desc: "(c) plain loop on one goroutine", run: runLoop},
	}
}

// userMapChunk and userKeepChunk are the work as chunk-level functions.
var (
	userMapChunk = func(in, out []int64) error {
		out = out[:len(in)]
		for k, v := range in {
			out[k] = triple(v)
		}
		return nil
	}
	userKeepChunk = func(vals []int64, kept []uint32) ([]uint32, error) {
		kept = kept[:len(vals)] // FilterChunks gives room for every position
		j := 0
		for k, v := range vals {
			kept[j] = uint32(k)
			if even(v) {
				j++
			}
		}
		return kept[:j], nil
	}
	// userMapFilterChunk is the loop of (b)'s mapFilter, recording the
	// positions of the values it keeps.
	userMapFilterChunk = func(in, out []int64, kept []uint32) ([]uint32, error) {
		kept = kept[:len(in)] // FilterMapChunks gives room for every position
		j := 0
		for k, v := range in {
			if v = triple(v); even(v) {
				out[j] = v
				kept[j] = uint32(k)
				j++
			}
		}
		return kept[:j], nil
	}
)

func mapStage() flow.Stage { return operators.Map(userMap) }

func filterStage() flow.Stage { return operators.Filter(userKeep) }

// fused runs the source, the map and the filter on w workers each; stages
// of equal parallelism are fused, so one worker takes a partition through
// all three.
func fused(p *flow.Pipeline, w int) *flow.Pipeline {
	return p.Parallel(w).Via(mapStage()).Parallel(w).Via(filterStage()).Parallel(w)
}

// runRowflow reads data with a slice source of partition size part and
// chunks of chunkSize, shapes the pipeline and counts its output.
func runRowflow(ctx context.Context, data []int64, part int, shape func(*flow.Pipeline) *flow.Pipeline) (int64, error) {
	var n int64
	src := sources.Slice(data, sources.PartitionSize(part), sources.ChunkSize(chunkSize))
	p := shape(flow.From(src))
	err := p.To(sinks.Count[int64](&n)).Run(ctx)
	return n, err
}

// runLoop is the work as one loop on one goroutine.
func runLoop(_ context.Context, data []int64) (int64, error) {
	var n int64
	for _, v := range data {
		if even(triple(v)) {
			n++
		}
	}
	return n, nil
}
