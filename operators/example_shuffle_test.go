package operators_test

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// printEpochs prints a pipeline's values, one line per epoch.
func printEpochs(p *flow.Pipeline) {
	epoch := int64(-1)
	for it, err := range flow.Items[int](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if e := it.Epoch(); e != epoch {
			if epoch >= 0 {
				fmt.Println()
			}
			epoch = e
			fmt.Printf("epoch %d:", e)
		}
		fmt.Print(" ", it.Value)
	}
	fmt.Println()
}

func digits(n int) []int {
	v := make([]int, n)
	for i := range v {
		v[i] = i
	}
	return v
}

// Shuffle mixes rows through a buffer of 4 rows, differently in every
// epoch and the same way at every parallelism.
func ExampleShuffle() {
	p := flow.From(sources.Slice(digits(12), sources.PartitionItems(3))).Parallel(4).
		Via(operators.Shuffle[int](4)).
		Epochs(2).WithSeed(1)
	printEpochs(p)
	// Output:
	// epoch 0: 2 4 0 3 5 7 9 6 10 1 8 11
	// epoch 1: 3 1 2 6 5 0 7 4 10 8 11 9
}

// BlockShuffle mixes rows of 2 neighbouring partitions: no row moves more
// than two partitions.
func ExampleBlockShuffle() {
	p := flow.From(sources.Slice(digits(12), sources.PartitionItems(3))).
		Via(operators.BlockShuffle[int](2)).
		Epochs(2).WithSeed(1)
	printEpochs(p)
	// Output:
	// epoch 0: 2 0 1 3 7 4 6 5 8 10 9 11
	// epoch 1: 1 0 3 2 5 4 6 8 9 7 10 11
}

// IndexShuffle reads a random-access source in a new random order every
// epoch, holding no rows; each row keeps its ID.
func ExampleIndexShuffle() {
	p := flow.From(operators.IndexShuffle(sources.Slice(digits(12)), operators.PartitionItems(4))).Parallel(3).
		Epochs(2).WithSeed(1)
	printEpochs(p)
	// Output:
	// epoch 0: 4 10 0 3 9 7 1 5 2 11 8 6
	// epoch 1: 6 7 8 3 0 4 5 10 1 2 9 11
}
