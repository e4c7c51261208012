package flow_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// From starts a pipeline; each Via adds a stage and Parallel runs it on
// several workers. The output keeps the serial order.
func ExampleFrom() {
	words := []string{"serial", "order", "", "at", "any", "", "parallelism"}
	p := flow.From(sources.Slice(words, sources.PartitionItems(2))).
		Via(operators.Filter(func(w string) bool { return w != "" })).Parallel(3).
		Via(operators.Map(func(w string) (string, error) { return strings.ToUpper(w), nil })).Parallel(3)
	for w, err := range flow.Values[string](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(w)
	}
	// Output:
	// SERIAL
	// ORDER
	// AT
	// ANY
	// PARALLELISM
}

// Items gives every value with its partition's partition number and its row
// ID; a map keeps the IDs its input had.
func ExampleItems() {
	p := flow.From(sources.Slice([]int{10, 20, 30}, sources.PartitionItems(2))).
		Via(operators.Map(func(v int) (int, error) { return v + 1, nil }))
	for it, err := range flow.Items[int](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(it.Part, it.ID, it.Value)
	}
	// Output:
	// 0 cd222931b549812e6f496e2ccd73e91a 11
	// 0 cd222930ed49812e6f496e2ca573e91a 21
	// 1 cd2229302549812e6f496e2c7d73e91a 31
}

// Run runs a pipeline that ends in a sink and returns the first error.
func ExamplePipeline_Run() {
	var squares []int
	err := flow.From(sources.Slice([]int{1, 2, 3, 4, 5}, sources.PartitionItems(2))).
		Via(operators.Map(func(v int) (int, error) { return v * v, nil })).Parallel(2).
		To(sinks.CollectValues(&squares)).
		Run(context.Background())
	fmt.Println(squares, err)

	// A failing function fails the run, naming the stage, partition and row.
	err = flow.From(sources.Slice([]int{1, 2, 3, 4, 5}, sources.PartitionItems(2))).
		Via(operators.Map(func(v int) (int, error) {
			if v == 4 {
				return 0, fmt.Errorf("%d is unlucky", v)
			}
			return v, nil
		})).Parallel(2).
		To(sinks.CollectValues(new([]int))).
		Run(context.Background())
	fmt.Println(err)
	// Output:
	// [1 4 9 16 25] <nil>
	// flow: stage "map", partition 1, row cd22292f5d49812e6f496e2c5573e91a: 4 is unlucky
}

// Mistakes made while building are kept, not panicked: the pipeline
// reports the first one, and running it returns it.
func ExamplePipeline_Err() {
	p := flow.From(sources.Slice([]int{1, 2, 3})).
		Via(operators.Take[int](2)).Parallel(4)
	fmt.Println(p.Err())
	fmt.Println(p.To(sinks.CollectValues(new([]int))).Run(context.Background()) == p.Err())
	// Output:
	// flow: stage "take" cannot run in parallel: it counts values across partitions
	// true
}
