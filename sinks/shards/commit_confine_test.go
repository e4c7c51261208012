package shards_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
)

// editRecord rewrites the JSON record at p with edit applied to its
// decoded form, and seals it again as rowflow would (see shards.Reseal):
// what a user who edits a record and fixes its checksum leaves.
func editRecord(t *testing.T, p string, edit func(map[string]any)) {
	t.Helper()
	editRaw(t, p, edit)
	if err := shards.Reseal(p); err != nil {
		t.Fatal(err)
	}
}

// editRaw rewrites the JSON record at p with edit applied to its decoded
// form, leaving its checksum as it was.
func editRaw(t *testing.T, p string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v map[string]any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	edit(v)
	if b, err = json.MarshalIndent(v, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// entry returns the i-th element of the list under key of a decoded
// record.
func entry(v map[string]any, key string, i int) map[string]any {
	return v[key].([]any)[i].(map[string]any)
}

// TestContinueConfinedToTheDirectory: a progress record edited to name a
// file outside the output directory, as the temporary file a continuing
// run keeps and as its final path, is refused with an error that names the
// record and the entry; nothing outside the directory is moved, and no
// manifest is written. (Before the fix, the run moved ../victim.parquet
// to ../moved.parquet and committed.)
func TestContinueConfinedToTheDirectory(t *testing.T) {
	for _, c := range []struct{ temp, path, want string }{
		{"../victim.parquet", "", `.progress-00000.json: file 1: temporary name "../victim.parquet"`},
		{"", "../moved.parquet", `.progress-00000.json: file 1: path "../moved.parquet"`},
		{"../victim.parquet", "../moved.parquet", `.progress-00000.json: file 1: temporary name "../victim.parquet"`},
	} {
		snap, _ := snapshotAt(t, "progress renamed", 2)
		up := filepath.Dir(snap)
		victim, moved := filepath.Join(up, "victim.parquet"), filepath.Join(up, "moved.parquet")
		os.Remove(moved)
		rec := filepath.Join(snap, ".progress-00000.json")
		editRecord(t, rec, func(v map[string]any) {
			f := entry(v, "files", 0)
			if c.temp != "" {
				b, err := os.ReadFile(filepath.Join(snap, f["temp"].(string)))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(victim, b, 0o644); err != nil {
					t.Fatal(err)
				}
				f["temp"] = c.temp
			}
			if c.path != "" {
				f["path"] = c.path
			}
		})
		_, _, _, err := shards.Continuation(snap, 0)
		wantErr(t, err, c.want, "outside")
		err = contJob(snap)
		wantErr(t, err, c.want, "outside")
		if c.temp != "" {
			if _, err := os.Stat(victim); err != nil {
				t.Errorf("%+v: the file outside the directory named as a temporary: %v", c, err)
			}
		}
		if _, err := os.Stat(moved); err == nil {
			t.Errorf("%+v: the run moved a file to %s, outside the directory", c, moved)
		}
		if _, err := os.Stat(filepath.Join(snap, shards.ManifestName(0))); err == nil {
			t.Errorf("%+v: the run committed", c)
		}
	}
}

// oneRank writes pqRows(3000) as rank 0 of a job of one process into a
// new directory, in eight files, and returns the directory and the
// manifest.
func oneRank(t *testing.T) (string, *shards.Manifest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	shareJob(t, dir, 0, 1, []int64{0, 1, 2})
	m, err := shards.ReadManifest(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	return dir, m
}

// moveOut moves the rank's first file to outside.parquet beside dir and
// returns its new path.
func moveOut(t *testing.T, dir string, m *shards.Manifest) string {
	t.Helper()
	outside := filepath.Join(filepath.Dir(dir), "outside.parquet")
	if err := os.Rename(filepath.Join(dir, m.Files[0].Path), outside); err != nil {
		t.Fatal(err)
	}
	return outside
}

// refusedBoth checks that VerifyManifest and Commit refuse dir with an
// error that contains want, and that Commit wrote no dataset manifest.
func refusedBoth(t *testing.T, dir string, want ...string) {
	t.Helper()
	_, err := shards.VerifyManifest(dir, 0)
	wantErr(t, err, want...)
	_, err = shards.Commit(dir, 1)
	wantErr(t, err, want...)
	if _, err := os.Stat(filepath.Join(dir, shards.DatasetManifestName)); err == nil {
		t.Fatal("a refused commit wrote the dataset manifest")
	}
}

// TestManifestConfinedToTheDirectory: a rank's manifest that names
// ../outside.parquet (a file of the rank moved out of the directory) is
// refused by VerifyManifest and Commit, naming the manifest and the
// entry. (Before the fix, both read the file outside and accepted it.)
func TestManifestConfinedToTheDirectory(t *testing.T) {
	dir, m := oneRank(t)
	moveOut(t, dir, m)
	editRecord(t, filepath.Join(dir, shards.ManifestName(0)), func(v map[string]any) {
		entry(v, "files", 0)["path"] = "../outside.parquet"
	})
	refusedBoth(t, dir, `_manifest-00000.json: file 1 (path "../outside.parquet"): is not a clean relative path inside the output directory: it could lead outside it`)
}

// TestCommitWorldBounded: Commit refuses a world above limits.MaxWorld
// before it allocates anything for it, and lists at most ten missing ranks,
// then how many more. (Before the fix, a world of 2,000,000,000 ran out
// of memory listing the missing ranks; MaxWorld+1 listed all 65,537.)
func TestCommitWorldBounded(t *testing.T) {
	dir, _ := oneRank(t)
	_, err := shards.Commit(dir, limits.MaxWorld+1)
	wantErr(t, err, fmt.Sprintf("world %d: must be from 1 to %d", limits.MaxWorld+1, limits.MaxWorld))
	_, err = shards.Commit(dir, 2_000_000_000)
	wantErr(t, err, fmt.Sprintf("world 2000000000: must be from 1 to %d", limits.MaxWorld))

	_, err = shards.Commit(dir, limits.MaxWorld)
	wantErr(t, err, fmt.Sprintf("rank 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and %d more of %d have not finished: no manifest", limits.MaxWorld-11, limits.MaxWorld))
	if len(err.Error()) > 1000 {
		t.Errorf("the error has %d bytes", len(err.Error()))
	}
}

// TestCommitRefusesRanksOfAnotherJob: rank 0 of one job and rank 1 of
// another (another seed) in one directory are refused by Commit, which
// names both ranks, their manifests and their jobs; the ranks of one job
// commit. (Before the fix, Commit accepted them.)
func TestCommitRefusesRanksOfAnotherJob(t *testing.T) {
	rank := func(dir string, r int, seed uint64) {
		t.Helper()
		p := flow.From(sources.Slice(pqRows(3000), sources.PartitionItems(500))).WithSeed(seed).WithRank(r, 2)
		if err := p.To(shards.Parquet[pqRow](dir, shards.RowsPerFile(400))).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	rank(dir, 0, 1)
	rank(dir, 1, 2)
	m0, err0 := shards.ReadManifest(dir, 0)
	m1, err1 := shards.ReadManifest(dir, 1)
	if err0 != nil || err1 != nil {
		t.Fatal(err0, err1)
	}
	if m0.Job == "" || m0.Job == m1.Job {
		t.Fatalf("jobs %q and %q", m0.Job, m1.Job)
	}
	_, err := shards.Commit(dir, 2)
	wantErr(t, err, fmt.Sprintf("rank 1 is a rank of another job than rank 0: _manifest-00001.json records job %s, _manifest-00000.json job %s", m1.Job, m0.Job))
	if _, err := os.Stat(filepath.Join(dir, shards.DatasetManifestName)); err == nil {
		t.Fatal("a refused commit wrote the dataset manifest")
	}

	dir = t.TempDir()
	rank(dir, 0, 1)
	rank(dir, 1, 1)
	dm, err := shards.Commit(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := shards.ReadManifest(dir, 0); dm.Job != m.Job || dm.Ranks[0].Fingerprint == dm.Ranks[1].Fingerprint {
		t.Fatalf("the dataset manifest records job %q, rank 0's %q; ranks %+v", dm.Job, m.Job, dm.Ranks)
	}
}
