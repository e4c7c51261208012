package shards_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
	"github.com/rowflow/rowflow/sources/text"
)

// A CSV file, whose records hold every value as a string, written as
// Parquet with typed columns, and read back.
func ExampleParquet_records() {
	dir, err := os.MkdirTemp("", "example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "scores.csv")
	os.WriteFile(in, []byte("user,lang,score\n1,en,0.5\n2,de,\n3,fr,0.25\n"), 0o644)

	schema := pq.NewSchema("score", pq.Group{
		"user":  pq.Int(64),
		"lang":  pq.String(),
		"score": pq.Optional(pq.Leaf(pq.DoubleType)),
	})
	out := filepath.Join(dir, "out")
	err = flow.From(text.CSV[sources.Record](in)).To(shards.Parquet[sources.Record](out, shards.Schema(schema))).Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	var recs []sources.Record
	flow.From(parquet.Read[sources.Record](out)).To(sinks.CollectValues(&recs)).Run(context.Background())
	for _, r := range recs {
		fmt.Println(r.Names, r.Values)
	}
	// Output:
	// [lang score user] [en 0.5 1]
	// [lang score user] [de <nil> 2]
	// [lang score user] [fr 0.25 3]
}

// A Parquet dataset copied, filtered, with each row's ID, as column
// batches: no record is made of a row.
func ExampleParquet_columnBatches() {
	dir, err := os.MkdirTemp("", "example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	type event struct {
		User  int64    `parquet:"user"`
		Score *float64 `parquet:"score,optional"`
		Tags  []string `parquet:"tags,list"`
	}
	half := 0.5
	in := filepath.Join(dir, "events.parquet")
	pq.WriteFile(in, []event{{1, &half, []string{"a"}}, {2, nil, nil}, {3, &half, []string{"b", "c"}}})

	where := parquet.RowFilter(sources.Ne("user", int64(2)))
	schema, err := parquet.RecordSchema(in, where)
	if err != nil {
		fmt.Println(err)
		return
	}
	out := filepath.Join(dir, "out")
	err = flow.From(parquet.Read[*parquet.ColumnBatch](in, where)).
		To(shards.Parquet[*parquet.ColumnBatch](out, shards.Schema(schema), shards.RowIDColumn("row_id"))).Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	var recs []sources.Record
	flow.From(parquet.Read[sources.Record](out)).To(sinks.CollectValues(&recs)).Run(context.Background())
	for _, r := range recs {
		fmt.Println(r.Names[:3], r.Values[:3])
	}
	// Output:
	// [user score tags.list.element] [1 0.5 [a]]
	// [user score tags.list.element] [3 0.5 [b c]]
}
