//go:build unix

package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/testutil"
)

// inspect, and reshard's progress total, find a dataset's files as every
// other command does: through a symbolic link to a directory under the
// root too.
func TestInspectFindsFilesAsTheSourcesDo(t *testing.T) {
	root := t.TempDir()
	rows := make([]event, 8)
	for i := range rows {
		rows[i] = event{ID: int64(i), Lang: "en", Text: "t"}
	}
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	testutil.WriteParquet(t, filepath.Join(root, "sub", "x.parquet"), rows, 4)
	if err := os.Symlink("sub", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	if d := must(t, nil, "digest", root); !strings.HasSuffix(strings.TrimSpace(d), " 16 rows") {
		t.Fatalf("digest: %s", d)
	}
	out := must(t, nil, "inspect", root)
	for _, want := range []string{"alias/x.parquet  rows 8  row groups 2", "sub/x.parquet  rows 8  row groups 2", "\n2 files, 16 rows, "} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
	_, errOut, code := rowflow(t, nil, "reshard", "-progress", "-out", filepath.Join(t.TempDir(), "out"), root)
	if code != 0 || !strings.Contains(errOut, "16/16 rows") {
		t.Errorf("reshard -progress: exit %d, the bar shows no 16/16 rows: %q", code, errOut)
	}
	// A file given alone is named by its name.
	if out := must(t, nil, "inspect", filepath.Join(root, "sub", "x.parquet")); !strings.HasPrefix(out, "x.parquet  rows 8  row groups 2") {
		t.Errorf("inspect of one file:\n%s", out)
	}
}
