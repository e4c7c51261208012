package assemble

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// writeFile writes rows with parquet-go's GenericWriter, in row groups of
// rowGroup rows, and opens the file with pqcol.
func writeFile[W any](t *testing.T, rows []W, rowGroup int) *pqcol.Reader {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rows.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[W](f, parquet.PageBufferSize(512))
	for len(rows) > 0 {
		n := min(rowGroup, len(rows))
		if _, err := w.Write(rows[:n]); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		rows = rows[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	rf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rf.Close() })
	st, err := rf.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := pqcol.Open("rows.parquet", rf, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// plan makes the plan of T for r's file, failing the test on an error.
func plan[T any](t *testing.T, r *pqcol.Reader, consts ...Const) *Plan[T] {
	t.Helper()
	p, err := newPlan[T](r, consts...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// decodeChunks reads every row group of r and fills rows of T through p,
// chunk rows at a time (the last chunk of a row group may be shorter).
// Each chunk is returned as its own slice, in order, as a source hands
// chunks on. The destination slices start out filled with garbage, so
// that a field the decoder fails to write shows.
func decodeChunks[T any](t *testing.T, r *pqcol.Reader, p *Plan[T], chunk int, garbage T) [][]T {
	t.Helper()
	d := NewDecoder(p)
	var out [][]T
	fileRow := int64(0)
	for rg := range r.NumRowGroups() {
		for i, leaf := range p.Leaves() {
			if err := r.ReadColumn(context.Background(), rg, leaf, &d.Columns[i]); err != nil {
				t.Fatal(err)
			}
		}
		d.Reset()
		rows := r.NumRows(rg)
		for first := int64(0); first < rows; first += int64(chunk) {
			n := min(int64(chunk), rows-first)
			dst := make([]T, n)
			for i := range dst {
				dst[i] = garbage
			}
			if err := d.Next(dst, &Pos{File: "rows.parquet", RowGroup: rg, FirstRow: fileRow + first}); err != nil {
				t.Fatalf("row group %d, rows from %d: %v", rg, first, err)
			}
			out = append(out, dst)
		}
		fileRow += rows
	}
	return out
}

// decode is decodeChunks with the chunks concatenated.
func decode[T any](t *testing.T, r *pqcol.Reader, p *Plan[T], chunk int, garbage T) []T {
	t.Helper()
	var all []T
	for _, c := range decodeChunks(t, r, p, chunk, garbage) {
		all = append(all, c...)
	}
	return all
}

func newPlan[T any](r *pqcol.Reader, consts ...Const) (*Plan[T], error) {
	return NewPlan[T](r.Name(), r.Leaves(), r.File().Root(), nil, nil, consts)
}
