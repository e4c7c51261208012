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
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// TestDuckDBNullsAgree: DuckDB and rowflow read the same CSV file's
// empty fields as NULL, the Parquet files rowflow writes from it hold
// those NULLs for DuckDB, and Hive's default partition is NULL to both.
func TestDuckDBNullsAgree(t *testing.T) {
	db := openDuckDB(t)
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "in.csv")
	os.WriteFile(csvPath, []byte("id,name,lang\n1,a,en\n2,,\n3,c,\n"), 0o644)

	// DuckDB's reading of the CSV file.
	res, err := db.Query(`SELECT id, name, lang FROM read_csv('` + csvPath + `', header = true, all_varchar = true) ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var duck [][]any
	for res.Next() {
		row := make([]any, 3)
		if err := res.Scan(&row[0], &row[1], &row[2]); err != nil {
			t.Fatal(err)
		}
		duck = append(duck, row)
	}
	res.Close()
	var recs []sources.Record
	for r, err := range flow.Values[sources.Record](t.Context(), flow.From(text.CSV[sources.Record](csvPath))) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != len(duck) {
		t.Fatalf("rowflow read %d records, DuckDB %d", len(recs), len(duck))
	}
	for i := range recs {
		for j := range 3 {
			if recs[i].Values[j] != duck[i][j] {
				t.Errorf("row %d, column %d: rowflow reads %#v, DuckDB %#v", i, j, recs[i].Values[j], duck[i][j])
			}
		}
	}

	// Parquet written from it, partitioned by lang: DuckDB reads NULLs
	// where the CSV had empty fields, the default partition's lang too.
	out := filepath.Join(t.TempDir(), "out")
	schema := pqschema.New("record",
		pqschema.Column{Name: "id", Node: pq.Optional(pq.Int(64))},
		pqschema.Column{Name: "name", Node: pq.Optional(pq.String())},
		pqschema.Column{Name: "lang", Node: pq.Optional(pq.String())},
	)
	if err := flow.From(text.CSV[sources.Record](csvPath)).To(shards.Parquet[sources.Record](out, shards.Schema(schema), shards.PartitionBy("lang"))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "lang=__HIVE_DEFAULT_PARTITION__")); err != nil {
		t.Fatal(err)
	}
	res, err = db.Query(`SELECT id, name, lang IS NULL FROM read_parquet('` + filepath.Join(out, "*", "*.parquet") + `', hive_partitioning = true) ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]any{{int64(1), "a", false}, {int64(2), nil, true}, {int64(3), "c", true}}
	n := 0
	for ; res.Next(); n++ {
		var id, name, null any
		if err := res.Scan(&id, &name, &null); err != nil {
			t.Fatal(err)
		}
		if n < len(want) && (id != want[n][0] || name != want[n][1] || null != want[n][2]) {
			t.Errorf("DuckDB row %d: %v %v lang null %v, want %v", n, id, name, null, want[n])
		}
	}
	res.Close()
	if n != len(want) {
		t.Fatalf("DuckDB read %d rows", n)
	}
	// rowflow reads the default partition's lang as null too.
	nulls := 0
	for r, err := range flow.Values[sources.Record](t.Context(), flow.From(parquet.Read[sources.Record](out, parquet.Columns("id", "lang")))) {
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := r.Get("lang"); v == nil {
			nulls++
		}
	}
	if nulls != 2 {
		t.Errorf("rowflow read %d null langs, want 2", nulls)
	}
}
