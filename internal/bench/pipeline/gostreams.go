package main

import (
	"context"

	"github.com/reugn/go-streams/extension"
	gsflow "github.com/reugn/go-streams/flow"
	"github.com/rowflow/rowflow/internal/bench/mapfilter"
)

// runGoStreams is the work in go-streams: a channel source fed one value
// at a time, Map and Filter at parallelism 2, and a channel sink whose
// values are counted. go-streams takes no context; the run cannot be
// cancelled.
func runGoStreams(_ context.Context, data []int64) (int64, error) {
	in, out := make(chan any), make(chan any)
	go func() {
		defer close(in)
		for _, v := range data {
			in <- v
		}
	}()
	count := make(chan int64)
	go func() {
		var n int64
		for range out {
			n++
		}
		count <- n
	}()
	// To returns once the filter has closed out.
	extension.NewChanSource(in).
		Via(gsflow.NewMap(mapfilter.Triple, 2)).
		Via(gsflow.NewFilter(mapfilter.Even, 2)).
		To(extension.NewChanSink(out))
	return <-count, nil
}
