package duckdb

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

type lineageRow struct {
	Key string `parquet:"key"`
	N   int64  `parquet:"n"`
}

// TestDuckDBReadsRowIDColumns writes rows with shards.RowIDColumn, from a
// source (filtered, so its ordinals skip) and with IDs of no source form
// mixed in, and reads the three row-ID columns with DuckDB: they must be
// DELTA_BINARY_PACKED, and give every row its ID through shards.RowID.
func TestDuckDBReadsRowIDColumns(t *testing.T) {
	db := openDuckDB(t)
	rows := make([]lineageRow, 30_000)
	for i := range rows {
		rows[i] = lineageRow{Key: fmt.Sprint("k", i), N: int64(i)}
	}
	p := flow.From(sources.Slice(rows, sources.Named("in/data.csv"), sources.PartitionItems(4000))).
		Via(operators.Filter(func(r lineageRow) bool { return r.N%11 != 5 })).
		Via(operators.SetIDs(func(r lineageRow) rowid.ID {
			if r.N%5 == 0 {
				return rowid.FromString(r.Key) // an ID of no source's form
			}
			return rowid.Ordinal(uint64(r.N)).Combine(rowid.FromString("in/data.csv"))
		})).Parallel(2)
	var items []flow.Item[lineageRow]
	if err := p.To(sinks.Collect(&items)).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := map[string]rowid.ID{}
	for _, it := range items {
		want[it.Value.Key] = it.ID
	}
	dir := t.TempDir()
	if err := p.To(shards.Parquet[lineageRow](dir, shards.RowIDColumn("rid"), shards.Writers(2), shards.RowsPerFile(9000), shards.RowGroupRows(2500))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	files := filepath.Join(dir, "*.parquet")

	var encodings []string
	res, err := db.Query(fmt.Sprintf("SELECT DISTINCT path_in_schema || ' ' || encodings FROM parquet_metadata('%s') WHERE path_in_schema LIKE 'rid%%' ORDER BY 1", files))
	if err != nil {
		t.Fatal(err)
	}
	for res.Next() {
		var s string
		if err := res.Scan(&s); err != nil {
			t.Fatal(err)
		}
		encodings = append(encodings, s)
	}
	res.Close()
	if got := strings.Join(encodings, "; "); got != "rid_key1 DELTA_BINARY_PACKED; rid_key2 DELTA_BINARY_PACKED; rid_ord DELTA_BINARY_PACKED" {
		t.Errorf("DuckDB sees the row-ID columns as %s", got)
	}

	res, err = db.Query(fmt.Sprintf("SELECT key, rid_key1, rid_key2, rid_ord, typeof(rid_ord) FROM read_parquet('%s')", files))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	n := 0
	for ; res.Next(); n++ {
		var key, typ string
		var k1, k2, ord uint64
		if err := res.Scan(&key, &k1, &k2, &ord, &typ); err != nil {
			t.Fatal(err)
		}
		if typ != "UBIGINT" {
			t.Fatalf("DuckDB reads rid_ord as %s, want UBIGINT", typ)
		}
		id, ok := want[key]
		if got := shards.RowID(k1, k2, ord); !ok || got != id {
			t.Fatalf("row %s: DuckDB reads the ID %v, want %v", key, got, id)
		}
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(items) {
		t.Fatalf("DuckDB reads %d rows, rowflow wrote %d", n, len(items))
	}
}
