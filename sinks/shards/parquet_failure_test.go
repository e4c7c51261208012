package shards_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// listTree returns the slash-separated paths of every file and directory
// under dir, sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return names
}

// countTemps returns the number of temporary files of the sink under dir.
func countTemps(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".part-") && strings.Contains(d.Name(), ".parquet.tmp-") {
			n++
		}
		return nil
	})
	return n
}

// TestParquetShardsFailure fails or cancels runs after the sink has
// written several files, and checks that the output directory is left as
// it was: no temporary file, no file of the run, no directory it created.
func TestParquetShardsFailure(t *testing.T) {
	rows := pqRows(12_000)
	boom := errors.New("boom")
	for _, writers := range []int{1, 2} {
		for _, mode := range []string{"error", "cancel"} {
			for _, upstream := range []int{1, 2} {
				for _, existing := range []bool{false, true} {
					name := fmt.Sprintf("writers=%d/%s/parallel=%d/existing=%t", writers, mode, upstream, existing)
					t.Run(name, func(t *testing.T) {
						testutil.CheckGoroutines(t)
						root := t.TempDir()
						dir := filepath.Join(root, "out", "data")
						var before []string
						if existing {
							if err := os.MkdirAll(dir, 0o777); err != nil {
								t.Fatal(err)
							}
							if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("x"), 0o666); err != nil {
								t.Fatal(err)
							}
							before = listTree(t, root)
						} else {
							before = listTree(t, root)
						}
						ctx, cancel := context.WithCancel(context.Background())
						defer cancel()
						temps := -1
						p := flow.From(sources.Slice(rows, sources.PartitionItems(500), sources.ChunkSize(100))).
							Via(operators.Map(func(r pqRow) (pqRow, error) {
								if r.ID != 9000 {
									return r, nil
								}
								temps = countTemps(dir)
								if mode == "cancel" {
									cancel()
									return r, nil
								}
								return r, boom
							})).Parallel(upstream)
						sink := shards.Parquet[pqRow](dir, shards.Writers(writers), shards.RowsPerFile(1000), shards.RowGroupRows(250))
						err := p.To(sink).Run(ctx)
						switch {
						case mode == "error" && !errors.Is(err, boom):
							t.Fatalf("Run: %v, want %v", err, boom)
						case mode == "cancel" && !errors.Is(err, context.Canceled):
							t.Fatalf("Run: %v, want %v", err, context.Canceled)
						}
						// In a serial run, the sink has written the 9000 rows
						// before the failing one: 9 files.
						if writers == 1 && upstream == 1 && temps != 9 {
							t.Errorf("%d temporary files when the run failed, want 9", temps)
						}
						if after := listTree(t, root); !slices.Equal(after, before) {
							t.Errorf("after the failed run the tree is %q, before it was %q", after, before)
						}
					})
				}
			}
		}
	}
}

// TestParquetShardsShardFailure fails the run from inside a writer's
// goroutine, with too many partitions for one writer.
func TestParquetShardsShardFailure(t *testing.T) {
	testutil.CheckGoroutines(t)
	// Partition k (500 rows) goes to writer k%2. Writer 1's partitions all
	// have the key "odd"; writer 0's partition 2j has the key j, and its
	// third, partition 4 from row 2000 on, is one too many.
	rows := make([]hiveRow, 5000)
	for i := range rows {
		rows[i] = hiveRow{Key: "odd", Seq: int64(i)}
		if k := i / 500; k%2 == 0 {
			rows[i].Key = fmt.Sprint(k / 2)
		}
	}
	dir := t.TempDir()
	p := flow.From(sources.Slice(rows, sources.PartitionItems(500), sources.ChunkSize(100)))
	var items []flow.Item[hiveRow]
	if err := p.To(sinks.Collect(&items)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	sink := shards.Parquet[hiveRow](dir, shards.Writers(2), shards.PartitionBy("key"), shards.MaxOpenPartitions(2),
		shards.RowsPerFile(300))
	err := p.To(sink).Run(context.Background())
	var se *flow.StageError
	if !errors.As(err, &se) || !se.HasID || se.ID != items[2000].ID || se.Part != 4 ||
		!strings.Contains(err.Error(), `partition key="2" would be number 3 of writer 0; MaxOpenPartitions(2)`) {
		t.Fatalf("Run: %v; want the error of row 2000, batch 4, %s", err, items[2000].ID)
	}
	if got := listTree(t, dir); len(got) != 0 {
		t.Errorf("left %q", got)
	}
}

// TestParquetShardsCommitFailure makes the commit fail: a file appears
// under one of the run's final names during the run. The stream is one
// partition, so writer 0 writes all files: seq 0, 2, 4, 6, 8. The run fails, the
// file stays, and the run's files are removed, renamed or not.
func TestParquetShardsCommitFailure(t *testing.T) {
	testutil.CheckGoroutines(t)
	rows := pqRows(5000)
	dir := t.TempDir()
	intruder := filepath.Join(dir, "part-00000-00002.parquet")
	p := flow.From(sources.Slice(rows)).
		Via(operators.Map(func(r pqRow) (pqRow, error) {
			if r.ID == 3000 {
				return r, os.WriteFile(intruder, []byte("not ours"), 0o666)
			}
			return r, nil
		}))
	err := p.To(shards.Parquet[pqRow](dir, shards.RowsPerFile(1000), shards.Writers(2))).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "part-00000-00002.parquet appeared during the run") {
		t.Fatalf("Run: %v", err)
	}
	if got := listTree(t, dir); !slices.Equal(got, []string{"part-00000-00002.parquet"}) {
		t.Errorf("left %q", got)
	}
	if b, _ := os.ReadFile(intruder); string(b) != "not ours" {
		t.Errorf("the other file was replaced")
	}
}
