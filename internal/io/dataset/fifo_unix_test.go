//go:build unix

package dataset

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestOnlyRegularFiles: a FIFO named like a Parquet file is an error when
// it is found and when it is named, and discovery does not block on it.
func TestOnlyRegularFiles(t *testing.T) {
	root, _ := linkLayout(t)
	fifo := filepath.Join(root, "x.parquet")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	_, err := Discover(root)
	wantErr(t, err, fifo, "not a regular file")
	_, err = DiscoverRoot(root, "x.parquet")
	wantErr(t, err, fifo, "not a regular file")
}
