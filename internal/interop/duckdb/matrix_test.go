package duckdb

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// column is a column of a table that DuckDB writes: its name and the SQL
// expression that makes it from the row number i.
type column struct{ name, expr string }

// nullable makes about one value in seven of a column null.
func nullable(k int, c column) column {
	c.expr = fmt.Sprintf("CASE WHEN hash(i * 7919 + %d) %% 7 = 0 THEN NULL ELSE %s END", k, c.expr)
	return c
}

// scalars covers the primitive and logical types: integers across their
// whole range (so that INT32 deltas need 33 bits and UINT_32 values lie
// above 2^31), floats with NaN, ±0 and ±Inf, decimals of each physical
// type, strings of low and high cardinality, bytes, dates, timestamps of
// each unit, times, UUIDs, intervals and enums.
var scalars = []column{
	{"id", "i::BIGINT"},
	{"i8", "((hash(i) % 256)::SMALLINT - 128)::TINYINT"},
	{"i16", "((hash(i) % 65536)::INTEGER - 32768)::SMALLINT"},
	{"i32", "((hash(i) % 4294967296)::BIGINT - 2147483648)::INTEGER"},
	{"i32_sorted", "(i * 3 - 1000)::INTEGER"},
	{"i64", "(hash(i)::HUGEINT - 9223372036854775808)::BIGINT"},
	{"u8", "(hash(i) % 256)::UTINYINT"},
	{"u16", "(hash(i) % 65536)::USMALLINT"},
	{"u32", "(hash(i) % 4294967296)::UINTEGER"},
	{"u32_high", "(4294967295 - i * 1000)::UINTEGER"},
	{"u64", "hash(i)"},
	{"f32", "CASE i % 9 WHEN 0 THEN 'nan'::FLOAT WHEN 1 THEN 'inf'::FLOAT WHEN 2 THEN '-inf'::FLOAT WHEN 3 THEN '-0.0'::FLOAT WHEN 4 THEN 0::FLOAT ELSE ((hash(i) % 2000001)::INTEGER - 1000000)::FLOAT / 7 END"},
	{"f64", "CASE i % 11 WHEN 0 THEN 'nan'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE WHEN 2 THEN '-inf'::DOUBLE WHEN 3 THEN '-0.0'::DOUBLE WHEN 4 THEN 0::DOUBLE ELSE (hash(i) % 2000000000001)::DOUBLE / -3.0 END"},
	{"dec4", "(((hash(i) % 19999)::INTEGER - 9999) / 100)::DECIMAL(4,2)"},
	{"dec18", "CAST(((hash(i) % 1999999999999999)::BIGINT - 999999999999999)::VARCHAR || '.' || (i % 1000)::VARCHAR AS DECIMAL(18,3))"},
	{"dec38", "CAST(CASE WHEN i % 2 = 0 THEN '-' ELSE '' END || hash(i)::VARCHAR || (hash(i + 1) % 100000000)::VARCHAR || '.' || lpad((i % 10000000000)::VARCHAR, 10, '0') AS DECIMAL(38,10))"},
	{"s_low", "'v' || (i % 5)"},
	{"s_high", "md5(i::VARCHAR) || repeat('é', (i % 4)::INTEGER)"},
	{"s_empty", "CASE WHEN i % 4 = 0 THEN '' ELSE 'x' || i END"},
	{"bytes", "CASE WHEN i % 5 = 0 THEN ''::BLOB ELSE unhex(md5(i::VARCHAR) || '00') END"},
	{"bool", "i % 3 = 0"},
	{"date", "DATE '1970-01-01' + ((hash(i) % 2000000)::INTEGER - 1000000)"},
	{"ts_us", "make_timestamp(((hash(i) % 6000000000000000)::BIGINT - 3000000000000000))"},
	{"ts_ms", "make_timestamp(((hash(i) % 6000000000000000)::BIGINT - 3000000000000000))::TIMESTAMP_MS"},
	{"ts_ns", "make_timestamp(((hash(i) % 6000000000000000)::BIGINT - 3000000000000000))::TIMESTAMP_NS"},
	{"ts_s", "make_timestamp(((hash(i) % 6000000000000000)::BIGINT - 3000000000000000))::TIMESTAMP_S"},
	{"ts_tz", "make_timestamp(((hash(i) % 6000000000000000)::BIGINT - 3000000000000000))::TIMESTAMPTZ"},
	{"time", "TIME '00:00:00' + to_microseconds((hash(i) % 86400000000)::BIGINT)"},
	{"uuid", "md5(i::VARCHAR)::UUID"},
	{"interval", "to_days((i % 100)::INTEGER) + to_months((i % 13)::INTEGER) + to_milliseconds((i % 1000)::BIGINT)"},
	{"enum", "(['sad', 'ok', 'happy'])[(i % 3) + 1]::mood"},
}

// nested covers lists (null, empty, with null elements), nested lists,
// structs, lists of structs, structs of lists, maps and fixed-size arrays.
var nested = []column{
	{"id", "i::BIGINT"},
	{"l", "CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN [] ELSE list_transform(range((i % 9)::BIGINT), lambda x: CASE WHEN x = 3 THEN NULL ELSE ((hash(i * 31 + x) % 4294967296)::BIGINT - 2147483648)::INTEGER END) END"},
	{"ll", "CASE i % 5 WHEN 0 THEN NULL ELSE list_transform(range((i % 4)::BIGINT), lambda x: CASE WHEN x = 1 THEN NULL ELSE list_transform(range(x), lambda y: (i * y)::INTEGER) END) END"},
	{"ls", "list_transform(range((i % 5)::BIGINT), lambda x: 'w' || ((i + x) % 3))"},
	{"st", "CASE WHEN i % 4 = 0 THEN NULL ELSE {'a': CASE WHEN i % 3 = 0 THEN NULL ELSE i::INTEGER END, 'b': 'n' || i} END"},
	{"lst", "list_transform(range((i % 4)::BIGINT), lambda x: CASE WHEN x = 2 THEN NULL ELSE {'a': (x * i)::BIGINT, 'b': md5(x::VARCHAR)} END)"},
	{"stl", "{'xs': CASE WHEN i % 3 = 0 THEN NULL ELSE [i, i + 1] END, 'y': i::DOUBLE / 4}"},
	{"m", "CASE WHEN i % 5 = 0 THEN NULL ELSE map_from_entries(list_transform(range((i % 4)::BIGINT), lambda x: {'k': 'k' || x, 'v': CASE WHEN x = 1 THEN NULL ELSE (i + x)::INTEGER END})) END"},
	{"arr", "[i, NULL, i + 2]::INTEGER[3]"},
}

// nullArrays is what DuckDB writes invalidly: its fixed-size ARRAY with
// null arrays.
var nullArrays = []column{
	{"id", "i::BIGINT"},
	{"arr", "CAST(CASE WHEN i % 3 = 1 THEN NULL ELSE [i, i + 1] END AS INTEGER[2])"},
}

// withNulls makes every column but the id and the fixed-size array (see
// nullArrays) nullable.
func withNulls(cols []column) []column {
	out := make([]column, len(cols))
	for k, c := range cols {
		if c.name != "id" && c.name != "arr" {
			c = nullable(k, c)
		}
		out[k] = c
	}
	return out
}

// openDuckDB opens an in-memory DuckDB on one connection, in UTC, with the
// matrix's enum type.
func openDuckDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, q := range []string{"SET TimeZone = 'UTC'", "SET threads = 1", "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}

// writeOptions are the options of DuckDB's COPY ... (FORMAT parquet).
type writeOptions struct {
	version  string // V1 or V2: the encodings (PARQUET_VERSION)
	codec    string
	rowGroup int // rows per row group; 0 for DuckDB's default
}

func (o writeOptions) String() string {
	s := o.version + "-" + o.codec
	if o.rowGroup > 0 {
		s += fmt.Sprintf("-rg%d", o.rowGroup)
	}
	return s
}

// duckWrite has DuckDB write n rows of cols to path.
func duckWrite(t testing.TB, db *sql.DB, path string, cols []column, n int, o writeOptions) {
	t.Helper()
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = c.expr + " AS " + c.name
	}
	opts := fmt.Sprintf("FORMAT parquet, PARQUET_VERSION %s, COMPRESSION %s", o.version, o.codec)
	if o.rowGroup > 0 {
		opts += fmt.Sprintf(", ROW_GROUP_SIZE %d", o.rowGroup)
	}
	q := fmt.Sprintf("COPY (SELECT %s FROM range(%d) r(i) ORDER BY i) TO '%s' (%s)", strings.Join(exprs, ", "), n, path, opts)
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("DuckDB writing %s: %v", filepath.Base(path), err)
	}
}

// projection is the DuckDB expression that gives a rowflow leaf's values:
// the leaf path's lists become list_transform, map keys and values
// map_keys and map_values, struct fields field accesses.
func projection(path []string) string {
	var proj func(expr string, rest []string, depth int) string
	proj = func(expr string, rest []string, depth int) string {
		if len(rest) == 0 {
			return expr
		}
		elem := func(list string) string {
			x := fmt.Sprintf("x%d", depth)
			return fmt.Sprintf("list_transform(%s, lambda %s: %s)", list, x, proj(x, rest[2:], depth+1))
		}
		switch {
		case len(rest) >= 2 && rest[0] == "list" && rest[1] == "element":
			return elem(expr)
		case len(rest) >= 2 && rest[0] == "key_value" && rest[1] == "key":
			return elem("map_keys(" + expr + ")")
		case len(rest) >= 2 && rest[0] == "key_value" && rest[1] == "value":
			return elem("map_values(" + expr + ")")
		}
		return proj(fmt.Sprintf("%s.%q", expr, rest[0]), rest[1:], depth)
	}
	return proj(fmt.Sprintf("%q", path[0]), path[1:], 0)
}

// leavesOf lists a file's leaf columns with pqcol.
func leavesOf(t testing.TB, path string) []pqcol.Leaf {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	r, err := pqcol.Open(path, f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return r.Leaves()
}

// duckRead reads the leaves of the file at path with DuckDB, rendered, row
// by row in file order.
func duckRead(t testing.TB, db *sql.DB, path string, leaves []pqcol.Leaf) [][]string {
	t.Helper()
	exprs := make([]string, len(leaves))
	for i, l := range leaves {
		exprs[i] = projection(l.Path)
	}
	q := fmt.Sprintf("SELECT %s FROM read_parquet('%s', file_row_number = true) ORDER BY file_row_number", strings.Join(exprs, ", "), path)
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("DuckDB reading %s: %v", filepath.Base(path), err)
	}
	defer rows.Close()
	var out [][]string
	vals := make([]any, len(leaves))
	ptrs := make([]any, len(leaves))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(leaves))
		for i, v := range vals {
			row[i] = renderDuckDB(v, kindOf(leaves[i]))
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("DuckDB reading %s: %v", filepath.Base(path), err)
	}
	return out
}

// rowflowRecords reads the file at path with rowflow's records source,
// rendered, row by row.
func rowflowRecords(t testing.TB, path string, leaves []pqcol.Leaf) ([][]string, error) {
	t.Helper()
	src := parquet.Read[sources.Record](filepath.Dir(path), sources.Files(path))
	var out [][]string
	for rec, err := range flow.Values[sources.Record](t.Context(), flow.From(src)) {
		if err != nil {
			return nil, err
		}
		if len(rec.Values) != len(leaves) {
			t.Fatalf("a record of %d values, the file has %d leaves", len(rec.Values), len(leaves))
		}
		row := make([]string, len(leaves))
		for i, v := range rec.Values {
			if rec.Names[i] != leaves[i].PathString() {
				t.Fatalf("record value %d is %s, leaf %d is %s", i, rec.Names[i], i, leaves[i].PathString())
			}
			row[i] = renderRowflow(v, kindOf(leaves[i]))
		}
		out = append(out, row)
	}
	return out, nil
}

// compareRows reports the first differences between rowflow's rows and
// DuckDB's.
func compareRows(t testing.TB, name string, leaves []pqcol.Leaf, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: rowflow reads %d rows, DuckDB %d", name, len(got), len(want))
		return
	}
	bad := 0
	for r := range want {
		for c := range want[r] {
			if got[r][c] != want[r][c] {
				if bad++; bad <= 5 {
					t.Errorf("%s: row %d, column %s: rowflow reads %s, DuckDB %s", name, r, leaves[c].PathString(), got[r][c], want[r][c])
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d values differ", name, bad)
	}
}
