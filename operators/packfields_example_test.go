package operators_test

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// PackFields packs training examples into rows of 6 tokens, each label
// going with its token, a sequence too long for a row cut into pieces.
func ExamplePackFields() {
	type Example struct {
		InputIDs []int32 `collate:"input_ids,tokens"`
		Labels   []int32 `collate:"labels,pad=-100"`
		Weight   float32 `collate:"weight"`
	}
	rows := []Example{
		{InputIDs: []int32{1, 2, 3}, Labels: []int32{2, 3, 4}, Weight: 1},
		{InputIDs: []int32{5, 6, 7, 8, 9, 10, 11, 12}, Labels: []int32{6, 7, 8, 9, 10, 11, 12, 13}, Weight: 0.5},
		{InputIDs: []int32{14, 15}, Labels: []int32{15, 16}, Weight: 2},
	}
	p := flow.From(sources.Slice(rows)).Via(operators.PackFields[Example](6))
	for r, err := range flow.Values[operators.PackedColumns](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, c := range r.Columns {
			fmt.Println(c.Name, c.Data)
		}
		fmt.Println("segments", r.Segments, "positions", r.Positions, "offsets", r.Offsets)
	}
	// Output:
	// input_ids [5 6 7 8 9 10]
	// labels [6 7 8 9 10 11]
	// weight [0.5]
	// segments [1 1 1 1 1 1] positions [0 1 2 3 4 5] offsets [0]
	// input_ids [1 2 3 11 12 0]
	// labels [2 3 4 12 13 -100]
	// weight [1 0.5]
	// segments [1 1 1 2 2 0] positions [0 1 2 0 1 0] offsets [0 6]
	// input_ids [14 15 0 0 0 0]
	// labels [15 16 -100 -100 -100 -100]
	// weight [2]
	// segments [1 1 0 0 0 0] positions [0 1 0 0 0 0] offsets [0]
}
