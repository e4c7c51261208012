package sources_test

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
)

// TestOptionsAreTypedBySource: an option a source does not take does not
// compile. The shared options satisfy both kinds; the others one each.
func TestOptionsAreTypedBySource(t *testing.T) {
	sliceOpt := reflect.TypeFor[sources.SliceOption]()
	parquetOpt := reflect.TypeFor[sources.ParquetOption]()
	shared := []any{sources.ChunkSize(1), sources.Named("x")}
	sliceOnly := []any{sources.PartitionSize(1)}
	parquetOnly := []any{sources.Files("a"), sources.RowGroups(), sources.WholeFiles(), sources.MaxRows(1),
		sources.Columns("a"), sources.Rename("a", "b"), sources.ShuffleWindow(1), sources.Seed(1),
		sources.Epochs(1), sources.Where(sources.Eq("a", 1)),
		sources.RowFilter(sources.Eq("a", 1)), sources.Trace(), sources.MaxPageSize(1),
		sources.MaxReadSize(1), sources.SkipBadFragments(&sources.SkipReport{})}
	check := func(opts []any, slice, parquet bool) {
		for _, o := range opts {
			typ := reflect.TypeOf(o)
			if typ.Implements(sliceOpt) != slice || typ.Implements(parquetOpt) != parquet {
				t.Errorf("%v: a SliceOption %v, a ParquetOption %v; want %v, %v",
					typ, typ.Implements(sliceOpt), typ.Implements(parquetOpt), slice, parquet)
			}
		}
	}
	check(shared, true, true)
	check(sliceOnly, true, false)
	check(parquetOnly, false, true)
}

// TestOptionErrors: bad option values fail the run with an error that
// names the option.
func TestOptionErrors(t *testing.T) {
	root, _ := hiveDataset(t)
	for _, c := range []struct {
		opt  sources.ParquetOption
		want string
	}{
		{sources.Epochs(0), "sources: Epochs(0): want at least 1, or a negative count for forever"},
		{sources.MaxRows(0), "sources: MaxRows(0): must be at least 1"},
		{sources.ShuffleWindow(-2), "sources: ShuffleWindow(-2): want -1, 0 or a window size"},
		{sources.MaxPageSize(0), "sources: MaxPageSize(0): must be at least 1"},
		{sources.MaxReadSize(0), "sources: MaxReadSize(0): must be at least 1"},
		{sources.Files(), "sources: Files(): no paths"},
		{sources.ChunkSize(0), "sources: ChunkSize(0): must be from 1 to 1048576"},
		{sources.ChunkSize(math.MaxInt), "sources: ChunkSize(9223372036854775807): must be from 1 to 1048576"},
		{sources.SkipBadFragments(nil), "sources: SkipBadFragments(nil): want a report to write to"},
		{nil, "sources: parquet: nil option"},
	} {
		err := flow.From(sources.Parquet[Hive](root, c.opt)).To(sinks.Count[Hive](new(int64))).Run(context.Background())
		if err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %s", err, c.want)
		}
	}
	err := flow.From(sources.Slice([]int{1}, sources.PartitionSize(0))).To(sinks.Count[int](new(int64))).Run(context.Background())
	if err == nil || !strings.HasSuffix(err.Error(), "sources: PartitionSize(0): must be at least 1") {
		t.Errorf("PartitionSize(0): %v", err)
	}
}

// TestEpochsNegativeRepeatsForever: any negative count repeats the
// dataset without end, as Epochs says (Epochs(-2) used to fail).
func TestEpochsNegativeRepeatsForever(t *testing.T) {
	root, files := hiveDataset(t)
	total := 0
	for _, rows := range files {
		total += len(rows)
	}
	for _, n := range []int64{-1, -2, -100} {
		var count int64
		err := flow.From(sources.Parquet[Hive](root, sources.Epochs(n), sources.ShuffleWindow(-1))).
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
	all := testutil.Items[Hive](t, flow.From(sources.Parquet[Hive](root)))
	got := testutil.Items[Hive](t, flow.From(sources.Parquet[Hive](root,
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
	err := flow.From(sources.Parquet[Hive](root, sources.Files(t.TempDir()))).To(sinks.Count[Hive](new(int64))).Run(context.Background())
	if err == nil {
		t.Fatal("a path outside the root was accepted")
	}
}

// TestParseFilterMatchesConstructors: the text form reads the same rows as
// the typed constructors, and String parses back.
func TestParseFilterMatchesConstructors(t *testing.T) {
	root, _ := hiveDataset(t)
	typed := sources.Or(sources.And(sources.Ge("id", 100), sources.Lt("score", 30.0)), sources.In("id", 200000, 200001))
	parsed, err := sources.ParseFilter("id >= 100 and score < 30.0 or id in (200000, 200001)")
	if err != nil {
		t.Fatal(err)
	}
	if parsed.String() != typed.String() {
		t.Fatalf("parsed %s, typed %s", parsed, typed)
	}
	read := func(f sources.Filter) []flow.Item[Hive] {
		return testutil.Items[Hive](t, flow.From(sources.Parquet[Hive](root, sources.RowFilter(f),
			sources.Where(sources.Ne("lang", "fr")))).Parallel(2))
	}
	want := read(typed)
	if got := read(parsed); len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("parsed filter: %d rows, typed: %d", len(got), len(want))
	}
	if _, err := sources.ParseFilter("id >"); err == nil || !strings.HasPrefix(err.Error(), `sources: filter "id >": `) {
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
	count := func(opts ...sources.ParquetOption) (int64, error) {
		var n int64
		err := flow.From(sources.Parquet[Row](root, opts...)).To(sinks.Count[Row](&n)).Run(context.Background())
		return n, err
	}
	if n, err := count(sources.MaxPageSize(64 << 20)); err != nil || n != 2000 {
		t.Fatalf("a 64 MiB cap: %d rows, %v", n, err)
	}
	_, err := count(sources.MaxPageSize(1024))
	if !errors.Is(err, pqcol.ErrPageTooLarge) || !strings.Contains(err.Error(), "big.parquet") {
		t.Fatalf("a 1 KiB cap: %v, want pqcol.ErrPageTooLarge naming big.parquet", err)
	}
	var report sources.SkipReport
	n, err := count(sources.MaxPageSize(1024), sources.SkipBadFragments(&report))
	if err != nil || n != 0 || report.RowsLost != 2000 || len(report.Skipped) != 1 {
		t.Fatalf("a 1 KiB cap, skipping: %d rows, %v, report %+v", n, err, report)
	}
}
