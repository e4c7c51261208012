package duckdb

import (
	"os"
	"path/filepath"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqschema"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// TestDuckDBReadsLogicalTypes writes CSV text into timestamp, date, time
// and decimal columns with shards.Parquet[sources.Record], and DuckDB
// reads them back as those types, value for value, nulls as nulls.
func TestDuckDBReadsLogicalTypes(t *testing.T) {
	db := openDuckDB(t)
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("ts,tstz,ns,d,t,price,qty,big\n"+
		"2024-03-01 10:20:30.123456,2024-03-01T10:20:30.5+02:00,1969-12-31T23:59:59.999999999,1969-12-31,23:59:59.999999,-1234.5,0.001,-12345678901234567890.12\n"+
		",,,,,,,\n"), 0o644)
	opt := pq.Optional
	schema := pqschema.New("record",
		pqschema.Column{Name: "ts", Node: opt(pq.TimestampAdjusted(pq.Microsecond, false))},
		pqschema.Column{Name: "tstz", Node: opt(pq.TimestampAdjusted(pq.Millisecond, true))},
		pqschema.Column{Name: "ns", Node: opt(pq.TimestampAdjusted(pq.Nanosecond, false))}, // DuckDB keeps ns without a zone
		pqschema.Column{Name: "d", Node: opt(pq.Date())},
		pqschema.Column{Name: "t", Node: opt(pq.TimeAdjusted(pq.Microsecond, false))},
		pqschema.Column{Name: "price", Node: opt(pq.Decimal(2, 6, pq.Int32Type))},
		pqschema.Column{Name: "qty", Node: opt(pq.Decimal(3, 15, pq.Int64Type))},
		pqschema.Column{Name: "big", Node: opt(pq.Decimal(2, 30, pq.FixedLenByteArrayType(13)))},
	)
	out := filepath.Join(t.TempDir(), "out")
	if err := flow.From(text.CSV[sources.Record](csvPath)).To(shards.Parquet[sources.Record](out, shards.Schema(schema))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	q := `SELECT typeof(ts), typeof(tstz), typeof(d), typeof(t), typeof(price), typeof(big),
		CAST(ts AS VARCHAR), CAST(tstz AS VARCHAR), CAST(ns AS VARCHAR), CAST(d AS VARCHAR), CAST(t AS VARCHAR),
		CAST(price AS VARCHAR), CAST(qty AS VARCHAR), CAST(big AS VARCHAR)
		FROM read_parquet('` + filepath.Join(out, "*.parquet") + `', file_row_number = true) ORDER BY file_row_number`
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := [][]any{
		{"TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "DATE", "TIME", "DECIMAL(6,2)", "DECIMAL(30,2)",
			"2024-03-01 10:20:30.123456", "2024-03-01 08:20:30.5+00", "1969-12-31 23:59:59.999999999", "1969-12-31", "23:59:59.999999",
			"-1234.50", "0.001", "-12345678901234567890.12"},
		{"TIMESTAMP", "TIMESTAMP WITH TIME ZONE", "DATE", "TIME", "DECIMAL(6,2)", "DECIMAL(30,2)",
			nil, nil, nil, nil, nil, nil, nil, nil},
	}
	n := 0
	for ; rows.Next(); n++ {
		got := make([]any, len(want[0]))
		ptrs := make([]any, len(got))
		for i := range got {
			ptrs[i] = &got[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if n >= len(want) {
			continue
		}
		for i := range got {
			if got[i] != want[n][i] {
				t.Errorf("row %d, value %d: DuckDB reads %v, want %v", n, i, got[i], want[n][i])
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Fatalf("DuckDB read %d rows, want %d", n, len(want))
	}

	// DuckDB's own read_csv of the same file, with the same types, gives
	// the same values as its read of rowflow's Parquet output.
	cols := "ts, tstz, ns, d, t, price, qty, big"
	csvQ := `SELECT CAST(COLUMNS(*) AS VARCHAR) FROM read_csv('` + csvPath + `', header = true, columns = {
		'ts': 'TIMESTAMP', 'tstz': 'TIMESTAMPTZ', 'ns': 'TIMESTAMP_NS', 'd': 'DATE', 't': 'TIME',
		'price': 'DECIMAL(6,2)', 'qty': 'DECIMAL(15,3)', 'big': 'DECIMAL(30,2)'})`
	pqQ := `SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (SELECT ` + cols + ` FROM read_parquet('` + filepath.Join(out, "*.parquet") + `'))`
	var diff, csvRows int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM ((`+csvQ+`) EXCEPT ALL (`+pqQ+`))) + (SELECT count(*) FROM ((`+pqQ+`) EXCEPT ALL (`+csvQ+`))), (SELECT count(*) FROM (`+csvQ+`))`).Scan(&diff, &csvRows); err != nil {
		t.Fatal(err)
	}
	if diff != 0 || csvRows != 2 {
		t.Errorf("DuckDB's read_csv (%d rows) and its read of rowflow's Parquet differ in %d rows", csvRows, diff)
	}
}
