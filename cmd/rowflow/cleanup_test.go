package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cleanup takes an output directory; a file is an error that says so,
// and the file stays.
func TestCleanupOfAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.parquet")
	if err := os.WriteFile(file, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := rowflow(t, nil, "cleanup", file)
	if code != 1 || out != "" || !strings.Contains(errOut, file+": not a directory; cleanup takes the output directory of reshard") {
		t.Errorf("cleanup of a file: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(file); err != nil {
		t.Error(err)
	}
}
