package pqwrite

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestWriterRejectsBadColumns checks that malformed columns are reported
// by path, and that the file stays good for the row groups after.
func TestWriterRejectsBadColumns(t *testing.T) {
	cases := []struct {
		name  string
		spoil func(cols []*Column)
		want  string
	}{
		{"rows differ", func(c []*Column) { c[0].Int64 = c[0].Int64[1:] }, "column name holds 10 rows, column id 9"},
		{"def above max", func(c []*Column) { c[1].DefLevels[0] = 2 }, "column name: entry 0: definition level 2 above the maximum 1"},
		{"values vs levels", func(c []*Column) { c[6].Float = append(c[6].Float, 1) }, "column f: 9 entries at the maximum definition level for 10 values"},
		{"stray kind", func(c []*Column) { c[0].Int32 = []int32{1} }, "column id: INT32 values in a column of physical type INT64"},
		{"first rep", func(c []*Column) { c[3].RepLevels[0] = 1 }, "column ints.list.element: the first repetition level is 1"},
		{"offsets", func(c []*Column) { c[1].Offsets[2] = 0 }, "column name: offset 2 (0) below"},
		{"reps vs defs", func(c []*Column) { c[4].RepLevels = c[4].RepLevels[:3] }, "column tags.list.element: 3 repetition levels for"},
		{"levels in required", func(c []*Column) { c[2].DefLevels = []byte{0} }, "column score: 1 definition levels in a required column"},
	}
	rows := testRows(10, 1)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, parquet.SchemaOf(testRow{}))
			if err != nil {
				t.Fatal(err)
			}
			cols := w.NewColumns()
			shred(t, cols, rows)
			tc.spoil(cols)
			err = w.WriteRowGroup(context.Background(), cols)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			shred(t, cols, rows)
			f := writeOpen(t, w, &buf, cols)
			if f.NumRows() != 10 {
				t.Fatalf("%d rows, want 10", f.NumRows())
			}
		})
	}
}

// TestWriterEmptyFile checks a file with no row groups, and that a row
// group of no rows is not written.
func TestWriterEmptyFile(t *testing.T) {
	for _, groups := range [][][]testRow{nil, {nil}} {
		data := writeFile(t, groups)
		f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if f.NumRows() != 0 || len(f.RowGroups()) != 0 {
			t.Fatalf("%d rows in %d row groups, want none", f.NumRows(), len(f.RowGroups()))
		}
		if got, want := f.Schema().String(), parquet.SchemaOf(testRow{}).String(); got != want {
			t.Fatalf("schema\n%s\nwant\n%s", got, want)
		}
	}
}

// TestWriterCancelled checks that a cancelled context stops a write.
func TestWriterCancelled(t *testing.T) {
	w, err := NewWriter(new(bytes.Buffer), parquet.SchemaOf(testRow{}))
	if err != nil {
		t.Fatal(err)
	}
	cols := w.NewColumns()
	shred(t, cols, testRows(10, 0))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.WriteRowGroup(ctx, cols); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}
