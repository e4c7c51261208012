package determinism_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
)

// Compare finds the first item, and the first field of its value, where
// two pipelines differ.
func ExampleCompare() {
	type Row struct {
		Name   string
		Scores []int
	}
	rows := []Row{{"a", []int{1, 2, 3}}, {"b", []int{4, 5, 6}}}
	changed := []Row{{"a", []int{1, 2, 3}}, {"b", []int{4, 50, 6}}}
	err := determinism.Compare[Row](context.Background(), flow.From(sources.Slice(rows)), flow.From(sources.Slice(changed)))
	var d *determinism.Divergence
	if errors.As(err, &d) {
		fmt.Println(d.Position, d.Path)
		fmt.Println(err.Error()[strings.Index(err.Error(), "; the values"):])
	}
	// Output:
	// 1 .Scores[1]
	// ; the values first differ at .Scores[1]: the first pipeline has 5, the second pipeline has 50
}

// CheckGolden, in a test, compares a pipeline's stream with a golden file,
// or rewrites the file when the test's -update flag is set.
func ExampleCheckGolden() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "golden")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "squares.golden")
	squares := func(last int64) *flow.Pipeline {
		return flow.From(sources.Generate(1000, func(i int64) (int64, error) {
			if i == 999 {
				return last, nil
			}
			return i * i, nil
		}, sources.PartitionItems(100)))
	}
	update := true // *update, from flag.Bool("update", false, "rewrite golden files")
	fmt.Println(determinism.CheckGolden[int64](ctx, squares(998001), path, update))
	fmt.Println(determinism.CheckGolden[int64](ctx, squares(998001), path, false))
	err = determinism.CheckGolden[int64](ctx, squares(0), path, false)
	fmt.Println(errors.Is(err, determinism.ErrMismatch), strings.Contains(err.Error(), "partition 9 differs"),
		strings.Contains(err.Error(), "item 999 (99 of the partition) differs"))
	// Output:
	// <nil>
	// <nil>
	// true true true
}
