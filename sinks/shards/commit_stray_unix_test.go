//go:build unix

package shards_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/sinks/shards"
)

// TestCommitStrayLinks: a link that readers follow to data (to a data
// file, or to a directory, which they search) is data that no manifest
// lists.
func TestCommitStrayLinks(t *testing.T) {
	dir := t.TempDir()
	shareJob(t, dir, 0, 1, []int64{0, 1, 2})
	if err := os.Mkdir(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ link, target, want string }{
		{"copy.parquet", "part-00000-00000.parquet", "copy.parquet"},
		{"again", ".", "again (a link to a directory, which readers search)"},
	} {
		p := filepath.Join(dir, c.link)
		if err := os.Symlink(c.target, p); err != nil {
			t.Fatal(err)
		}
		_, err := shards.Commit(dir, 1)
		wantErr(t, err, "the directory holds data that no rank's manifest lists", c.want)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := shards.Commit(dir, 1); err != nil {
		t.Fatal(err)
	}
}
