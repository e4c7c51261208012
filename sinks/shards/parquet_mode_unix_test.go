//go:build unix

package shards_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rowflow/rowflow/sinks/shards"
)

// TestParquetShardsFileMode: the data files and the manifest get mode
// 0644 less the umask, as os.Create gives, so that other users can read a
// dataset where the umask allows it.
func TestParquetShardsFileMode(t *testing.T) {
	for _, umask := range []int{0o022, 0o077} {
		old := syscall.Umask(umask)
		dir := t.TempDir()
		err := pqPipeline(pqRows(1500), 1).To(shards.Parquet[pqRow](dir, shards.RowsPerFile(1000))).Run(context.Background())
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		want := fs.FileMode(0o644 &^ umask)
		n := 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			n++
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != want {
				t.Errorf("umask %04o: %s has mode %04o, want %04o", umask, d.Name(), fi.Mode().Perm(), want)
			}
			return nil
		})
		if n != 3 {
			t.Fatalf("umask %04o: %d files, want 2 data files and the manifest", umask, n)
		}
	}
}
