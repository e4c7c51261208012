package main

import (
	"context"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
)

// runMonitored is the headline variant observed by a flow.Monitor: every
// stage counts its chunks, items and times, so the table shows what
// leaving the counters on costs.
func runMonitored(part int) func(context.Context, []int64) (int64, error) {
	return func(ctx context.Context, data []int64) (int64, error) {
		m := &flow.Monitor{}
		var n int64
		err := pipelineOf(data, part).To(sinks.Count[int64](&n)).Run(flow.WithMonitor(ctx, m))
		if s := m.Snapshot(); err == nil && s.Stages[len(s.Stages)-1].ItemsIn != n {
			panic("bench: the monitor's count differs from the sink's")
		}
		return n, err
	}
}
