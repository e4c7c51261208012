package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// verifyAgainst compares two datasets as sets of rows keyed by the row
// IDs their row-ID columns hold, whatever their layout and order.
//
// Rows are compared as values by column name, so that the Parquet and the
// JSON Lines output of one input compare equal (see row): the order of the
// columns does not count, nor does a null column against an absent one, a
// list's leaf path (a.list.element) against its name (a), or an empty
// list against a null one. A bytes column of a Parquet dataset is compared
// with the other dataset's text column of that name as raw bytes, or, when
// every value of the text column is base64 (as JSON Lines writers, reshard
// -format jsonl among them, write bytes), with the bytes the base64 gives.
func verifyAgainst(ctx context.Context, a, b, idCol string, stdout io.Writer) error {
	decodeA, decodeB, err := base64Columns(ctx, a, b)
	if err != nil {
		return err
	}
	for _, d := range []struct {
		path, other string
		cols        map[string]bool
	}{{a, b, decodeA}, {b, a, decodeB}} {
		for _, name := range slices.Sorted(maps.Keys(d.cols)) {
			fmt.Fprintf(stdout, "column %s of %s is base64: compared with the bytes of %s's column\n", name, d.path, d.other)
		}
	}
	pa, err := keyed(a, idCol, decodeA)
	if err != nil {
		return err
	}
	pb, err := keyed(b, idCol, decodeB)
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

// row is a record without its row-ID columns, in a form that does not
// depend on the format it was read from: its columns sorted by name, each
// named as columnName gives, null columns and empty lists left out, and
// values as text (see cellText).
type row struct {
	Names  []string
	Values []string
}

// columnName returns the name that a record's column compares under: a
// list's leaf path in the standard LIST layout, a.list.element (k times),
// is the list's name a, as JSON Lines and -schema name the list.
func columnName(name string) string {
	for {
		base, ok := strings.CutSuffix(name, ".list.element")
		if !ok || base == "" {
			return name
		}
		name = base
	}
}

// keyed reads the dataset at path with each row's ID taken from its
// row-ID columns, as rows; the string values of the columns in decode are
// read as base64.
func keyed(path, idCol string, decode map[string]bool) (*flow.Pipeline, error) {
	p, err := input{parallel: 2}.pipeline(path)
	if err != nil {
		return nil, err
	}
	idCols := rowIDNames(idCol)
	return p.Via(operators.FlatMap(func(r sources.Record) ([]keyedRow, error) {
		id, err := recordID(r, idCol)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out, err := rowOf(r, idCols, decode)
		if err != nil {
			return nil, fmt.Errorf("%s: row %s: %w", path, id, err)
		}
		return []keyedRow{{id, out}}, nil
	})).Via(operators.SetIDs(func(k keyedRow) rowid.ID { return k.id })).
		Via(operators.Map(func(k keyedRow) (row, error) { return k.row, nil })), nil
}

// rowOf returns the row of the record r, less the columns skip.
func rowOf(r sources.Record, skip []string, decode map[string]bool) (row, error) {
	type cell struct{ name, value string }
	var cells []cell
	seen := map[string]bool{}
	for i, name := range r.Names {
		if slices.Contains(skip, name) || seen[columnName(name)] {
			continue
		}
		name = columnName(name)
		seen[name] = true
		v := r.Values[i]
		if l, ok := v.([]any); v == nil || ok && len(l) == 0 {
			continue
		}
		if decode[name] {
			var err error
			if v, err = fromBase64(v); err != nil {
				return row{}, fmt.Errorf("column %s: %w", name, err)
			}
		}
		cells = append(cells, cell{name, cellText(v)})
	}
	slices.SortFunc(cells, func(a, b cell) int { return strings.Compare(a.name, b.name) })
	var out row
	for _, c := range cells {
		out.Names = append(out.Names, c.name)
		out.Values = append(out.Values, c.value)
	}
	return out, nil
}

type keyedRow struct {
	id  rowid.ID
	row row
}

// half reads a word of a row ID, as Parquet gives it (int64 holding the
// unsigned bits) or JSON Lines and CSV records do (json.Number, string).
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

// cellText formats a value the same way whichever format it was read from;
// a list's elements are formatted the same way, a null one as null.
func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return floatText(x, 64)
	case float32:
		return floatText(float64(x), 32)
	case []byte:
		return string(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return strconv.FormatInt(i, 10)
		}
		if !strings.ContainsAny(string(x), ".eE") {
			return string(x) // an integer beyond int64, as uint64 columns give it
		}
		if f, err := x.Float64(); err == nil {
			return floatText(f, 64)
		}
		return string(x)
	case []any:
		elems := make([]string, len(x))
		for i, e := range x {
			elems[i] = cellText(e)
			if e == nil {
				elems[i] = "null"
			}
		}
		return "[" + strings.Join(elems, " ") + "]"
	}
	return fmt.Sprint(v)
}

// floatText formats a float of the given bits as cellText does whatever
// format it was read from: a whole number of int64's range as that
// integer, since JSON writers spell such a float as one (1000000 for
// 1e+06); any other as its shortest text (1e-05 where JSON has 0.00001).
func floatText(f float64, bits int) string {
	if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}
