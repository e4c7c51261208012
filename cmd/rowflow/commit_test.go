package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/sinks/shards"
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
// a larger job, and a rank of a larger job as the output of one process,
// naming the rank, its manifest and both worlds; it commits the ranks of
// one world.
func TestCommitRefusesARankOfAnotherWorld(t *testing.T) {
	in := eightEvents(t)
	refused := func(out, world, want string) {
		t.Helper()
		stdout, errOut, code := rowflow(t, nil, "commit", "-world", world, out)
		if code != 1 || !strings.Contains(errOut, want) || stdout != "" {
			t.Fatalf("commit -world %s: exit %d, %s%s\nwant an error containing %q", world, code, stdout, errOut, want)
		}
		if _, err := os.Stat(filepath.Join(out, "_manifest.json")); !os.IsNotExist(err) {
			t.Fatalf("a refused commit wrote _manifest.json (%v)", err)
		}
	}
	recorded := func(out string, rank int) int {
		t.Helper()
		m, err := shards.ReadManifest(out, rank)
		if err != nil {
			t.Fatal(err)
		}
		return m.World
	}
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-out", out, in)
	if w := recorded(out, 0); w != 1 {
		t.Fatalf("the manifest of a run of one process records world %d, want 1", w)
	}
	must(t, nil, "reshard", "-rank", "1", "-world", "2", "-out", out, in)
	refused(out, "2", "rank 0 was written as rank 0 of 1 (_manifest-00000.json records world 1), not as a rank of the world of 2 being committed")

	out = filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-rank", "0", "-world", "4", "-out", out, in)
	refused(out, "1", "rank 0 was written as rank 0 of 4 (_manifest-00000.json records world 4), not as a rank of the world of 1 being committed")
	for _, r := range []string{"1", "2", "3"} {
		must(t, nil, "reshard", "-rank", r, "-world", "4", "-out", out, in)
	}
	refused(out, "1", "the directory holds output of ranks outside a world of 1: rank 1's manifest _manifest-00001.json, rank 2's manifest _manifest-00002.json, rank 3's manifest _manifest-00003.json")

	out = filepath.Join(t.TempDir(), "out")
	for r := range 2 {
		must(t, nil, "reshard", "-rank", fmt.Sprint(r), "-world", "2", "-out", out, in)
		if w := recorded(out, r); w != 2 {
			t.Fatalf("the manifest of rank %d of 2 records world %d", r, w)
		}
	}
	if c := must(t, nil, "commit", "-world", "2", out); c != fmt.Sprintf("committed %s: 2 ranks, 2 files, 8 rows\n", out) {
		t.Fatalf("commit of two ranks of 2: %q", c)
	}
}

// manifestName is the name of rank's manifest, as package shards
// documents it: _manifest-<rank>.json, the rank zero-padded to five
// digits.
func manifestName(rank int) string { return fmt.Sprintf("_manifest-%05d.json", rank) }

// editManifest rewrites the rank's manifest in dir with edit applied, and
// seals it again as package shards documents (see shards.Manifest): what
// a user who edits a manifest and fixes its checksum leaves.
func editManifest(t *testing.T, dir string, rank int, edit func(*shards.Manifest)) {
	t.Helper()
	p := filepath.Join(dir, manifestName(rank))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var m shards.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(&m)
	if b, err = json.MarshalIndent(seal(t, &m), "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// commit and verify -manifest refuse a rank's manifest that names a file
// outside the output directory, naming the manifest and the entry: a
// moved-out file is not read, and its rows not certified. (Before the
// fix, both read ../outside.parquet and accepted it.)
func TestCommitVerifyRefuseAPathOutside(t *testing.T) {
	in := eightEvents(t)
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-out", out, in)
	m, err := shards.ReadManifest(out, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(out, m.Files[0].Path), filepath.Join(out, "..", "outside.parquet")); err != nil {
		t.Fatal(err)
	}
	editManifest(t, out, 0, func(m *shards.Manifest) { m.Files[0].Path = "../outside.parquet" })
	want := `_manifest-00000.json: file 1 (path "../outside.parquet"): is not a clean relative path inside the output directory`
	for _, args := range [][]string{{"commit", "-world", "1", out}, {"verify", "-manifest", out}} {
		stdout, errOut, code := rowflow(t, nil, args...)
		if code != 1 || !strings.Contains(errOut, want) || stdout != "" {
			t.Fatalf("%s: exit %d, %s%s\nwant an error containing %q", args, code, stdout, errOut, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "_manifest.json")); !os.IsNotExist(err) {
		t.Fatalf("a refused commit wrote _manifest.json (%v)", err)
	}
}

// commit and reshard refuse a -world above limits.MaxWorld as bad usage.
// (Before the fix, commit -world 2000000000 ran out of memory listing the
// missing ranks, and reshard accepted it.)
func TestWorldFlagsBounded(t *testing.T) {
	in := eightEvents(t)
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-out", out, in)
	big := fmt.Sprint(limits.MaxWorld + 1)
	want := fmt.Sprintf("-world %s: at most %d", big, limits.MaxWorld)
	for _, args := range [][]string{
		{"commit", "-world", big, out},
		{"reshard", "-rank", "0", "-world", big, "-out", filepath.Join(t.TempDir(), "o"), in},
	} {
		stdout, errOut, code := rowflow(t, nil, args...)
		if code != 2 || !strings.Contains(errOut, want) || stdout != "" {
			t.Fatalf("%s: exit %d, %s%s\nwant exit 2 and an error containing %q", args, code, stdout, errOut, want)
		}
	}
}

// commit refuses rank 0 of one job and rank 1 of another (another seed),
// naming both ranks and their manifests. (Before the fix, it committed
// them.)
func TestCommitRefusesRanksOfAnotherJob(t *testing.T) {
	in := eightEvents(t)
	out := filepath.Join(t.TempDir(), "out")
	must(t, nil, "reshard", "-rank", "0", "-world", "2", "-shuffle-window", "4", "-seed", "1", "-out", out, in)
	must(t, nil, "reshard", "-rank", "1", "-world", "2", "-shuffle-window", "4", "-seed", "2", "-out", out, in)
	stdout, errOut, code := rowflow(t, nil, "commit", "-world", "2", out)
	want := "rank 1 is a rank of another job than rank 0: _manifest-00001.json records job "
	if code != 1 || !strings.Contains(errOut, want) || !strings.Contains(errOut, ", _manifest-00000.json job ") || stdout != "" {
		t.Fatalf("commit: exit %d, %s%s\nwant an error containing %q", code, stdout, errOut, want)
	}
	if _, err := os.Stat(filepath.Join(out, "_manifest.json")); !os.IsNotExist(err) {
		t.Fatalf("a refused commit wrote _manifest.json (%v)", err)
	}
}

// verify -manifest reports at most ten ranks' errors, then how many more:
// a directory of damaged manifests gives a bounded report.
func TestVerifyManifestErrorsBounded(t *testing.T) {
	out := t.TempDir()
	for r := range 25 {
		if err := os.WriteFile(filepath.Join(out, manifestName(r)), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, errOut, code := rowflow(t, nil, "verify", "-manifest", out)
	if code != 1 || strings.Count(errOut, "not a JSON record") != 10 || !strings.Contains(errOut, "and 15 more") || stdout != "" {
		t.Fatalf("verify -manifest of 25 damaged manifests: exit %d, %s%s", code, stdout, errOut)
	}
}
