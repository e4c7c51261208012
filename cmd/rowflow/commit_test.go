package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// commit refuses an output directory that holds data no manifest lists,
// which digest (any reader of the directory) would read with the ranks'
// rows, and names the file.
func TestCommitRefusesStrayData(t *testing.T) {
	in := eightEvents(t)
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-out", out, in)
	x, err := os.ReadFile(filepath.Join(in, "x.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(out, "other.parquet")
	if err := os.WriteFile(stray, x, 0o644); err != nil {
		t.Fatal(err)
	}
	if d := must(t, nil, "digest", out); !strings.HasSuffix(strings.TrimSpace(d), " 16 rows") {
		t.Fatalf("digest with the stray file: %s", d)
	}
	stdout, errOut, code := rowflow(t, nil, "commit", "-world", "1", out)
	if code != 1 || !strings.Contains(errOut, "no rank's manifest lists") || !strings.Contains(errOut, "other.parquet") || stdout != "" {
		t.Fatalf("commit with other.parquet: exit %d, %s%s", code, stdout, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "_manifest.json")); !os.IsNotExist(err) {
		t.Fatal("a refused commit wrote _manifest.json")
	}
	os.Remove(stray)
	if c := must(t, nil, "commit", "-world", "1", out); !strings.Contains(c, "1 files, 8 rows") {
		t.Fatalf("commit: %s", c)
	}
}

// reshard records its world in each rank's manifest, world 1 included,
// so that commit refuses the output of a single-process run as a rank of
// a larger job, and commits ranks of one world.
func TestCommitRefusesARankOfAnotherWorld(t *testing.T) {
	in := eightEvents(t)
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-out", out, in)
	m, err := os.ReadFile(filepath.Join(out, "_manifest-00000.json"))
	if err != nil || !strings.Contains(string(m), `"world": 1`) {
		t.Fatalf("manifest of a run of one process (%v):\n%s", err, m)
	}
	must(t, nil, "reshard", "-rank", "1", "-world", "2", "-out", out, in)
	stdout, errOut, code := rowflow(t, nil, "commit", "-world", "2", out)
	if code != 1 || !strings.Contains(errOut, "rank 0 was written as rank 0 of 1") || stdout != "" {
		t.Fatalf("commit of a world-1 rank as rank 0 of 2: exit %d, %s%s", code, stdout, errOut)
	}
	out2 := filepath.Join(t.TempDir(), "out")
	for _, r := range []string{"0", "1"} {
		must(t, nil, "reshard", "-rank", r, "-world", "2", "-out", out2, in)
	}
	if c := must(t, nil, "commit", "-world", "2", out2); !strings.Contains(c, "8 rows") {
		t.Fatalf("commit of two ranks of 2: %s", c)
	}
}
