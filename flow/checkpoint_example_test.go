package flow_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// A loop takes a checkpoint after an item, stores it as JSON, and a later
// run, at another parallelism, resumes from it with exactly the rest.
func ExampleTracker() {
	ctx := context.Background()
	build := func(workers int) *flow.Pipeline {
		xs := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
		return flow.From(sources.Slice(xs, sources.PartitionItems(3))).
			Via(operators.Map(func(x int) (int, error) { return 10 * x, nil })).Parallel(workers).
			Via(operators.Shuffle[int](4)).
			WithSeed(1)
	}

	t := new(flow.Tracker)
	var saved []byte
	for v, err := range flow.Values[int](ctx, build(1).Checkpoints(t)) {
		if err != nil {
			panic(err)
		}
		fmt.Print(v, " ")
		if v == 50 {
			ck, _ := t.Checkpoint()
			saved, _ = json.Marshal(ck)
			break // the job stops here
		}
	}
	fmt.Println("| stopped")

	var ck flow.Checkpoint
	if err := json.Unmarshal(saved, &ck); err != nil {
		panic(err)
	}
	for v, err := range flow.Values[int](ctx, build(3).Resume(ck)) {
		if err != nil {
			panic(err)
		}
		fmt.Print(v, " ")
	}
	fmt.Println("| resumed")

	for v := range flow.Values[int](ctx, build(2)) {
		fmt.Print(v, " ")
	}
	fmt.Println("| uninterrupted")
	// Output:
	// 20 10 50 | stopped
	// 60 70 80 0 100 40 30 90 110 | resumed
	// 20 10 50 60 70 80 0 100 40 30 90 110 | uninterrupted
}
