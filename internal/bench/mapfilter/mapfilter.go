// Package mapfilter is the Map→Filter work that rowflow's benchmark
// commands measure: map v → 3v, keep the even results, count them. It
// holds the work's data, its expected count, the hand-written chunk
// pipeline that rowflow is compared with, the chunk-level user functions
// and the rowflow pipeline that runs them.
//
// Over the values 0 … n-1, 3v is even exactly when v is, so the count is
// (n+1)/2. Every variant checks it.
package mapfilter

import (
	"context"
	"sync"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// Triple is the map.
func Triple(v int64) int64 { return v * 3 }

// Even is the filter.
func Even(v int64) bool { return v%2 == 0 }

// ChunkSize is the number of values per chunk in rowflow and in the
// hand-written pipeline; Partition is the partition size of rowflow's
// source: 64 chunks.
const (
	ChunkSize = 1024
	Partition = 65536
)

// Want returns the count every variant must produce for Data(n).
func Want(n int) int64 { return int64(n+1) / 2 }

// Data returns the values 0 … n-1.
func Data(n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = int64(i)
	}
	return s
}

const (
	handWorkers = 2
	handBuffers = 4 * handWorkers // buffers in circulation
)

// Hand is the work as a hand-written channel pipeline: a producer copies
// data into recycled buffers, workers map and filter each buffer in
// place, and the caller's goroutine counts the kept values and hands the
// buffers back to the producer. Chunks arrive in whatever order the
// workers finish them.
func Hand(ctx context.Context, data []int64) (int64, error) {
	return HandPipeline(ctx, data, mapFilter)
}

// HandPipeline is Hand with mapFilter doing the work on each buffer: it
// maps a buffer in place and returns the kept values at its front.
func HandPipeline(_ context.Context, data []int64, mapFilter func([]int64) []int64) (int64, error) {
	free := make(chan []int64, handBuffers)
	for range handBuffers {
		free <- make([]int64, ChunkSize)
	}
	work := make(chan []int64, handWorkers)
	done := make(chan []int64, handWorkers)

	go func() {
		defer close(work)
		for lo := 0; lo < len(data); lo += ChunkSize {
			buf := <-free
			work <- buf[:copy(buf, data[lo:])]
		}
	}()
	var wg sync.WaitGroup
	for range handWorkers {
		wg.Go(func() {
			for buf := range work {
				done <- mapFilter(buf)
			}
		})
	}
	go func() {
		wg.Wait()
		close(done)
	}()

	var n int64
	for buf := range done {
		n += int64(len(buf))
		free <- buf[:ChunkSize]
	}
	return n, nil
}

// mapFilter maps buf in place and keeps the even results at its front.
func mapFilter(buf []int64) []int64 {
	j := 0
	for _, v := range buf {
		if v = Triple(v); Even(v) {
			buf[j] = v
			j++
		}
	}
	return buf[:j]
}

// MapChunk and KeepChunk are the work as the chunk-level functions of
// operators.MapChunks and FilterChunks; MapFilterChunk as the one of
// FilterMapChunks: mapFilter's loop, recording the positions it keeps.
var (
	MapChunk = func(in, out []int64) error {
		out = out[:len(in)]
		for k, v := range in {
			out[k] = Triple(v)
		}
		return nil
	}
	KeepChunk = func(vals []int64, kept []uint32) ([]uint32, error) {
		kept = kept[:len(vals)] // FilterChunks gives room for every position
		j := 0
		for k, v := range vals {
			kept[j] = uint32(k)
			if Even(v) {
				j++
			}
		}
		return kept[:j], nil
	}
	MapFilterChunk = func(in, out []int64, kept []uint32) ([]uint32, error) {
		kept = kept[:len(in)] // FilterMapChunks gives room for every position
		j := 0
		for k, v := range in {
			if v = Triple(v); Even(v) {
				out[j] = v
				kept[j] = uint32(k)
				j++
			}
		}
		return kept[:j], nil
	}
)

// Chunks is the work as MapChunks then FilterChunks on 2 workers.
func Chunks(p *flow.Pipeline) *flow.Pipeline {
	return p.Via(operators.MapChunks(MapChunk)).Parallel(2).Via(operators.FilterChunks(KeepChunk)).Parallel(2)
}

// FilterMap is the work as one FilterMapChunks stage on 2 workers.
func FilterMap(p *flow.Pipeline) *flow.Pipeline {
	return p.Via(operators.FilterMapChunks(MapFilterChunk)).Parallel(2)
}

// Rowflow reads data with a slice source of partition size part and
// chunks of ChunkSize, shapes the pipeline and counts its output.
func Rowflow(ctx context.Context, data []int64, part int, shape func(*flow.Pipeline) *flow.Pipeline) (int64, error) {
	var n int64
	src := sources.Slice(data, sources.PartitionItems(part), sources.ChunkSize(ChunkSize))
	err := shape(flow.From(src)).To(sinks.Count[int64](&n)).Run(ctx)
	return n, err
}
