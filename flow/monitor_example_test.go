package flow_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// A monitor counts what every stage took in and pushed on; Snapshot reads
// the counters during the run or, as here, after it.
func ExampleMonitor() {
	m := &flow.Monitor{}
	var n int64
	err := flow.From(sources.Slice(ints(10000), sources.PartitionItems(1000), sources.Named("numbers"))).
		Via(operators.Filter(func(v int64) bool { return v%4 == 0 })).Parallel(2).
		Via(operators.Map(func(v int64) (int64, error) { return v / 4, nil })).Parallel(2).
		To(sinks.Count[int64](&n)).
		Run(flow.WithMonitor(context.Background(), m))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range m.Snapshot().Stages {
		fmt.Printf("%-8s workers %d, items in %5d, out %5d, chunks in %2d\n",
			st.Name, st.Workers, st.ItemsIn, st.ItemsOut, st.ChunksIn)
	}
	// Output:
	// numbers  workers 1, items in     0, out 10000, chunks in  0
	// filter   workers 2, items in 10000, out  2500, chunks in 10
	// map      workers 2, items in  2500, out  2500, chunks in 10
	// count    workers 1, items in  2500, out     0, chunks in 10
}

// A progress callback, as a command line would draw a bar with it. The
// reports during the run depend on timing; the last one, made when the
// run has ended, does not.
func ExampleMonitor_progress() {
	m := &flow.Monitor{TotalRows: 5000, ProgressEvery: time.Second / 10, OnProgress: func(s flow.Stats) {
		if s.Ended {
			fmt.Printf("%d of %d rows, %d delivered\n", s.Rows, s.TotalRows, s.Delivered)
		}
	}}
	p := flow.From(sources.Slice(ints(5000))).
		Via(operators.Filter(func(v int64) bool { return v%2 == 0 }))
	for _, err := range flow.Values[int64](flow.WithMonitor(context.Background(), m), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output: 5000 of 5000 rows, 2500 delivered
}
