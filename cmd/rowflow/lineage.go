package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/dataset"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
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
	if rowID != "" && names[rowID+"_hi"] && names[rowID+"_lo"] {
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

// keepIDs returns p with each row's ID read from its row-ID columns, and
// those columns removed from the records (the sink writes them again).
func keepIDs(p *flow.Pipeline, name string) *flow.Pipeline {
	hi, lo := name+"_hi", name+"_lo"
	half := func(r sources.Record, col string) (uint64, error) {
		v, _ := r.Get(col)
		switch v := v.(type) {
		case uint64:
			return v, nil
		case json.Number: // JSON Lines
			if u, err := strconv.ParseUint(string(v), 10, 64); err == nil {
				return u, nil
			}
		case string: // CSV
			if u, err := strconv.ParseUint(v, 10, 64); err == nil {
				return u, nil
			}
		}
		return 0, fmt.Errorf("row-ID column %q holds %v (%T), not an unsigned 64-bit integer", col, v, v)
	}
	check := operators.Map(func(r sources.Record) (sources.Record, error) {
		if _, err := half(r, hi); err != nil {
			return r, err
		}
		_, err := half(r, lo)
		return r, err
	})
	setIDs := operators.SetIDs(func(r sources.Record) rowid.ID {
		h, _ := half(r, hi) // checked above
		l, _ := half(r, lo)
		return rowid.ID{Hi: h, Lo: l}
	})
	drop := &projection{drop: []string{hi, lo}}
	return p.Via(check).Via(setIDs).Via(operators.Map(drop.apply))
}

// withoutColumns returns s without the top-level columns of the names.
func withoutColumns(s *pq.Schema, names ...string) *pq.Schema {
	cols := slices.DeleteFunc(pqschema.Columns(s), func(c pqschema.Column) bool { return slices.Contains(names, c.Name) })
	return pqschema.New(s.Name(), cols...)
}
