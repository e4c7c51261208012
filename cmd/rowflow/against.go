package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// verifyAgainst compares two datasets as sets of rows keyed by the row
// IDs their row-ID columns hold, whatever their layout and order.
func verifyAgainst(ctx context.Context, a, b, idCol string, stdout io.Writer) error {
	pa, err := keyed(a, idCol)
	if err != nil {
		return err
	}
	pb, err := keyed(b, idCol)
	if err != nil {
		return err
	}
	if err := determinism.CompareByID[row](ctx, pa, pb); err != nil {
		return err
	}
	sum, err := determinism.SumOf[row](ctx, pa)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ok: %s and %s hold the same %d rows by row ID\n", a, b, sum.Count)
	return nil
}

// row is a record without its row-ID columns, with its values as text, so
// that a dataset read from Parquet and one read from JSON Lines compare.
type row struct {
	Names  []string
	Values []string
}

// keyed reads the dataset at path with each row's ID taken from its
// row-ID columns.
func keyed(path, idCol string) (*flow.Pipeline, error) {
	p, err := input{parallel: 2}.pipeline(path)
	if err != nil {
		return nil, err
	}
	hi, lo := idCol+"_hi", idCol+"_lo"
	return p.Via(operators.FlatMap(func(r sources.Record) ([]keyedRow, error) {
		h, okh := r.Get(hi)
		l, okl := r.Get(lo)
		if !okh || !okl {
			return nil, fmt.Errorf("%s: a row has no columns %s and %s", path, hi, lo)
		}
		id, err := idOf(h, l)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var out row
		for i, name := range r.Names {
			if name == hi || name == lo || slices.Contains(out.Names, name) {
				continue
			}
			out.Names = append(out.Names, name)
			out.Values = append(out.Values, text(r.Values[i]))
		}
		return []keyedRow{{id, out}}, nil
	})).Via(operators.SetIDs(func(k keyedRow) rowid.ID { return k.id })).
		Via(operators.Map(func(k keyedRow) (row, error) { return k.row, nil })), nil
}

type keyedRow struct {
	id  rowid.ID
	row row
}

// idOf reads the two halves of a row ID, as Parquet gives them (int64
// holding the unsigned bits) or JSON Lines records do (json.Number).
func idOf(h, l any) (rowid.ID, error) {
	hv, err := half(h)
	if err != nil {
		return rowid.ID{}, err
	}
	lv, err := half(l)
	return rowid.ID{Hi: hv, Lo: lv}, err
}

func half(v any) (uint64, error) {
	switch x := v.(type) {
	case int64:
		return uint64(x), nil
	case uint64:
		return x, nil
	case int32:
		return uint64(uint32(x)), nil
	case json.Number:
		return strconv.ParseUint(string(x), 10, 64)
	case string:
		return strconv.ParseUint(x, 10, 64)
	}
	return 0, fmt.Errorf("row ID half %v (%T) is not an unsigned integer", v, v)
}

// text formats a value the same way whichever format it was read from.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case []byte:
		return string(x)
	case json.Number:
		if f, err := x.Float64(); err == nil && strconv.FormatFloat(f, 'g', -1, 64) == string(x) {
			return string(x)
		}
		if i, err := x.Int64(); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return string(x)
	}
	return fmt.Sprint(v)
}
