package shards_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// A job of two ranks reshards a dataset of 8 row groups: each rank reads
// its share of the row groups and writes its own files and manifest into
// one directory, the manifest recording its job and world; once both
// have finished, one process commits the output. In a real job each rank
// is a process of its own, and takes its rank from the scheduler
// (package ranks) and says it once, with WithRank.
func ExampleCommit() {
	root, err := os.MkdirTemp("", "example-commit-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(root)
	in, out := filepath.Join(root, "in"), filepath.Join(root, "out")

	events := make([]Event, 8000)
	for i := range events {
		events[i] = Event{User: int64(i), Lang: []string{"en", "de"}[i%2], Words: int32(i % 13)}
	}
	err = flow.From(sources.Slice(events)).To(shards.Parquet[Event](in, shards.RowGroupRows(1000))).Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}

	const world = 2
	for rank := range world {
		p := flow.From(parquet.Read[Event](in)).WithRank(rank, world).
			To(shards.Parquet[Event](out, shards.RowsPerFile(1500), shards.RowIDColumn("row_id")))
		if err := p.Run(context.Background()); err != nil {
			fmt.Println(err)
			return
		}
	}

	dm, err := shards.Commit(out, world, shards.ExpectRows(int64(len(events))))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("committed %d rows in %d files; row IDs %s\n", dm.Rows, dm.Files, dm.RowIDs)
	for _, r := range dm.Ranks {
		fmt.Printf("rank %d: %s, %d rows in %d files\n", r.Rank, r.Manifest, r.Rows, r.Files)
	}

	// A rank's manifest checked against its files, as a retried rank or a
	// reader would.
	m, err := shards.VerifyManifest(out, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("rank 1 verified:", m.Files[0].Path, m.Files[0].Rows)
	// Output:
	// committed 8000 rows in 6 files; row IDs distinct
	// rank 0: _manifest-00000.json, 4000 rows in 3 files
	// rank 1: _manifest-00001.json, 4000 rows in 3 files
	// rank 1 verified: part-00001-00000.parquet 1500
}
