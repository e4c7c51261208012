package parquet_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// abc is the file schema of hiveLayout.
type abc struct {
	A int64  `parquet:"a"`
	B string `parquet:"b"`
	C int64  `parquet:"c"`
}

// hiveRels are the files of hiveLayout, in plan order.
var hiveRels = []string{
	"year=2024/month=01/part-0.parquet",
	"year=2024/month=02/part-1.parquet",
	"year=2025/month=01/part-2.parquet",
}

const hiveRows = 5 // rows per file of hiveLayout

// hiveLayout writes the files hiveRels under a new root, hiveRows rows
// each in row groups of 3, and returns the root.
func hiveLayout(t *testing.T) string {
	root := t.TempDir()
	for k, rel := range hiveRels {
		rows := make([]abc, hiveRows)
		for i := range rows {
			rows[i] = abc{A: int64(10*k + i), B: fmt.Sprintf("b%d.%d", k, i), C: int64(100*k + i)}
		}
		testutil.WriteParquet(t, filepath.Join(root, rel), rows, 3)
	}
	return root
}

// hiveRow is row i of file k of hiveLayout: its ID and its values by raw
// column name, Hive columns included.
func hiveRow(k, i int) (rowid.ID, map[string]any) {
	rel := hiveRels[k]
	year, month := rel[len("year="):len("year=2024")], rel[len("year=2024/month="):len("year=2024/month=01")]
	return rowid.Ordinal(uint64(i)).Combine(rowid.FromString(rel)), map[string]any{
		"a": int64(10*k + i), "b": fmt.Sprintf("b%d.%d", k, i), "c": int64(100*k + i), "year": year, "month": month}
}

// Columns selects Hive columns like file columns and orders a record's
// values as named; Rename renames Hive columns like file columns. Neither
// changes a row's ID.
func TestHiveColumnsSelectRenameAndOrder(t *testing.T) {
	root := hiveLayout(t)
	for _, tc := range []struct {
		name  string
		opts  []parquet.Option
		names []string // the record's names
		raw   []string // the columns they read
	}{
		{"all", nil, []string{"a", "b", "c", "year", "month"}, nil},
		{"a Hive column between file columns", []parquet.Option{parquet.Columns("c", "year"), parquet.Columns("a", "c")},
			[]string{"c", "year", "a"}, nil},
		{"no Hive column", []parquet.Option{parquet.Columns("b")}, []string{"b"}, nil},
		{"only Hive columns", []parquet.Option{parquet.Columns("month", "year")}, []string{"month", "year"}, nil},
		{"renamed", []parquet.Option{parquet.Rename("year", "yr"), parquet.Rename("a", "aa")},
			[]string{"aa", "b", "c", "yr", "month"}, []string{"a", "b", "c", "year", "month"}},
		{"renamed and selected", []parquet.Option{parquet.Rename("year", "yr"), parquet.Columns("yr", "b")},
			[]string{"yr", "b"}, []string{"year", "b"}},
		{"Hive columns swapped", []parquet.Option{parquet.Rename("year", "month"), parquet.Rename("month", "year")},
			[]string{"a", "b", "c", "month", "year"}, []string{"a", "b", "c", "year", "month"}},
	} {
		raw := tc.raw
		if raw == nil {
			raw = tc.names
		}
		got := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root, append(tc.opts, parquet.MaxRows(2))...)).Parallel(2))
		if len(got) != len(hiveRels)*hiveRows {
			t.Fatalf("%s: %d records, want %d", tc.name, len(got), len(hiveRels)*hiveRows)
		}
		for n, it := range got {
			id, vals := hiveRow(n/hiveRows, n%hiveRows)
			want := make([]any, len(raw))
			for j, c := range raw {
				want[j] = vals[c]
			}
			if it.ID != id || !reflect.DeepEqual(it.Value.Names, tc.names) || !reflect.DeepEqual(it.Value.Values, want) {
				t.Fatalf("%s: record %d = %v %v (ID %v), want %v %v (ID %v)", tc.name, n, it.Value.Names, it.Value.Values, it.ID, tc.names, want, id)
			}
		}
	}
}

// ColumnBatch.Partition holds the Hive columns that Columns names, under
// their names after Rename, and the batch's columns come in the order
// named.
func TestHiveColumnsInColumnBatches(t *testing.T) {
	root := hiveLayout(t)
	for _, tc := range []struct {
		name string
		opts []parquet.Option
		cols []string // the batch's column names (raw names: none is renamed)
		part []string // raw names of the Hive columns in Partition
		as   []string // their names
	}{
		{"all", nil, []string{"a", "b", "c"}, []string{"year", "month"}, []string{"year", "month"}},
		{"selected and renamed", []parquet.Option{parquet.Rename("month", "m"), parquet.Columns("m", "c", "a")},
			[]string{"c", "a"}, []string{"month"}, []string{"m"}},
		{"no Hive column", []parquet.Option{parquet.Columns("b")}, []string{"b"}, nil, nil},
	} {
		n := 0
		for b, err := range flow.Values[*parquet.ColumnBatch](context.Background(), flow.From(parquet.Read[*parquet.ColumnBatch](root, tc.opts...))) {
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var names []string
			for _, c := range b.Columns {
				names = append(names, c.Name)
			}
			k := n / hiveRows
			_, vals := hiveRow(k, 0)
			var part map[string]string
			for j, c := range tc.part {
				if part == nil {
					part = map[string]string{}
				}
				part[tc.as[j]] = vals[c].(string)
			}
			if b.File != hiveRels[k] || !reflect.DeepEqual(names, tc.cols) || !reflect.DeepEqual(b.Partition, part) {
				t.Fatalf("%s: batch of %s has columns %v and partition %v, want %s, %v and %v", tc.name, b.File, names, b.Partition, hiveRels[k], tc.cols, part)
			}
			for i := range b.NumRows {
				id, vals := hiveRow(k, int(b.FirstRow)+i)
				if b.RowID(i) != id {
					t.Fatalf("%s: %s row %d has ID %v, want %v", tc.name, b.File, int(b.FirstRow)+i, b.RowID(i), id)
				}
				if c := b.Column("c"); c != nil && c.Int64[i] != vals["c"] {
					t.Fatalf("%s: %s row %d: c = %d, want %v", tc.name, b.File, int(b.FirstRow)+i, c.Int64[i], vals["c"])
				}
			}
			n += b.NumRows
			b.Release()
		}
		if n != len(hiveRels)*hiveRows {
			t.Fatalf("%s: %d rows, want %d", tc.name, n, len(hiveRels)*hiveRows)
		}
	}
}

// hiveFields reads a Hive column under its name after Rename.
type hiveFields struct {
	A     int64  `parquet:"a"`
	Year  int    `parquet:"yr"`
	Month string `parquet:"month"`
}

// A struct field named as a Hive column, after Rename, gets its value;
// Columns leaves Hive fields it does not name zero.
func TestHiveColumnsInStructFields(t *testing.T) {
	root := hiveLayout(t)
	for _, tc := range []struct {
		name        string
		opts        []parquet.Option
		year, month bool // whether the fields are filled
	}{
		{"renamed", []parquet.Option{parquet.Rename("year", "yr")}, true, true},
		{"renamed and selected", []parquet.Option{parquet.Rename("year", "yr"), parquet.Columns("a", "yr")}, true, false},
		{"Hive column not selected", []parquet.Option{parquet.Rename("year", "yr"), parquet.Columns("a", "month")}, false, true},
	} {
		got := testutil.Items[hiveFields](t, flow.From(parquet.Read[hiveFields](root, tc.opts...)).Parallel(2))
		if len(got) != len(hiveRels)*hiveRows {
			t.Fatalf("%s: %d rows, want %d", tc.name, len(got), len(hiveRels)*hiveRows)
		}
		for n, it := range got {
			id, vals := hiveRow(n/hiveRows, n%hiveRows)
			want := hiveFields{A: vals["a"].(int64)}
			if tc.year {
				fmt.Sscan(vals["year"].(string), &want.Year)
			}
			if tc.month {
				want.Month = vals["month"].(string)
			}
			if it.ID != id || it.Value != want {
				t.Fatalf("%s: row %d = %+v (ID %v), want %+v (ID %v)", tc.name, n, it.Value, it.ID, want, id)
			}
		}
	}
}

// A Columns name that is no column, or a Rename that names no column or
// gives two columns one name, fails the run with an error naming the file
// and the column, whether the columns are Hive columns or not.
func TestHiveColumnsErrors(t *testing.T) {
	root := hiveLayout(t)
	file := filepath.Join(root, hiveRels[0])
	records := func(opts ...parquet.Option) error { return runSource(parquet.Read[sources.Record](root, opts...)) }
	batches := func(opts ...parquet.Option) error {
		return runSource(parquet.Read[*parquet.ColumnBatch](root, opts...))
	}
	structs := func(opts ...parquet.Option) error {
		return runSource(parquet.Read[hiveFields](root, opts...))
	}
	type nope struct {
		N string `parquet:"nope"`
	}
	for _, tc := range []struct {
		name string
		err  error
		msg  string
	}{
		{"records unknown column", records(parquet.Columns("a", "yaer")),
			`has no column "yaer" (columns: a, b, c; Hive partition columns: year, month)`},
		{"batches unknown column", batches(parquet.Columns("yaer")), `has no column "yaer"`},
		{"struct unknown column", runSource(parquet.Read[nope](root, parquet.Columns("nope"))), `no column "nope"`},
		{"records unknown rename", records(parquet.Rename("yaer", "y")),
			`Rename("yaer", "y"): the file has no column "yaer" (columns: a, b, c; Hive partition columns: year, month)`},
		{"struct unknown rename", structs(parquet.Rename("yaer", "yr")), `Rename("yaer", "yr"): the file has no column "yaer"`},
		{"records file column onto a Hive column", records(parquet.Rename("a", "year")),
			`Rename("a", "year"): the dataset already has a Hive partition column "year"`},
		{"batches file column onto a Hive column", batches(parquet.Rename("a", "year")),
			`Rename("a", "year"): the dataset already has a Hive partition column "year"`},
		{"struct file column onto a Hive column", structs(parquet.Rename("a", "month")),
			`Rename("a", "month"): the dataset already has a Hive partition column "month"`},
		{"records Hive column onto a file column", records(parquet.Rename("year", "a")),
			`Rename("year", "a"): the file already has a column "a"`},
		{"struct Hive column onto a file column", structs(parquet.Rename("year", "a")),
			`Rename("year", "a"): the file already has a column "a"`},
		{"records Hive column onto a Hive column", records(parquet.Rename("year", "month")),
			`Rename("year", "month"): the dataset already has a Hive partition column "month"`},
		{"struct Hive column onto a Hive column", structs(parquet.Rename("year", "month")),
			`Rename("year", "month"): the dataset already has a Hive partition column "month"`},
		{"records Hive column with two names", records(parquet.Rename("year", "y1"), parquet.Rename("year", "y2")),
			`Rename gives column "year" two names, "y1" and "y2"`},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.msg) || !strings.Contains(tc.err.Error(), file) {
			t.Errorf("%s: error %v, want one that names %s and says %q", tc.name, tc.err, file, tc.msg)
		}
	}
}

// Where names Hive columns, and RowFilter file columns, by their names
// after Rename; neither takes a column of the other kind.
func TestHiveColumnsFiltersUseRenamedNames(t *testing.T) {
	root := hiveLayout(t)
	renames := []parquet.Option{parquet.Rename("year", "yr"), parquet.Rename("a", "aa")}
	opts := append(renames, sources.Where(sources.Eq("yr", 2024)), parquet.RowFilter(sources.Ge("aa", 12)), parquet.Columns("aa", "yr"))
	got := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root, opts...)).Parallel(2))
	var want []flow.Item[sources.Record]
	for k := range 2 { // the files of 2024
		for i := range hiveRows {
			id, vals := hiveRow(k, i)
			if vals["a"].(int64) >= 12 {
				want = append(want, flow.Item[sources.Record]{ID: id, Value: sources.Record{Names: []string{"aa", "yr"}, Values: []any{vals["a"], vals["year"]}}})
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for n := range got {
		if got[n].ID != want[n].ID || !reflect.DeepEqual(got[n].Value, want[n].Value) {
			t.Fatalf("record %d = %+v (ID %v), want %+v (ID %v)", n, got[n].Value, got[n].ID, want[n].Value, want[n].ID)
		}
	}

	// A struct source filters by the same names.
	structs := testutil.Items[hiveFields](t, flow.From(parquet.Read[hiveFields](root,
		append(renames, sources.Where(sources.Eq("yr", 2025)))...)))
	if len(structs) != hiveRows {
		t.Fatalf("Where on a renamed Hive column read %d rows, want the %d rows of %s", len(structs), hiveRows, hiveRels[2])
	}
	for i, it := range structs {
		if id, vals := hiveRow(2, i); it.ID != id || it.Value.Year != 2025 || it.Value.A != vals["a"] {
			t.Fatalf("Where on a renamed Hive column: row %d = %+v (ID %v), want row %d of %s (ID %v)", i, it.Value, it.ID, i, hiveRels[2], id)
		}
	}

	file := filepath.Join(root, hiveRels[0])
	if err := runSource(parquet.Read[sources.Record](root, append(renames, parquet.RowFilter(sources.Eq("yr", "2024")))...)); err == nil ||
		!strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), `no column "yr": it is a Hive partition column, which Where filters`) {
		t.Errorf("RowFilter on a renamed Hive column: error %v, want one that names %s and the column", err, file)
	}
	if err := runSource(parquet.Read[sources.Record](root, append(renames, sources.Where(sources.Eq("aa", 12)))...)); err == nil ||
		!strings.Contains(err.Error(), `Where names "aa", the name Rename gives the file column "a"`) {
		t.Errorf("Where on a renamed file column: error %v, want one that names the column", err)
	}
	// A file column renamed to a Hive column's raw name is a file column:
	// Where on that name is an error, not a filter on the Hive column,
	// which Rename named yr. So is the raw name of a renamed Hive column.
	swapped := []parquet.Option{parquet.Rename("year", "yr"), parquet.Rename("a", "year")}
	if err := runSource(parquet.Read[sources.Record](root, append(swapped, sources.Where(sources.Eq("year", 2025)))...)); err == nil ||
		!strings.Contains(err.Error(), `Where names "year", the name Rename gives the file column "a"`) {
		t.Errorf("Where on a file column renamed to a Hive column's raw name: error %v, want one that names the column", err)
	}
	if err := runSource(parquet.Read[sources.Record](root, parquet.Rename("year", "yr"), sources.Where(sources.Eq("year", 2025)))); err == nil ||
		!strings.Contains(err.Error(), `Where names the Hive column "year" by its name in the paths, which Rename changes`) {
		t.Errorf("Where on a renamed Hive column's raw name: error %v, want one that names the column", err)
	}
}

// ParquetRecordSchema follows the records' names: selected, renamed and
// ordered as Columns and Rename say, Hive columns as optional strings.
func TestHiveColumnsInRecordSchema(t *testing.T) {
	root := hiveLayout(t)
	schema, err := parquet.RecordSchema(root, parquet.Rename("year", "yr"), parquet.Rename("a", "aa"),
		parquet.Columns("c", "yr", "aa"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range schema.Fields() {
		got = append(got, fmt.Sprintf("%s %v optional=%t", f.Name(), f.Type(), f.Optional()))
	}
	want := []string{"c INT(64,true) optional=false", "yr STRING optional=true", "aa INT(64,true) optional=false"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("schema %q, want %q", got, want)
	}
}
