package determinism_test

import (
	"context"
	"fmt"
	"log"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// Verify runs a pipeline at parallelism 1 and at others and compares the
// streams item by item.
func ExampleVerify() {
	build := func(n int) *flow.Pipeline {
		return flow.From(sources.Generate(10000, func(i int64) (int64, error) { return i, nil },
			sources.PartitionItems(500))).
			Via(operators.Filter(func(v int64) bool { return v%3 != 0 })).Parallel(n).
			Via(operators.Map(func(v int64) (string, error) { return fmt.Sprint(v * v), nil })).Parallel(n)
	}
	fmt.Println(determinism.Verify[string](context.Background(), build, determinism.Runs(2)))
	// Output:
	// <nil>
}

// A pipeline whose output depends on its parallelism fails with the first
// item that differs.
func ExampleVerify_divergence() {
	build := func(n int) *flow.Pipeline {
		return flow.From(sources.Generate(100, func(i int64) (int64, error) {
			if i == 42 && n == 3 {
				return -1, nil
			}
			return i, nil
		}, sources.PartitionItems(10))).Parallel(n)
	}
	err := determinism.Verify[int64](context.Background(), build)
	fmt.Println(err)
	// Output:
	// determinism: item 42 differs (value): parallelism 1 has partition 4, row 570a1fc1e751928821ca6809920b8298, value 42; parallelism 3 (round 1) has partition 4, row 570a1fc1e751928821ca6809920b8298, value -1
}

func ExampleHasher() {
	h := determinism.NewHasher[string]()
	for i, v := range []string{"a", "b"} {
		if err := h.Add(rowid.Ordinal(uint64(i)), v); err != nil {
			log.Fatal(err)
		}
	}
	sum := h.Sum()
	fmt.Println(sum.Count, sum)
	// Output:
	// 2 3a7a0ae1d752da978e1ea39fb2e34670771795aac774f217eb7f5b55a2041d01
}
