package sources_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// ReadRange gives the rows the source's partitions give, with their IDs.
func TestReadRangeMatchesPartitions(t *testing.T) {
	ctx := context.Background()
	vals := []string{"a", "b", "c", "d", "e"}
	for name, src := range map[string]flow.RandomAccess[string]{
		"slice":    sources.Slice(vals, sources.PartitionItems(2)),
		"generate": sources.Generate(5, func(i int64) (string, error) { return vals[i], nil }, sources.PartitionItems(2)),
	} {
		items := testutil.Items[string](t, flow.From(src))
		n, err := src.Len(ctx)
		if err != nil || n != 5 {
			t.Fatalf("%s: Len %d, %v", name, n, err)
		}
		got, ids, err := src.ReadRange(ctx, 1, 4, []string{"x"}, []rowid.ID{{}})
		if err != nil || !slices.Equal(got, []string{"x", "b", "c", "d"}) || len(ids) != 4 {
			t.Fatalf("%s: ReadRange(1, 4) = %v, %d IDs, %v", name, got, len(ids), err)
		}
		for k, id := range ids[1:] {
			if id != items[1+k].ID {
				t.Fatalf("%s: row %d has ID %v, the partition gives %v", name, 1+k, id, items[1+k].ID)
			}
		}
		for _, r := range [][2]int64{{-1, 2}, {3, 2}, {4, 6}} {
			if _, _, err := src.ReadRange(ctx, r[0], r[1], nil, nil); err == nil {
				t.Errorf("%s: ReadRange(%d, %d): no error", name, r[0], r[1])
			}
		}
	}
}

// An error from Generate's function fails the run with a StageError that
// names the index's partition and row ID, and wraps the error itself,
// whether the rows are read by partition or by range (IndexShuffle).
func TestGenerateErrorNamesRow(t *testing.T) {
	boom := errors.New("boom")
	src := sources.Generate(20, func(i int64) (int64, error) {
		if i == 9 {
			return 0, boom
		}
		return i, nil
	}, sources.PartitionItems(4))
	var n int64
	err := flow.From(src).To(sinks.Count[int64](&n)).Run(context.Background())
	var se *flow.StageError
	if !errors.As(err, &se) || !errors.Is(err, boom) {
		t.Fatalf("run = %v, want a StageError wrapping boom", err)
	}
	want := rowid.Ordinal(9).Combine(rowid.FromString("generate"))
	if !se.HasPart || se.Part != 2 || !se.HasID || se.ID != want {
		t.Errorf("StageError names partition %d (%v), row %v (%v); want partition 2, row %v", se.Part, se.HasPart, se.ID, se.HasID, want)
	}
	if strings.Contains(se.Err.Error(), "partition") {
		t.Errorf("the wrapped error %q repeats the position the StageError gives", se.Err)
	}
	err = flow.From(operators.IndexShuffle(src)).To(sinks.Count[int64](&n)).Run(context.Background())
	if !errors.As(err, &se) || !errors.Is(err, boom) || !se.HasID || se.ID != want {
		t.Errorf("IndexShuffle's run = %v, want a StageError naming row %v and wrapping boom", err, want)
	}
}

// An empty name is refused when the source is built, as a stage's is.
func TestNamedRefusesEmpty(t *testing.T) {
	err := flow.From(sources.Slice([]int{1}, sources.Named(""))).Err()
	if err == nil || !strings.Contains(err.Error(), `Named(""): empty name`) {
		t.Fatalf("Slice with Named(\"\"): %v, want an error saying the name is empty", err)
	}
}
