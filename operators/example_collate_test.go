package operators_test

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// Collate turns a batch of training examples into columns: each list
// field padded to its own width with its own value, the label a vector.
func ExampleCollate() {
	type Example struct {
		InputIDs []int32 `collate:"input_ids,left,multiple=4"`
		Labels   []int32 `collate:"labels,pad=-100"`
		Label    int64   `parquet:"label"`
		Text     string  // not a number: left out
	}
	rows := []Example{
		{InputIDs: []int32{5, 6, 7}, Labels: []int32{6, 7}, Label: 1, Text: "a"},
		{InputIDs: []int32{8}, Labels: nil, Label: 0, Text: "b"},
		{InputIDs: []int32{9, 10}, Labels: []int32{10}, Label: 1, Text: "c"},
	}
	p := flow.From(sources.Slice(rows)).
		Via(operators.Batch[Example](3)).
		Via(operators.Collate[Example]())
	for b, err := range flow.Values[operators.Collated](context.Background(), p) {
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, c := range b.Columns {
			fmt.Println(c.Name, c.Shape, c.Data, c.Lengths)
		}
		ids, _ := b.Column("input_ids")
		fmt.Println(ids.Mask[:4])
	}
	// Output:
	// input_ids [3 4] [0 5 6 7 0 0 0 8 0 0 9 10] [3 1 2]
	// labels [3 2] [6 7 -100 -100 10 -100] [2 0 1]
	// label [3] [1 0 1] []
	// [false true true true]
}
