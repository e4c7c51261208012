package pqcol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
)

// A flat is a column in a form that decoders can be compared in: the
// levels, the number of rows, and each non-null value as a string.
type flat struct {
	def, rep []byte
	values   []string
	rows     int64
}

func int96Key(v deprecated.Int96) string {
	return fmt.Sprintf("%08x%08x%08x", v[2], v[1], v[0])
}

// valueKey renders a parquet-go value of the given physical kind.
func valueKey(kind parquet.Kind, v parquet.Value) string {
	switch kind {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Int96:
		return int96Key(v.Int96())
	case parquet.Float:
		return "f" + strconv.FormatUint(uint64(math.Float32bits(v.Float())), 16)
	case parquet.Double:
		return "d" + strconv.FormatUint(math.Float64bits(v.Double()), 16)
	}
	return string(v.ByteArray())
}

// columnKeys renders the values of a Column like valueKey.
func columnKeys(c *Column) []string {
	out := make([]string, 0, c.Len())
	for i := range c.Len() {
		var s string
		switch c.Leaf.Kind {
		case parquet.Boolean:
			s = strconv.FormatBool(c.Boolean[i])
		case parquet.Int32:
			s = strconv.FormatInt(int64(c.Int32[i]), 10)
		case parquet.Int64:
			s = strconv.FormatInt(c.Int64[i], 10)
		case parquet.Int96:
			s = int96Key(c.Int96[i])
		case parquet.Float:
			s = "f" + strconv.FormatUint(uint64(math.Float32bits(c.Float[i])), 16)
		case parquet.Double:
			s = "d" + strconv.FormatUint(math.Float64bits(c.Double[i]), 16)
		case parquet.ByteArray:
			s = string(c.ByteArray(i))
		case parquet.FixedLenByteArray:
			s = string(c.FixedLenByteArray(i))
		}
		out = append(out, s)
	}
	return out
}

func flatOf(c *Column) flat {
	return flat{
		def:    slices.Clone(c.DefLevels),
		rep:    slices.Clone(c.RepLevels),
		values: columnKeys(c),
		rows:   c.NumRows,
	}
}

// referenceRowGroup reads a row group with parquet-go's row reader (the
// correctness reference) and flattens each leaf column.
func referenceRowGroup(f *parquet.File, leaves []Leaf, rg int) (cols []flat, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("parquet-go panicked: %v", v)
		}
	}()
	cols = make([]flat, len(leaves))
	rows := f.RowGroups()[rg].Rows()
	defer rows.Close()
	buf := make([]parquet.Row, 128)
	for {
		n, err := rows.ReadRows(buf)
		for _, row := range buf[:n] {
			seen := make([]bool, len(leaves))
			for _, v := range row {
				i := v.Column()
				l := &leaves[i]
				c := &cols[i]
				if !seen[i] {
					seen[i] = true
					c.rows++
				}
				if l.MaxDefinitionLevel > 0 {
					c.def = append(c.def, byte(v.DefinitionLevel()))
				}
				if l.MaxRepetitionLevel > 0 {
					c.rep = append(c.rep, byte(v.RepetitionLevel()))
				}
				if v.DefinitionLevel() == l.MaxDefinitionLevel {
					c.values = append(c.values, valueKey(l.Kind, v))
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return cols, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// equalFlat reports the first difference between two flattened columns.
func equalFlat(got, want flat) error {
	if got.rows != want.rows {
		return fmt.Errorf("rows: got %d, want %d", got.rows, want.rows)
	}
	if !slices.Equal(got.def, want.def) {
		return fmt.Errorf("definition levels differ (%d vs %d entries) at %d", len(got.def), len(want.def), firstDiff(got.def, want.def))
	}
	if !slices.Equal(got.rep, want.rep) {
		return fmt.Errorf("repetition levels differ (%d vs %d entries) at %d", len(got.rep), len(want.rep), firstDiff(got.rep, want.rep))
	}
	if len(got.values) != len(want.values) {
		return fmt.Errorf("values: got %d, want %d", len(got.values), len(want.values))
	}
	for i := range got.values {
		if got.values[i] != want.values[i] {
			return fmt.Errorf("value %d: got %q, want %q", i, got.values[i], want.values[i])
		}
	}
	return nil
}

func firstDiff[T comparable](a, b []T) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// openTest opens a Parquet file for a test; the file is closed at cleanup.
func openTest(t testing.TB, path, name string, options ...Option) *Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(name, f, st.Size(), options...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return r
}

// readAll reads every column chunk of every row group, returning the
// flattened columns per row group, or the first error.
func readAll(ctx context.Context, r *Reader) ([][]flat, error) {
	var col Column
	out := make([][]flat, r.NumRowGroups())
	for rg := range out {
		for c := range r.Leaves() {
			if err := r.ReadColumn(ctx, rg, c, &col); err != nil {
				return nil, err
			}
			out[rg] = append(out[rg], flatOf(&col))
		}
	}
	return out, nil
}
