package duckdb

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// scalarRow maps the scalars table's columns that Go types hold to a
// struct, for rowflow's typed source.
type scalarRow struct {
	ID      int64    `parquet:"id"`
	I8      *int8    `parquet:"i8"`
	I16     *int16   `parquet:"i16"`
	I32     *int32   `parquet:"i32"`
	I64     *int64   `parquet:"i64"`
	U8      *uint8   `parquet:"u8"`
	U16     *uint16  `parquet:"u16"`
	U32     *uint32  `parquet:"u32"`
	U32High *uint32  `parquet:"u32_high"`
	U64     *uint64  `parquet:"u64"`
	F32     *float32 `parquet:"f32"`
	F64     *float64 `parquet:"f64"`
	SLow    *string  `parquet:"s_low"`
	SHigh   *string  `parquet:"s_high"`
	Bytes   []byte   `parquet:"bytes"`
	Bool    *bool    `parquet:"bool"`
	Enum    *string  `parquet:"enum"`
}

// renderField renders a struct field as renderDuckDB renders the column.
func renderField(v reflect.Value) string {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return null
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Float32:
		return strconv.FormatFloat(v.Float(), 'g', -1, 32)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Slice:
		return fmt.Sprintf("%x", v.Bytes())
	}
	return fmt.Sprint(v.Interface())
}

// TestDuckDBWritesStructs reads files of the scalars table into structs
// with rowflow's typed source and compares every field with DuckDB's read.
func TestDuckDBWritesStructs(t *testing.T) {
	db := openDuckDB(t)
	dir := t.TempDir()
	typ := reflect.TypeFor[scalarRow]()
	for _, n := range []int{0, 1, 129, 4097} {
		for _, v := range []string{"V1", "V2"} {
			name := fmt.Sprintf("scalars-%d-%s.parquet", n, v)
			path := filepath.Join(dir, name)
			duckWrite(t, db, path, withNulls(scalars), n, writeOptions{version: v, codec: "zstd", rowGroup: 1000})
			var leaves []pqcol.Leaf
			for _, l := range leavesOf(t, path) {
				for i := range typ.NumField() {
					if typ.Field(i).Tag.Get("parquet") == l.PathString() {
						leaves = append(leaves, l)
					}
				}
			}
			if len(leaves) != typ.NumField() {
				t.Fatalf("%s: %d of the struct's %d fields are columns", name, len(leaves), typ.NumField())
			}
			want := duckRead(t, db, path, leaves)
			// A []byte field cannot tell a null from an empty value.
			for _, row := range want {
				for c, l := range leaves {
					if l.PathString() == "bytes" && row[c] == null {
						row[c] = ""
					}
				}
			}
			var got [][]string
			src := parquet.Read[scalarRow](dir, sources.Files(path))
			for row, err := range flow.Values[scalarRow](t.Context(), flow.From(src)) {
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				rv := reflect.ValueOf(row)
				var out []string
				for _, l := range leaves {
					for i := range typ.NumField() {
						if typ.Field(i).Tag.Get("parquet") == l.PathString() {
							out = append(out, renderField(rv.Field(i)))
						}
					}
				}
				got = append(got, out)
			}
			compareRows(t, name, leaves, got, want)
		}
	}
}
