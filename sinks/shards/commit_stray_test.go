package shards_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources/parquet"
)

// readRows counts the rows that sources/parquet.Read reads from dir.
func readRows(t *testing.T, dir string) int {
	t.Helper()
	var rows []pqRow
	if err := flow.From(parquet.Read[pqRow](dir)).To(sinks.CollectValues(&rows)).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return len(rows)
}

// TestCommitStrayData: Commit fails on a file that a reader of the
// directory would read as data but that no manifest lists, names it, and
// writes no dataset manifest; files that readers skip (hidden, under _ or
// . directories, temporaries of killed runs) and files that are not data
// do not stop it.
func TestCommitStrayData(t *testing.T) {
	dir := t.TempDir()
	shareJob(t, dir, 0, 1, []int64{0, 1, 2})
	part, err := os.ReadFile(filepath.Join(dir, "part-00000-00000.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, stray := range []string{"other.parquet", "sub/more.parquet", "notes.csv", "x.jsonl.gz", "y.ndjson.zst"} {
		p := filepath.Join(dir, filepath.FromSlash(stray))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, part, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := shards.Commit(dir, 1)
		wantErr(t, err, "the directory holds data that no rank's manifest lists", stray)
		if _, err := os.Stat(filepath.Join(dir, shards.DatasetManifestName)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("a commit refused for %s wrote the dataset manifest", stray)
		}
		if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(strings.Split(stray, "/")[0]))); err != nil {
			t.Fatal(err)
		}
	}
	// What readers skip, and what is not data, is no stray.
	for _, rel := range []string{"README.md", "_tmp/log", "_tmp/old.parquet", ".meta/a.parquet", ".hidden.parquet",
		".part-00000-00009.parquet.tmp-abc", "docs/schema.txt"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, part, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dm, err := shards.Commit(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if n := readRows(t, dir); int64(n) != dm.Rows || n != 3000 {
		t.Fatalf("the commit says %d rows, a reader reads %d", dm.Rows, n)
	}
}
