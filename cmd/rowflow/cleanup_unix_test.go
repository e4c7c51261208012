//go:build unix

package main_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cleanup keeps the temporary files of a rank whose run is still writing
// them (it holds the rank's lock), says so, and removes those of a rank
// whose run was killed; the live run then finishes.
func TestCleanupKeepsALiveRunsFiles(t *testing.T) {
	const rows = 30000
	data := bigDataset(t, rows)
	out := filepath.Join(t.TempDir(), "shards")
	// The run prints a line per row read. Once the test stops reading
	// them, it stops when the pipe is full, thousands of rows before its
	// end, with its lock held and its file being written.
	cmd := exec.Command(rowflowBin, "reshard", "-out", out, "-progress-every", "1", data)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	var temps []string
	for len(temps) == 0 && lines.Scan() {
		temps, _ = filepath.Glob(filepath.Join(out, ".part-00000-*.tmp-*"))
	}
	if len(temps) == 0 {
		t.Fatalf("the run wrote no temporary file; it said %q", lines.Text())
	}
	if _, err := os.Stat(filepath.Join(out, ".rank-00000.lock")); err != nil {
		t.Fatal(err)
	}
	// Rank 1 was killed: its lock file is left, and held by nobody.
	stale := filepath.Join(out, ".part-00001-00000.parquet.tmp-k1")
	writeFiles(t, out, map[string]string{filepath.Base(stale): "x", ".rank-00001.lock": ""})

	got, errOut, code := rowflow(t, nil, "cleanup", out)
	if code != 0 || got != "removed "+stale+"\n" {
		t.Errorf("cleanup: exit %d, said %q, want %q", code, got, "removed "+stale+"\n")
	}
	if want := "kept 1 temporary file(s) of rank 0: a run of rank 0 is writing them (it holds " + filepath.Join(out, ".rank-00000.lock") + ")\n"; errOut != want {
		t.Errorf("cleanup said %q, want %q", errOut, want)
	}
	if _, err := os.Stat(temps[0]); err != nil {
		t.Errorf("cleanup removed the live run's file: %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the killed rank's file is still there: %v", err)
	}

	drained := make(chan struct{})
	go func() {
		for lines.Scan() {
		}
		close(drained)
	}()
	<-drained
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the live run failed: %v", err)
	}
	if want := "rank 0 of 1 (none): 30000 rows in 1 files"; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("the live run said %q, want %q", stdout.String(), want)
	}
	if v := must(t, nil, "verify", "-manifest", out); !strings.Contains(v, "rank 0: 1 files, 30000 rows") {
		t.Errorf("verify -manifest: %s", v)
	}
}
