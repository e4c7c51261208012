package parquet_test

import (
	"reflect"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

type hiveNullRow struct {
	ID   int64   `parquet:"id"`
	Lang *string `parquet:"lang,optional"`
}

// TestHiveDefaultPartitionIsNull: rows written with PartitionBy of a nil
// value go to Hive's default partition, and read back as null: nil in a
// record, a nil pointer in a struct, whatever the files hold.
func TestHiveDefaultPartitionIsNull(t *testing.T) {
	en := "en"
	dir := t.TempDir()
	rows := []hiveNullRow{{ID: 1, Lang: &en}, {ID: 2}}
	if err := flow.From(sources.Slice(rows)).To(shards.Parquet[hiveNullRow](dir, shards.PartitionBy("lang"))).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	var recs []sources.Record
	for r, err := range flow.Values[sources.Record](t.Context(), flow.From(parquet.Read[sources.Record](dir, parquet.Columns("id", "lang")))) {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	// The default partition's directory sorts first.
	if len(recs) != 2 || recs[0].Values[len(recs[0].Values)-1] != nil || recs[1].Values[len(recs[1].Values)-1] != "en" {
		t.Fatalf("records: %v", recs)
	}
	var got []hiveNullRow
	for v, err := range flow.Values[hiveNullRow](t.Context(), flow.From(parquet.Read[hiveNullRow](dir))) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if want := []hiveNullRow{{ID: 2}, {ID: 1, Lang: &en}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("structs: %+v, want %+v", got, want)
	}
}
