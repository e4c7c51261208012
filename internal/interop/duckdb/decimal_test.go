package duckdb

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// decimalRow has a decimal field on each physical type shards.Parquet
// chooses (INT32, INT64, FIXED_LEN_BYTE_ARRAY) and nullable ones.
type decimalRow struct {
	ID    int64            `csv:"id" parquet:"id"`
	Price decimal.Decimal  `csv:"price" parquet:"price,decimal(2:6)"`
	Qty   *decimal.Decimal `csv:"qty" parquet:"qty,decimal(3:15)"`
	Big   *decimal.Decimal `csv:"big" parquet:"big,decimal(2:38)"`
}

// TestDuckDBReadsDecimalStructs: CSV text read into decimal.Decimal
// struct fields and written by shards.Parquet is read by DuckDB as
// DECIMAL(p,s) columns, value for value, nulls as nulls, the same as
// DuckDB's read_csv of the text with those types; rowflow reads the
// files back into the structs exactly.
func TestDuckDBReadsDecimalStructs(t *testing.T) {
	db := openDuckDB(t)
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("id,price,qty,big\n"+
		"1,-1234.5,0.001,-123456789012345678901234567890123.45\n"+
		"2,0.07,,999999999999999999999999999999999999.99\n"+
		"3,9999.99,-999999999999.999,\n"+
		"4,-0.01,-1,-0.01\n"), 0o644)
	var rows []decimalRow
	for v, err := range flow.Values[decimalRow](t.Context(), flow.From(text.CSV[decimalRow](csvPath))) {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, v)
	}
	out := filepath.Join(dir, "out")
	if err := flow.From(text.CSV[decimalRow](csvPath)).To(shards.Parquet[decimalRow](out)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	files := filepath.Join(out, "*.parquet")

	var types [3]string
	if err := db.QueryRow(`SELECT typeof(price), typeof(qty), typeof(big) FROM read_parquet('`+files+`') LIMIT 1`).Scan(&types[0], &types[1], &types[2]); err != nil {
		t.Fatal(err)
	}
	if types != [3]string{"DECIMAL(6,2)", "DECIMAL(15,3)", "DECIMAL(38,2)"} {
		t.Errorf("DuckDB reads the columns as %v", types)
	}
	want := [][]any{
		{"1", "-1234.50", "0.001", "-123456789012345678901234567890123.45"},
		{"2", "0.07", nil, "999999999999999999999999999999999999.99"},
		{"3", "9999.99", "-999999999999.999", nil},
		{"4", "-0.01", "-1.000", "-0.01"},
	}
	got, err := db.Query(`SELECT CAST(COLUMNS(*) AS VARCHAR) FROM read_parquet('` + files + `') ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	n := 0
	for ; got.Next(); n++ {
		vals := make([]any, 4)
		ptrs := []any{&vals[0], &vals[1], &vals[2], &vals[3]}
		if err := got.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i := range vals {
			if n < len(want) && vals[i] != want[n][i] {
				t.Errorf("row %d, column %d: DuckDB reads %v, want %v", n, i, vals[i], want[n][i])
			}
		}
	}
	if err := got.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Fatalf("DuckDB read %d rows, want %d", n, len(want))
	}

	csvQ := `SELECT CAST(COLUMNS(*) AS VARCHAR) FROM read_csv('` + csvPath + `', header = true, columns = {
		'id': 'BIGINT', 'price': 'DECIMAL(6,2)', 'qty': 'DECIMAL(15,3)', 'big': 'DECIMAL(38,2)'})`
	pqQ := `SELECT CAST(COLUMNS(*) AS VARCHAR) FROM read_parquet('` + files + `')`
	var diff int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM ((` + csvQ + `) EXCEPT ALL (` + pqQ + `))) + (SELECT count(*) FROM ((` + pqQ + `) EXCEPT ALL (` + csvQ + `)))`).Scan(&diff); err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Errorf("DuckDB's read_csv and its read of rowflow's Parquet differ in %d rows", diff)
	}

	var back []decimalRow
	for v, err := range flow.Values[decimalRow](t.Context(), flow.From(parquet.Read[decimalRow](out))) {
		if err != nil {
			t.Fatal(err)
		}
		back = append(back, v)
	}
	if len(back) != len(rows) {
		t.Fatalf("rowflow read back %d rows, want %d", len(back), len(rows))
	}
	same := func(a, b *decimal.Decimal) bool { return a == nil && b == nil || a != nil && b != nil && a.Equal(*b) }
	for i, r := range rows {
		b := back[i]
		if b.ID != r.ID || !b.Price.Equal(r.Price) || !same(b.Qty, r.Qty) || !same(b.Big, r.Big) {
			t.Errorf("row %d read back as %+v, want %+v", i, b, r)
		}
	}
}
