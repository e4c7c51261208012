package main

import (
	"context"

	"fmt"
	"slices"
	"strings"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// rowflowOutput looks at an input for what an earlier reshard wrote into
// it, so that resharding it again keeps it: the row-ID columns named by
// rowID (the rows keep those IDs, and the output writes them again under
// the same name) and, with hive, the Hive directories (the output is
// partitioned by the same columns, when it keeps them).
func (in *input) rowflowOutput(ctx context.Context, path, rowID string, hive bool) error {
	f, err := format(path)
	if err != nil {
		return err
	}
	names, err := in.columnNames(ctx, path, f)
	if err != nil {
		return err
	}
	if hive {
		ds, err := datasetFormats[f].Discover(path)
		if err != nil {
			return err
		}
		if cols := ds.Columns(); len(cols) > 0 && !slices.ContainsFunc(cols, func(c string) bool { return !names[c] }) {
			in.hive = cols
		}
	}
	if rowID != "" && hasRowID(names, rowID) {
		in.ids = rowID
	}
	return nil
}

// datasetFormats are the dataset formats of the names format returns.
var datasetFormats = map[string]dataset.Format{"parquet": dataset.Parquet, "csv": dataset.CSV, "jsonl": dataset.JSONL}

// columnNames returns the names of the columns the records of in over
// path have (after -rename and -columns): a Parquet dataset's from its
// schema, a text dataset's from its first record.
func (in *input) columnNames(ctx context.Context, path, f string) (map[string]bool, error) {
	names := map[string]bool{}
	if f == "parquet" {
		opts, _, err := in.options(f)
		if err != nil {
			return nil, err
		}
		s, err := parquet.RecordSchema(path, opts...)
		if err != nil {
			return nil, err
		}
		for _, c := range pqschema.Columns(s) {
			names[c.Name] = true
		}
		return names, nil
	}
	first := *in
	first.parallel, first.window, first.badLines = 1, 0, new(sources.SkipReport)
	p, err := first.pipeline(path)
	if err != nil {
		return nil, err
	}
	for r, err := range flow.Values[sources.Record](ctx, p.Via(operators.Take[sources.Record](1))) {
		if err != nil {
			return nil, err
		}
		for _, n := range r.Names {
			names[n] = true
		}
	}
	return names, nil
}

// rowIDForms are the row-ID columns that shards.RowIDColumn(name) writes:
// the three of Parquet files (shards.RowID gives the ID), and the ID's
// halves, Hi then Lo, of CSV and JSON Lines files (and of Parquet files
// written before the three columns).
func rowIDForms(name string) [][]string {
	return [][]string{{name + "_key1", name + "_key2", name + "_ord"}, {name + "_hi", name + "_lo"}}
}

// rowIDNames returns the names of both forms' columns.
func rowIDNames(name string) []string { return slices.Concat(rowIDForms(name)...) }

// hasRowID reports whether names has every column of a form of name.
func hasRowID(names map[string]bool, name string) bool {
	return slices.ContainsFunc(rowIDForms(name), func(form []string) bool {
		return !slices.ContainsFunc(form, func(c string) bool { return !names[c] })
	})
}

// recordID returns the row ID that r holds in the row-ID columns of name,
// of whichever form r has.
func recordID(r sources.Record, name string) (rowid.ID, error) {
	forms := rowIDForms(name)
	for _, form := range forms {
		var w [3]uint64
		ok := true
		for i, col := range form {
			v, has := r.Get(col)
			if !has {
				ok = false
				break
			}
			u, err := half(v)
			if err != nil {
				return rowid.ID{}, fmt.Errorf("row-ID column %q holds %v (%T), not an unsigned 64-bit integer", col, v, v)
			}
			w[i] = u
		}
		switch {
		case !ok:
		case len(form) == 3:
			return shards.RowID(w[0], w[1], w[2]), nil
		default:
			return rowid.ID{Hi: w[0], Lo: w[1]}, nil
		}
	}
	return rowid.ID{}, fmt.Errorf("a row has no row-ID columns %s (nor %s)", strings.Join(forms[0], ", "), strings.Join(forms[1], ", "))
}

// keepIDs returns p with each row's ID read from its row-ID columns, and
// those columns removed from the records (the sink writes them again).
func keepIDs(p *flow.Pipeline, name string) *flow.Pipeline {
	check := operators.Map(func(r sources.Record) (sources.Record, error) {
		_, err := recordID(r, name)
		return r, err
	})
	setIDs := operators.SetIDs(func(r sources.Record) rowid.ID {
		id, _ := recordID(r, name) // checked above
		return id
	})
	drop := &projection{drop: rowIDNames(name)}
	return p.Via(check).Via(setIDs).Via(operators.Map(drop.apply))
}

// withoutColumns returns s without the top-level columns of the names.
func withoutColumns(s *pq.Schema, names ...string) *pq.Schema {
	cols := slices.DeleteFunc(pqschema.Columns(s), func(c pqschema.Column) bool { return slices.Contains(names, c.Name) })
	return pqschema.New(s.Name(), cols...)
}
