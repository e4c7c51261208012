package flow_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// Three consumers read one run in parallel, each taking whole partitions
// as it needs them. Put back together and stable-sorted by batch, their
// items are the serial stream.
func ExampleCursors() {
	p := flow.From(sources.Slice(ints(100), sources.PartitionItems(10))).
		Via(operators.Map(func(v int64) (int64, error) { return v * v, nil })).Parallel(2)
	set, err := flow.Cursors[int64](context.Background(), p, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()

	got := make([][]flow.Item[int64], 3)
	var wg sync.WaitGroup
	for i, c := range set.Cursors() {
		wg.Go(func() {
			for it, err := range c.All() { // a training thread, a writer …
				if err != nil {
					fmt.Println(err)
					return
				}
				got[i] = append(got[i], it)
			}
		})
	}
	wg.Wait()

	all := slices.Concat(got...)
	slices.SortStableFunc(all, func(a, b flow.Item[int64]) int { return int(a.Part - b.Part) })
	var serial []flow.Item[int64]
	for it, err := range flow.Items[int64](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		serial = append(serial, it)
	}
	fmt.Println(len(all), slices.Equal(all, serial), all[99].Value)
	// Output: 100 true 9801
}

// Consolidate reads a cursor set back as the serial stream.
func ExampleCursorSet_Consolidate() {
	p := flow.From(sources.Slice(ints(12), sources.PartitionItems(4))).
		Via(operators.Filter(func(v int64) bool { return v%3 != 0 })).Parallel(3)
	set, err := flow.Cursors[int64](context.Background(), p, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()
	for it, err := range set.Consolidate() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(it.Part, ":", it.Value, " ")
	}
	fmt.Println()
	// Output: 0:1 0:2 1:4 1:5 1:7 2:8 2:10 2:11
}
