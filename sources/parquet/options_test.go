package parquet_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// TestOptionsAreTypedBySource: an option a source does not take does not
// compile. The shared options satisfy each kind that takes them; the
// others one each.
func TestOptionsAreTypedBySource(t *testing.T) {
	kinds := []reflect.Type{
		reflect.TypeFor[sources.SliceOption](),
		reflect.TypeFor[parquet.Option](),
		reflect.TypeFor[text.CSVOption](),
		reflect.TypeFor[text.JSONLOption](),
	}
	for _, c := range []struct {
		opts []any
		want []bool // a SliceOption, a parquet.Option, a CSVOption, a JSONLOption
	}{
		{[]any{sources.ChunkSize(1), sources.Named("x")}, []bool{true, true, true, true}},
		{[]any{sources.PartitionItems(1)}, []bool{true, false, false, false}},
		{[]any{sources.Files("a"), sources.WholeFiles(), sources.ShuffleWindow(1), sources.Where(sources.Eq("a", 1)),
			sources.SkipBad(&sources.SkipReport{})}, []bool{false, true, true, true}},
		{[]any{parquet.MaxRows(1), parquet.Columns("a"), parquet.Rename("a", "b"),
			parquet.RowFilter(sources.Eq("a", 1)), parquet.Trace(), parquet.MaxPageSize(1),
			parquet.MaxReadSize(1)}, []bool{false, true, false, false}},
		{[]any{text.Compression("gzip"), text.PartitionBytes(1)},
			[]bool{false, false, true, true}},
		{[]any{text.Comma(';'), text.Header("a")}, []bool{false, false, true, false}},
		{[]any{text.AllowMissingFields()}, []bool{false, false, false, true}},
	} {
		for _, o := range c.opts {
			typ := reflect.TypeOf(o)
			for k, kind := range kinds {
				if typ.Implements(kind) != c.want[k] {
					t.Errorf("%v: a %v %v, want %v", typ, kind, typ.Implements(kind), c.want[k])
				}
			}
		}
	}
}

// TestOptionErrors: bad option values fail the run with an error that
// names the option.
func TestOptionErrors(t *testing.T) {
	root, _ := hiveDataset(t)
	for _, c := range []struct {
		opt  parquet.Option
		want string
	}{
		{parquet.MaxRows(0), "sources: MaxRows(0): must be at least 1"},
		{sources.ShuffleWindow(-2), "sources: ShuffleWindow(-2): want -1, 0 or a window size"},
		{parquet.MaxPageSize(0), "sources: MaxPageSize(0): must be at least 1"},
		{parquet.MaxReadSize(0), "sources: MaxReadSize(0): must be at least 1"},
		{sources.Files(), "sources: Files(): no paths"},
		{sources.ChunkSize(0), "sources: ChunkSize(0): must be from 1 to 1048576"},
		{sources.ChunkSize(math.MaxInt), "sources: ChunkSize(9223372036854775807): must be from 1 to 1048576"},
		{sources.SkipBad(nil), "sources: SkipBad(nil): want a report to write to"},
		{nil, "sources: parquet: nil option"},
	} {
		err := flow.From(parquet.Read[Hive](root, c.opt)).To(sinks.Count[Hive](new(int64))).Run(context.Background())
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %s", err, c.want)
		}
	}
	err := flow.From(sources.Slice([]int{1}, sources.PartitionItems(0))).To(sinks.Count[int](new(int64))).Run(context.Background())
	if err == nil || !strings.HasSuffix(err.Error(), "sources: PartitionItems(0): must be at least 1") {
		t.Errorf("PartitionItems(0): %v", err)
	}
}

// TestEpochsNegativeRepeatsForever: any negative count of the pipeline's
// epochs repeats the dataset without end (Epochs(-2) used to fail).
func TestEpochsNegativeRepeatsForever(t *testing.T) {
	root, files := hiveDataset(t)
	total := 0
	for _, rows := range files {
		total += len(rows)
	}
	for _, n := range []int64{-1, -2, -100} {
		var count int64
		err := flow.From(parquet.Read[Hive](root, sources.ShuffleWindow(-1))).Epochs(n).
			Via(operators.Take[Hive](int64(3*total + 5))).To(sinks.Count[Hive](&count)).Run(context.Background())
		if err != nil || count != int64(3*total+5) {
			t.Errorf("Epochs(%d): %d rows, %v; want %d", n, count, err, 3*total+5)
		}
	}
}

// TestFilesReadsThePathsGiven: Files narrows the dataset to the paths
// given, which keep their IDs, Hive columns and order relative to root.
func TestFilesReadsThePathsGiven(t *testing.T) {
	root, files := hiveDataset(t)
	all := testutil.Items[Hive](t, flow.From(parquet.Read[Hive](root)))
	got := testutil.Items[Hive](t, flow.From(parquet.Read[Hive](root,
		sources.Files(root+"/lang=fr/day=2/part-8.parquet"), sources.Files(root+"/lang=de/*/*.parquet"))).Parallel(2))
	want := len(files["lang=fr/day=2/part-8.parquet"])
	for rel, rows := range files {
		if strings.HasPrefix(rel, "lang=de/") {
			want += len(rows)
		}
	}
	if len(got) != want {
		t.Fatalf("%d rows, want %d", len(got), want)
	}
	byID := map[int64]flow.Item[Hive]{}
	for _, it := range all {
		byID[it.Value.ID] = it
	}
	for i, it := range got {
		ref := byID[it.Value.ID]
		if it.ID != ref.ID || it.Value != ref.Value || (it.Value.Lang != "de" && it.Value.Lang != "fr") {
			t.Fatalf("row %d: %+v, want %+v as in the whole dataset", i, it, ref)
		}
		if i > 0 && got[i-1].Value.Lang > it.Value.Lang {
			t.Fatalf("row %d: files out of path order", i)
		}
	}
	err := flow.From(parquet.Read[Hive](root, sources.Files(t.TempDir()))).To(sinks.Count[Hive](new(int64))).Run(context.Background())
	if err == nil {
		t.Fatal("a path outside the root was accepted")
	}
}

// TestParseExprMatchesConstructors: the text form reads the same rows as
// the typed constructors, and String parses back.
func TestParseExprMatchesConstructors(t *testing.T) {
	root, _ := hiveDataset(t)
	typed := sources.Or(sources.And(sources.Ge("id", 100), sources.Lt("score", 30.0)), sources.In("id", 200000, 200001))
	parsed, err := sources.ParseExpr("id >= 100 and score < 30.0 or id in (200000, 200001)")
	if err != nil {
		t.Fatal(err)
	}
	if parsed.String() != typed.String() {
		t.Fatalf("parsed %s, typed %s", parsed, typed)
	}
	read := func(f sources.Expr) []flow.Item[Hive] {
		return testutil.Items[Hive](t, flow.From(parquet.Read[Hive](root, parquet.RowFilter(f),
			sources.Where(sources.Ne("lang", "fr")))).Parallel(2))
	}
	want := read(typed)
	if got := read(parsed); len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("parsed filter: %d rows, typed: %d", len(got), len(want))
	}
	if _, err := sources.ParseExpr("id >"); err == nil || !strings.HasPrefix(err.Error(), `sources: filter "id >": `) {
		t.Fatalf("bad text: %v", err)
	}
}

// TestMaxPageSizeCapsPages: a page whose decoded size passes the cap
// fails its fragment with pqcol's error, naming the file; a cap above the
// largest page reads everything.
func TestMaxPageSizeCapsPages(t *testing.T) {
	root := t.TempDir()
	rows := makeRows(0, 2000) // a 40-byte text per row: pages of tens of KiB
	testutil.WriteParquet(t, filepath.Join(root, "big.parquet"), rows, 2000)
	count := func(opts ...parquet.Option) (int64, error) {
		var n int64
		err := flow.From(parquet.Read[Row](root, opts...)).To(sinks.Count[Row](&n)).Run(context.Background())
		return n, err
	}
	if n, err := count(parquet.MaxPageSize(64 << 20)); err != nil || n != 2000 {
		t.Fatalf("a 64 MiB cap: %d rows, %v", n, err)
	}
	_, err := count(parquet.MaxPageSize(1024))
	if !errors.Is(err, pqcol.ErrPageTooLarge) || !strings.Contains(err.Error(), "big.parquet") {
		t.Fatalf("a 1 KiB cap: %v, want pqcol.ErrPageTooLarge naming big.parquet", err)
	}
	var report sources.SkipReport
	n, err := count(parquet.MaxPageSize(1024), sources.SkipBad(&report))
	if err != nil || n != 0 || report.RowsLost != 2000 || len(report.Skipped) != 1 {
		t.Fatalf("a 1 KiB cap, skipping: %d rows, %v, report %+v", n, err, report)
	}
}
