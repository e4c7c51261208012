package duckdb

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// sinkRow is what the test writes with shards.Parquet: required and
// optional values of each Go kind, and lists.
type sinkRow struct {
	ID    int64    `parquet:"id"`
	I8    int8     `parquet:"i8"`
	I32   int32    `parquet:"i32"`
	U32   uint32   `parquet:"u32"`
	U64   uint64   `parquet:"u64"`
	F32   float32  `parquet:"f32"`
	F64   float64  `parquet:"f64"`
	S     string   `parquet:"s"`
	SOpt  *string  `parquet:"s_opt,optional"`
	IOpt  *int64   `parquet:"i_opt,optional"`
	B     []byte   `parquet:"b"`
	Bool  bool     `parquet:"bool"`
	L     []int64  `parquet:"l,list"`
	Names []string `parquet:"names,list"`
}

func sinkRows(n int) []sinkRow {
	floats := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, math.MaxFloat64, math.SmallestNonzeroFloat64, -1.5}
	rows := make([]sinkRow, n)
	for i := range rows {
		h := uint64(i)*0x9e3779b97f4a7c15 + 1
		r := sinkRow{
			ID: int64(i), I8: int8(h), I32: int32(h >> 7), U32: uint32(h >> 3), U64: h,
			F32: float32(floats[i%len(floats)]), F64: floats[(i+3)%len(floats)] * float64(i%3+1),
			S: fmt.Sprintf("s%d-%x", i%7, h%1000), B: []byte(strconv.Itoa(i)), Bool: i%2 == 0,
		}
		if i%3 != 0 {
			s := fmt.Sprint("opt", i)
			r.SOpt = &s
		}
		if i%4 != 1 {
			v := int64(h) >> 1
			r.IOpt = &v
		}
		for k := range i % 5 {
			r.L = append(r.L, int64(h)+int64(k)*math.MaxInt64/3)
		}
		for k := range i % 3 {
			r.Names = append(r.Names, fmt.Sprintf("n%d", (i+k)%4))
		}
		rows[i] = r
	}
	return rows
}

// renderSinkRow renders a row as renderDuckDB renders DuckDB's read of it.
func renderSinkRow(r sinkRow) []string {
	v := reflect.ValueOf(r)
	out := make([]string, v.NumField())
	for i := range out {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Slice:
			if f.Type().Elem().Kind() == reflect.Uint8 {
				out[i] = fmt.Sprintf("%x", f.Bytes())
				continue
			}
			var elems []any
			for k := range f.Len() {
				elems = append(elems, f.Index(k).Interface())
			}
			out[i] = renderList(elems, func(e any) string { return renderField(reflect.ValueOf(e)) })
		default:
			out[i] = renderField(f)
		}
	}
	return out
}

// TestDuckDBReadsShards writes rows with shards.Parquet, in several
// files of small row groups, and reads them back with DuckDB: every value
// must be the one written.
func TestDuckDBReadsShards(t *testing.T) {
	db := openDuckDB(t)
	for _, codec := range []string{"zstd", "snappy", "gzip", "lz4", "none"} {
		dir := t.TempDir()
		rows := sinkRows(5000)
		p := flow.From(sources.Slice(rows)).To(shards.Parquet[sinkRow](dir,
			shards.RowsPerFile(2000), shards.RowGroupRows(300), shards.Compression(codec)))
		if err := p.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		typ := reflect.TypeFor[sinkRow]()
		cols := make([]string, typ.NumField())
		for i := range cols {
			cols[i] = fmt.Sprintf("%q", typ.Field(i).Name)
			if tag := typ.Field(i).Tag.Get("parquet"); tag != "" {
				cols[i] = fmt.Sprintf("%q", tagName(tag))
			}
		}
		q := fmt.Sprintf("SELECT %s FROM read_parquet('%s', filename = true, file_row_number = true) ORDER BY filename, file_row_number",
			strings.Join(cols, ", "), filepath.Join(dir, "*.parquet"))
		res, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n := 0
		for ; res.Next(); n++ {
			if err := res.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			if n >= len(rows) {
				continue
			}
			want := renderSinkRow(rows[n])
			for c, v := range vals {
				got := renderDuckDB(v, leafKind{})
				if typ.Field(c).Type.Kind() == reflect.Slice && typ.Field(c).Type.Elem().Kind() == reflect.Uint8 && got == null {
					got = ""
				}
				if got != want[c] {
					t.Errorf("%s: row %d, column %s: DuckDB reads %s, rowflow wrote %s", codec, n, cols[c], got, want[c])
				}
			}
		}
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		res.Close()
		if n != len(rows) {
			t.Fatalf("%s: DuckDB reads %d rows, rowflow wrote %d", codec, n, len(rows))
		}
	}
}

func tagName(tag string) string {
	name, _, _ := strings.Cut(tag, ",")
	return name
}
