//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package sinks_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
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
	created := make(chan struct{})
	var once sync.Once
	defer sinks.SetFSStep(func(step string) {
		if strings.HasPrefix(step, "created part-00000-") {
			once.Do(func() { close(created) })
		}
	})()
	release := make(chan struct{})
	first := flow.From(sources.Slice(rows, sources.PartitionSize(100))).
		Via(operators.Map(func(r pqRow) (pqRow, error) {
			if r.ID == 2000 {
				<-release
			}
			return r, nil
		}))
	done := make(chan error, 1)
	go func() { done <- first.To(sinks.ParquetShards[pqRow](dir, sinks.RowsPerFile(500))).Run(ctx) }()
	<-created
	during := listTree(t, dir)

	err := pqPipeline(rows, 1).To(sinks.ParquetShards[pqRow](dir, sinks.RowsPerFile(500))).Run(ctx)
	wantErr(t, err, "another run of rank 0 is writing in the directory (it holds .rank-00000.lock)")
	if after := listTree(t, dir); !slices.Equal(after, during) {
		t.Errorf("the refused run changed the directory from %q to %q", during, after)
	}
	if err := pqPipeline(rows, 1).To(sinks.ParquetShards[pqRow](dir, sinks.Rank(1))).Run(ctx); err != nil {
		t.Fatalf("rank 1: %v", err)
	}

	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkManifest(t, dir, 0, nil)
	before := readTree(t, dir)
	if err := pqPipeline(rows, 1).To(sinks.ParquetShards[pqRow](dir, sinks.RowsPerFile(500))).Run(ctx); err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(maps.Keys(readTree(t, dir)))
	if want := slices.Sorted(maps.Keys(before)); !slices.Equal(got, want) || slices.Contains(got, ".rank-00000.lock") {
		t.Errorf("after the runs the directory holds %q, want %q and no lock file", got, want)
	}
}
