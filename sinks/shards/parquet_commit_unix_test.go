//go:build unix

package shards_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// commitSteps are the points between the steps of an Overwrite commit
// that replaces three files with two.
var commitSteps = []string{
	"manifest removed",
	"renamed part-00000-00000.parquet",
	"renamed part-00000-00001.parquet",
	"stale removed",
	"synced",
}

func writeRanked(dir string, rows []pqRow, opts ...shards.ParquetOption) error {
	opts = append([]shards.ParquetOption{shards.RowsPerFile(1000)}, opts...)
	return flow.From(sources.Slice(rows)).To(shards.Parquet[pqRow](dir, opts...)).Run(context.Background())
}

// checkManifestMatches checks that dir either has no manifest of rank 0 or
// one that lists exactly the rank's data files on disk, byte for byte.
// It reports whether there was a manifest.
func checkManifestMatches(t *testing.T, dir string) bool {
	t.Helper()
	m, err := shards.ReadManifest(dir, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	var onDisk, listed []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "part-00000-") && e.Type().IsRegular() {
			onDisk = append(onDisk, e.Name())
		}
	}
	for _, f := range m.Files {
		listed = append(listed, f.Path)
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil {
			t.Fatalf("the manifest lists %s: %v", f.Path, err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Fatalf("the manifest lists %s with SHA-256 %s; the file on disk differs", f.Path, f.SHA256)
		}
	}
	if !slices.Equal(onDisk, listed) {
		t.Fatalf("the manifest lists %q; the directory holds %q", listed, onDisk)
	}
	return true
}

// TestOverwriteKilledDuringCommit kills a process at each step of an
// Overwrite commit: the manifest left on disk describes exactly the files
// on disk, or there is none.
func TestOverwriteKilledDuringCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	rows := pqRows(3000)
	for _, step := range commitSteps {
		t.Run(step, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if err := writeRanked(dir, rows); err != nil {
				t.Fatal(err)
			}
			if !checkManifestMatches(t, dir) {
				t.Fatal("the first run left no manifest")
			}
			out, err := testutil.ChildOutput("TestHelperCommitKill", step+"|"+dir)
			var exit interface{ Sys() any }
			if !errors.As(err, &exit) {
				t.Fatalf("the child was not killed at %q: %v\n%s", step, err, out)
			}
			if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the child ended with %v, want SIGKILL\n%s", err, out)
			}
			if checkManifestMatches(t, dir) {
				t.Fatalf("killed at %q, the run left a manifest", step)
			}
		})
	}
}

// TestHelperCommitKill is the child of TestOverwriteKilledDuringCommit: it
// overwrites the output with two files and kills itself at the step its
// parent names.
func TestHelperCommitKill(t *testing.T) {
	step, dir, _ := strings.Cut(testutil.ChildArg(t), "|")
	defer shards.SetFSStep(func(s string) {
		if s == step {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	})()
	rows := pqRows(3000)[1000:]
	if err := writeRanked(dir, rows, shards.Overwrite()); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("the commit passed no step %q", step)
}

// TestOverwriteRenameFails: a commit whose rename fails leaves no manifest
// that lists replaced files.
func TestOverwriteRenameFails(t *testing.T) {
	rows := pqRows(3000)
	dir := filepath.Join(t.TempDir(), "out")
	if err := writeRanked(dir, rows[:2000]); err != nil {
		t.Fatal(err)
	}
	// The third file's final name is taken by a directory that is not empty.
	blocker := filepath.Join(dir, "part-00000-00002.parquet")
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o777); err != nil {
		t.Fatal(err)
	}
	if !checkManifestMatches(t, dir) {
		t.Fatal("the first run left no manifest")
	}
	err := writeRanked(dir, rows[500:], shards.Overwrite())
	if err == nil || !strings.Contains(err.Error(), "part-00000-00002.parquet") {
		t.Fatalf("got %v, want the rename onto the directory to fail", err)
	}
	if checkManifestMatches(t, dir) {
		t.Fatal("the failed commit left a manifest")
	}
}
