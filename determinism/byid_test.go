package determinism_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

type order struct {
	ID       int64  `parquet:"id"`
	Customer string `parquet:"customer"`
	Cents    int64  `parquet:"cents"`
}

// storedOrder is an order read back with the row-ID columns the job wrote.
type storedOrder struct {
	ID       int64  `parquet:"id"`
	Customer string `parquet:"customer"`
	Cents    int64  `parquet:"cents"`
	RIDKey1  uint64 `parquet:"rid_key1"`
	RIDKey2  uint64 `parquet:"rid_key2"`
	RIDOrd   uint64 `parquet:"rid_ord"`
}

func orders(change func(*order)) *flow.Pipeline {
	src := sources.Generate(3000, func(i int64) (order, error) {
		o := order{ID: i, Customer: "c" + string(rune('a'+i%7)), Cents: i * 37 % 1000}
		if change != nil {
			change(&o)
		}
		return o, nil
	}, sources.PartitionItems(250))
	return flow.From(src).Via(operators.Shuffle[order](500)).WithSeed(3)
}

// write runs p into a new directory of shards with the row-ID columns.
func write(t *testing.T, p *flow.Pipeline, opts ...shards.ParquetOption) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	opts = append(opts, shards.RowIDColumn("rid"))
	if err := p.To(shards.Parquet[order](dir, opts...)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readBack reads a written output with the IDs the job gave its rows, as
// orders: the row-ID columns are left out of the values compared, since
// each file encodes the IDs of its own rows (see shards.RowIDColumn).
func readBack(dir string) *flow.Pipeline {
	return flow.From(parquet.Read[storedOrder](dir)).Parallel(2).
		Via(operators.SetIDs(func(o storedOrder) rowid.ID { return shards.RowID(o.RIDKey1, o.RIDKey2, o.RIDOrd) })).
		Via(operators.Map(func(o storedOrder) (order, error) { return order{o.ID, o.Customer, o.Cents}, nil }))
}

func TestCompareByIDOfTwoOutputs(t *testing.T) {
	ctx := context.Background()
	a := write(t, orders(nil), shards.RowsPerFile(700), shards.Writers(1))
	b := write(t, orders(nil).Parallel(1), shards.RowsPerFile(1100), shards.Writers(3))
	if err := determinism.CompareByID[order](ctx, readBack(a), readBack(b)); err != nil {
		t.Fatalf("two layouts of one output: %v", err)
	}
	// A plain Compare sees another order: the layouts differ.
	if err := determinism.Compare[order](ctx, readBack(a), readBack(b)); err == nil {
		t.Fatal("Compare of two layouts found no difference; the test does not test CompareByID")
	}

	changed := write(t, orders(func(o *order) {
		if o.ID == 1234 {
			o.Customer = "zz"
		}
	}))
	err := determinism.CompareByID[order](ctx, readBack(a), readBack(changed))
	var d *determinism.RowDifference
	if !errors.As(err, &d) {
		t.Fatalf("a changed row: %v", err)
	}
	if d.Path != ".Customer" || d.First.Value.(order).ID != 1234 || d.Second.Value.(order).Customer != "zz" {
		t.Fatalf("difference %+v", d)
	}
	if msg := err.Error(); !strings.Contains(msg, "differs: the first pipeline has partition") || !strings.Contains(msg, `the values first differ at .Customer: the first has "c`) {
		t.Fatalf("message %q", msg)
	}
}

func TestCompareByIDMissingAndDuplicate(t *testing.T) {
	ctx := context.Background()
	base := func() *flow.Pipeline { return orders(nil) }
	dropOne := base().Via(operators.Filter(func(o order) bool { return o.ID != 77 }))
	err := determinism.CompareByID[order](ctx, base(), dropOne)
	var d *determinism.RowDifference
	if !errors.As(err, &d) || !d.Second.Ended || d.First.Value.(order).ID != 77 || !strings.Contains(err.Error(), "is only in the first pipeline") {
		t.Fatalf("a missing row: %v", err)
	}
	twice := base().Via(operators.FlatMap(func(o order) ([]order, error) {
		if o.ID == 5 {
			return []order{o, o}, nil
		}
		return []order{o}, nil
	}))
	byOrder := operators.SetIDs(func(o order) rowid.ID { return rowid.Ordinal(uint64(o.ID)) })
	err = determinism.CompareByID[order](ctx, base().Via(byOrder), twice.Via(byOrder))
	if !errors.As(err, &d) || !d.Duplicate || !strings.Contains(err.Error(), "appears twice in the second pipeline") {
		t.Fatalf("a duplicated row: %v", err)
	}
	if !d.First.Ended || d.Second.Ended || d.Second.Value.(order).ID != 5 || d.ID != rowid.Ordinal(5) {
		t.Fatalf("a duplicated row: %+v; want the second side's row 5 and the first side marked Ended", d)
	}
	if err := determinism.CompareByID[order](ctx, base(), base().Parallel(1)); err != nil {
		t.Fatal(err)
	}
	// The smallest ID that differs comes first: row 3, missing from the
	// first side, before row 5, twice on the first side.
	keep := func(ids ...int64) *flow.Pipeline {
		return base().Via(operators.FlatMap(func(o order) ([]order, error) {
			return slices.Repeat([]order{o}, count(ids, o.ID)), nil
		})).Via(byOrder)
	}
	err = determinism.CompareByID[order](ctx, keep(5, 5), keep(3, 5, 5))
	if !errors.As(err, &d) || d.Duplicate || !d.First.Ended || d.ID != rowid.Ordinal(3) {
		t.Fatalf("row 3 missing from the first side, row 5 twice on both: %v", err)
	}
}

// count returns how many times v is in s.
func count(s []int64, v int64) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}
