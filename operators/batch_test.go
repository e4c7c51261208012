package operators_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// sameItems fails at the first item of got that differs from want, values
// compared deeply.
func sameItems[T any](t *testing.T, what string, got, want []flow.Item[T]) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: item %d is\n%+v, want\n%+v", what, i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d items, want %d", what, len(got), len(want))
	}
}

// shapeVariants checks build at every parallelism against want, and with
// determinism.Verify over several rounds.
func shapeVariants[T any](t *testing.T, want []flow.Item[T], build func(n int) *flow.Pipeline) {
	t.Helper()
	verify[T](t, build)
	for _, n := range []int{1, 2, 4, 8} {
		sameItems(t, fmt.Sprintf("parallelism %d", n), collect[T](t, build(n)), want)
	}
}

// foldIDs is the N:1 rule: base combined with every member ID.
func foldIDs(name string, ids []rowid.ID) rowid.ID {
	id := rowid.FromString(name)
	for _, m := range ids {
		id = id.Combine(m)
	}
	return id
}

// kept lists the rows of the mixed filter, with their IDs.
func kept(rows int64) ([]int64, []rowid.ID) {
	var vals []int64
	var ids []rowid.ID
	for i := range rows {
		if keep(i) {
			vals = append(vals, i)
			ids = append(ids, sourceID(i))
		}
	}
	return vals, ids
}

// batchSerial cuts vals into batches of n in plain Go.
func batchSerial[T any](vals []T, ids []rowid.ID, n, per int, last remainder) []flow.Item[operators.Rows[T]] {
	var items []flow.Item[operators.Rows[T]]
	for lo := 0; lo < len(vals); lo += n {
		hi := min(lo+n, len(vals))
		r := operators.Rows[T]{Values: vals[lo:hi:hi], IDs: ids[lo:hi:hi]}
		if hi-lo < n {
			switch last {
			case dropRemainder:
				continue
			case padRemainder:
				r.Padding = n - (hi - lo)
				r.Values = append(r.Values, make([]T, r.Padding)...)
				r.IDs = append(r.IDs, make([]rowid.ID, r.Padding)...)
			}
		}
		k := len(items)
		items = append(items, flow.Item[operators.Rows[T]]{Part: int64(k / per), ID: foldIDs("batch", ids[lo:hi]), Value: r})
	}
	return items
}

func TestBatch(t *testing.T) {
	const rows = 3000
	vals, ids := kept(rows)
	for _, last := range []remainder{keepRemainder, dropRemainder, padRemainder} {
		for _, size := range []int{1, 7, 32, 5000} {
			t.Run(fmt.Sprintf("%v/%d", last, size), func(t *testing.T) {
				want := batchSerial(vals, ids, size, 4, last)
				// A parallel filter before, a parallel map after.
				shapeVariants(t, want, func(n int) *flow.Pipeline {
					return flow.From(source(rows, 64, 16)).
						Via(operators.Filter(keep)).Parallel(n).
						Via(operators.Batch[int64](size, withRemainder[operators.BatchOption](last, operators.PartitionItems(4))...)).
						Via(operators.Map(func(r operators.Rows[int64]) (operators.Rows[int64], error) { return r, nil })).Parallel(n)
				})
			})
		}
	}
}

func TestBatchBadOptions(t *testing.T) {
	for name, s := range map[string]flow.Stage{
		"size 0":         operators.Batch[int64](0),
		"PartitionItems": operators.Batch[int64](4, operators.PartitionItems(0)),
		"Named":          operators.Batch[int64](4, operators.Named("")),
	} {
		// The pipeline keeps the stage's error when it is built.
		if err := flow.From(source(10, 5, 5)).Via(s).Err(); err == nil {
			t.Errorf("%s: building the pipeline kept no error", name)
		}
		for _, err := range flow.Items[operators.Rows[int64]](t.Context(), flow.From(source(10, 5, 5)).Via(s)) {
			if err == nil {
				t.Fatalf("%s: the run gave an item", name)
			}
			t.Logf("%s: %v", name, err)
		}
	}
	if err := flow.From(source(10, 5, 5)).Via(operators.Batch[int64](4)).Parallel(2).Err(); err == nil {
		t.Error("Batch on 2 workers: no error")
	}
}

func TestBatchEpochs(t *testing.T) {
	const rows, size = 100, 32
	vals, ids := make([]int64, rows), make([]rowid.ID, rows)
	for i := range vals {
		vals[i], ids[i] = int64(i), sourceID(int64(i))
	}
	// Each epoch is batched on its own: its last batch is dropped, and its
	// output partitions are numbered within the epoch.
	one := batchSerial(vals, ids, size, 2, dropRemainder)
	var want []flow.Item[operators.Rows[int64]]
	for e := range int64(3) {
		for _, it := range one {
			it.Part = epoch.Part(e, it.Part)
			want = append(want, it)
		}
	}
	shapeVariants(t, want, func(n int) *flow.Pipeline {
		return flow.From(source(rows, 16, 8)).Parallel(n).Epochs(3).
			Via(operators.Batch[int64](size, operators.DropRemainder(), operators.PartitionItems(2)))
	})
}

// Batches that share the storage of their input chunk keep it when the
// stream stops early, after they were delivered (Take downstream, or a
// loop left early): the chunk's storage is not recycled under them, where
// it would be cleared (strings) or handed to later chunks.
func TestBatchKeepsDeliveredStorageWhenStopped(t *testing.T) {
	data := make([]string, 4096)
	for i := range data {
		data[i] = fmt.Sprint(i)
	}
	src := func() *flow.Pipeline {
		return flow.From(sources.Slice(data, sources.ChunkSize(4096), sources.PartitionItems(4096))).
			Via(operators.Batch[string](2, operators.PartitionItems(1)))
	}
	var got []flow.Item[operators.Rows[string]]
	if err := src().Via(operators.Take[operators.Rows[string]](1)).To(sinks.Collect(&got)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !slices.Equal(got[0].Value.Values, []string{"0", "1"}) {
		t.Fatalf("Take(1): %+v, want one batch [0 1]", got)
	}
	var kept operators.Rows[string]
	for it, err := range flow.Items[operators.Rows[string]](t.Context(), src()) {
		if err != nil {
			t.Fatal(err)
		}
		kept = it.Value
		break
	}
	// Later runs allocate chunks of strings too, from the same pools.
	for range 3 {
		if err := src().To(sinks.Count[operators.Rows[string]](new(int64))).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(kept.Values, []string{"0", "1"}) || !slices.Equal(got[0].Value.Values, []string{"0", "1"}) {
		t.Fatalf("after later runs: the loop's batch %q, Take's %q; want [0 1] both", kept.Values, got[0].Value.Values)
	}
}
