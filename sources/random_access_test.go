package sources_test

import (
	"context"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
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
