//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package shards_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// TestRunsOfOneRankExclude: while a run of rank 0 writes, a second run of
// rank 0 in the directory fails at once and leaves the first run's files
// alone; a run of another rank is not held up; once the first run has
// committed, a rerun is a no-op.
func TestRunsOfOneRankExclude(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rows := pqRows(3000)
	// The first run stops in its sink when it creates its first file,
	// until release.
	created, release := make(chan struct{}), make(chan struct{})
	restore := shards.SetFSStep(func(step string) {
		if step == "created part-00000-00000.parquet" {
			close(created)
			<-release
		}
	})
	defer restore()
	p := pqPipeline(rows, 1, sources.PartitionItems(100))
	done := make(chan error, 1)
	go func() { done <- p.To(shards.Parquet[pqRow](dir, shards.RowsPerFile(500))).Run(ctx) }()
	<-created
	during := listTree(t, dir)

	err := p.To(shards.Parquet[pqRow](dir, shards.RowsPerFile(500))).Run(ctx)
	wantErr(t, err, "another run of rank 0 is writing in the directory (it holds .rank-00000.lock)")
	if after := listTree(t, dir); !slices.Equal(after, during) {
		t.Errorf("the refused run changed the directory from %q to %q", during, after)
	}
	if err := p.WithRank(1, 2).To(shards.Parquet[pqRow](dir, shards.RowsPerFile(500))).Run(ctx); err != nil {
		t.Fatalf("rank 1: %v", err)
	}

	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	restore()
	checkManifest(t, dir, 0, nil)
	before := readTree(t, dir)
	if err := p.To(shards.Parquet[pqRow](dir, shards.RowsPerFile(500))).Run(ctx); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(readTree(t, dir)))
	if want := slices.Sorted(maps.Keys(before)); !slices.Equal(got, want) || slices.Contains(got, ".rank-00000.lock") {
		t.Errorf("after the runs the directory holds %q, want %q and no lock file", got, want)
	}
}
