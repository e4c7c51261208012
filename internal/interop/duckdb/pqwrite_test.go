package duckdb

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/internal/parquet/pqwrite"
)

// pqwRow is what TestDuckDBReadsPqwrite writes: required, optional and
// LIST columns, an unsigned one and a boolean.
type pqwRow struct {
	ID   int64    `parquet:"id"`
	Name *string  `parquet:"name,optional"`
	Ints []int32  `parquet:"ints,list"`
	Tags []string `parquet:"tags,optional,list"`
	U    uint32   `parquet:"u"`
	F    *float64 `parquet:"f,optional"`
	B    bool     `parquet:"b"`
}

// pqwRows returns n rows with nulls, empty and null lists, and unsigned
// values on both sides of 2^31.
func pqwRows(n int) []pqwRow {
	rows := make([]pqwRow, n)
	for i := range rows {
		r := &rows[i]
		r.ID = int64(i) - 1000
		if i%5 != 0 {
			s := fmt.Sprintf("n%d", i%97)
			r.Name = &s
		}
		for j := range i % 4 {
			r.Ints = append(r.Ints, int32(i*j-50))
		}
		if i%6 != 0 {
			r.Tags = []string{}
			for j := range i % 3 {
				r.Tags = append(r.Tags, fmt.Sprintf("t%d", (i+j)%11))
			}
		}
		r.U = uint32(i) * 2654435761
		if i%7 != 0 {
			f := float64(i) / 4
			r.F = &f
		}
		r.B = i%3 == 0
	}
	return rows
}

// pqwColumns fills the writer's columns with rows.
func pqwColumns(cols []*pqwrite.Column, rows []pqwRow) {
	for _, c := range cols {
		c.Reset()
	}
	for _, r := range rows {
		cols[0].Int64 = append(cols[0].Int64, r.ID)
		cols[1].DefLevels = append(cols[1].DefLevels, 0)
		if r.Name != nil {
			cols[1].AppendString(*r.Name)
			cols[1].DefLevels[len(cols[1].DefLevels)-1] = 1
		}
		c := cols[2]
		if len(r.Ints) == 0 {
			c.DefLevels, c.RepLevels = append(c.DefLevels, 0), append(c.RepLevels, 0)
		}
		for j, v := range r.Ints {
			c.Int32 = append(c.Int32, v)
			c.DefLevels, c.RepLevels = append(c.DefLevels, 1), append(c.RepLevels, byte(min(j, 1)))
		}
		c = cols[3]
		if len(r.Tags) == 0 {
			c.DefLevels, c.RepLevels = append(c.DefLevels, byte(boolInt(r.Tags != nil))), append(c.RepLevels, 0)
		}
		for j, v := range r.Tags {
			c.AppendString(v)
			c.DefLevels, c.RepLevels = append(c.DefLevels, 2), append(c.RepLevels, byte(min(j, 1)))
		}
		cols[4].Int32 = append(cols[4].Int32, int32(r.U))
		cols[5].DefLevels = append(cols[5].DefLevels, 0)
		if r.F != nil {
			cols[5].Double = append(cols[5].Double, *r.F)
			cols[5].DefLevels[len(cols[5].DefLevels)-1] = 1
		}
		cols[6].Boolean = append(cols[6].Boolean, r.B)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// closeFile ends the file that w writes to out, and closes out.
func closeFile(t *testing.T, w *pqwrite.Writer, out *os.File) {
	t.Helper()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// renderPqw renders a row as DuckDB's values render with %v.
func renderPqw(r pqwRow) string {
	name, f, tags := "<nil>", "<nil>", "<nil>"
	if r.Name != nil {
		name = *r.Name
	}
	if r.F != nil {
		f = fmt.Sprint(*r.F)
	}
	if r.Tags != nil {
		tags = fmt.Sprint(anySlice(r.Tags))
	}
	return fmt.Sprintln(r.ID, name, anySlice(r.Ints), tags, r.U, f, r.B)
}

func anySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// TestDuckDBReadsPqwrite: a file of three row groups and many zstd pages
// written by pqwrite reads back in DuckDB value for value, and DuckDB's
// filters, which skip row groups by their statistics, count the rows Go
// counts, on the unsigned column too.
func TestDuckDBReadsPqwrite(t *testing.T) {
	db := openDuckDB(t)
	path := filepath.Join(t.TempDir(), "pqw.parquet")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	// Level 2 is zstd.SpeedDefault; this module does not require the
	// compression library directly.
	w, err := pqwrite.NewWriter(out, pq.SchemaOf(pqwRow{}),
		pqwrite.Codec(pqwrite.NewZstd(2)), pqwrite.PageSize(1<<10))
	if err != nil {
		t.Fatal(err)
	}
	rows := pqwRows(7000)
	cols := w.NewColumns()
	for _, g := range [][2]int{{0, 3000}, {3000, 3001}, {3001, 7000}} {
		pqwColumns(cols, rows[g[0]:g[1]])
		if err := w.WriteRowGroup(t.Context(), cols); err != nil {
			t.Fatal(err)
		}
	}
	closeFile(t, w, out)

	res, err := db.Query(`SELECT id, name, ints, tags, u, f, b FROM read_parquet('` + path + `')`)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for res.Next() {
		v := make([]any, 7)
		ptrs := make([]any, 7)
		for j := range v {
			ptrs[j] = &v[j]
		}
		if err := res.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if i < len(rows) {
			if got, want := fmt.Sprintln(v...), renderPqw(rows[i]); got != want {
				t.Fatalf("row %d: DuckDB reads %s, want %s", i, got, want)
			}
		}
		i++
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	res.Close()
	if i != len(rows) {
		t.Fatalf("DuckDB read %d rows, want %d", i, len(rows))
	}

	for _, q := range []struct {
		where string
		keep  func(r pqwRow) bool
	}{
		{"u > 3000000000", func(r pqwRow) bool { return r.U > 3000000000 }},
		{"id BETWEEN 2500 AND 2600", func(r pqwRow) bool { return r.ID >= 2500 && r.ID <= 2600 }},
		{"name = 'n13'", func(r pqwRow) bool { return r.Name != nil && *r.Name == "n13" }},
		{"f < 10", func(r pqwRow) bool { return r.F != nil && *r.F < 10 }},
	} {
		want := 0
		for _, r := range rows {
			if q.keep(r) {
				want++
			}
		}
		var got int
		if err := db.QueryRow(`SELECT count(*) FROM read_parquet('` + path + `') WHERE ` + q.where).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("WHERE %s: DuckDB counts %d rows, want %d", q.where, got, want)
		}
	}
}

// TestDuckDBFiltersPqwriteDecimals: DuckDB reads DECIMALs of both signs
// that pqwrite writes in FIXED_LEN_BYTE_ARRAY and in shortest-length
// BYTE_ARRAY columns, and its filters on them count the rows they hold.
// (DuckDB 1.5 does not prune by these columns' statistics: their signed
// order is checked by TestWriterFixedAndDecimals in package pqwrite.)
func TestDuckDBFiltersPqwriteDecimals(t *testing.T) {
	db := openDuckDB(t)
	path := filepath.Join(t.TempDir(), "dec.parquet")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	schema := pq.NewSchema("t", pq.Group{
		"f": pq.Decimal(2, 10, pq.FixedLenByteArrayType(5)),
		"v": pq.Decimal(2, 30, pq.ByteArrayType),
	})
	w, err := pqwrite.NewWriter(out, schema)
	if err != nil {
		t.Fatal(err)
	}
	cols := w.NewColumns()
	vals := []int64{300, -500, -100, 12345}
	for _, v := range vals {
		b := make([]byte, 5)
		for i := range b {
			b[4-i] = byte(v >> (8 * i))
		}
		cols[0].Bytes = append(cols[0].Bytes, b...)
		// The shortest two's complement: 1 or 2 bytes.
		k := 0
		for k < 4 && (b[k] == 0 && b[k+1] < 0x80 || b[k] == 0xFF && b[k+1] >= 0x80) {
			k++
		}
		cols[1].AppendBytes(b[k:])
	}
	if err := w.WriteRowGroup(t.Context(), cols); err != nil {
		t.Fatal(err)
	}
	closeFile(t, w, out)
	for _, q := range []struct {
		where string
		want  int
	}{
		{"f < 0", 2}, {"f > 100", 1}, {"f BETWEEN -5 AND -1", 2}, {"f BETWEEN -4 AND -1", 1}, {"f = 3", 1},
		{"v < 0", 2}, {"v > 100", 1}, {"v = -5", 1},
	} {
		var got int
		if err := db.QueryRow(`SELECT count(*) FROM read_parquet('` + path + `') WHERE ` + q.where).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != q.want {
			t.Errorf("WHERE %s: DuckDB counts %d rows, want %d", q.where, got, q.want)
		}
	}
	var sum string
	if err := db.QueryRow(`SELECT sum(f)::VARCHAR || ' ' || sum(v)::VARCHAR FROM read_parquet('` + path + `')`).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != "120.45 120.45" {
		t.Errorf("DuckDB sums %s, want 120.45 120.45", sum)
	}
}
