package shards_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// Event is a record of the sharded ETL example.
type Event struct {
	User  int64  `parquet:"user"`
	Lang  string `parquet:"lang"`
	Words int32  `parquet:"words"`
}

func ExampleParquet() {
	dir, err := os.MkdirTemp("", "example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	events := make([]Event, 10_000)
	for i := range events {
		events[i] = Event{User: int64(i), Lang: []string{"en", "de", "fr"}[i%3], Words: int32(i % 17)}
	}
	p := flow.From(sources.Slice(events, sources.PartitionItems(1000))).
		Via(operators.Filter(func(e Event) bool { return e.Words > 0 })).Parallel(4).
		To(shards.Parquet[Event](filepath.Join(dir, "events"),
			shards.RowsPerFile(2000), shards.PartitionBy("lang"), shards.RowIDColumn("row_id")))
	if err := p.Run(context.Background()); err != nil {
		fmt.Println(err)
		return
	}

	m, err := shards.ReadManifest(filepath.Join(dir, "events"), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("rows:", m.Rows, "codec:", m.Codec)
	for _, f := range m.Files {
		fmt.Println(f.Path, f.Rows)
	}
	// Output:
	// rows: 9411 codec: zstd
	// lang=de/part-00000-00000.parquet 2000
	// lang=de/part-00000-00001.parquet 1137
	// lang=en/part-00000-00000.parquet 2000
	// lang=en/part-00000-00001.parquet 1137
	// lang=fr/part-00000-00000.parquet 2000
	// lang=fr/part-00000-00001.parquet 1137
}
