package main

import (
	"context"
	"os"

	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// readPqcol reads every column chunk of path with internal/parquet/pqcol, the
// decoder under rowflow's source, into one reused Column per leaf column,
// and counts the rows. It is the columnar mode without its per-batch
// buffers: what sources/parquet.Read[*ColumnBatch] could reach if it reused them.
func readPqcol(ctx context.Context, path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	r, err := pqcol.Open(path, f, st.Size())
	if err != nil {
		return 0, err
	}
	cols := make([]pqcol.Column, len(r.Leaves()))
	var rows int64
	for rg := range r.NumRowGroups() {
		for c := range cols {
			if err := r.ReadColumn(ctx, rg, c, &cols[c]); err != nil {
				return rows, err
			}
		}
		rows += r.NumRows(rg)
	}
	return rows, nil
}
