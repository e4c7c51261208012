//go:build unix

package shards_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/sinks/shards"
)

// TestManifestEntryLinkRefused: a file that a rank's manifest lists,
// replaced by a symbolic link to the same bytes outside the directory, is
// not followed: VerifyManifest and Commit refuse it, naming the rank and
// the file. Nor is a link to a file inside the directory, or a rank's
// manifest that is a link. (Before the fix, both followed the link out.)
func TestManifestEntryLinkRefused(t *testing.T) {
	dir, m := oneRank(t)
	outside := moveOut(t, dir, m)
	first := filepath.Join(dir, m.Files[0].Path)
	if err := os.Symlink(outside, first); err != nil {
		t.Fatal(err)
	}
	refusedBoth(t, dir, "rank 0: "+m.Files[0].Path+": is not a regular file (a symbolic link)")

	os.Remove(first)
	if err := os.Rename(outside, filepath.Join(dir, ".kept")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".kept", first); err != nil {
		t.Fatal(err)
	}
	refusedBoth(t, dir, "rank 0: "+m.Files[0].Path+": is not a regular file (a symbolic link)")

	os.Remove(first)
	os.Rename(filepath.Join(dir, ".kept"), first)
	man := filepath.Join(dir, "_manifest-00000.json")
	os.Rename(man, filepath.Join(dir, ".man"))
	if err := os.Symlink(".man", man); err != nil {
		t.Fatal(err)
	}
	_, err := shards.VerifyManifest(dir, 0)
	wantErr(t, err, "rank 0: _manifest-00000.json is not a regular file (a symbolic link)")
}

// TestRecordLinkRefused: a rank's manifest, a dataset manifest or a
// progress record that is a symbolic link is not followed, even to a
// record inside the directory: ReadManifest, ReadDatasetManifest,
// Continuation and a rerun of the rank refuse it. (Before the fix, each
// read the file the link led to.)
func TestRecordLinkRefused(t *testing.T) {
	link := func(t *testing.T, p string) {
		t.Helper()
		moved := filepath.Join(filepath.Dir(filepath.Dir(p)), filepath.Base(p)+".outside")
		if err := os.Rename(p, moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(moved, p); err != nil {
			t.Fatal(err)
		}
	}
	dir := threeRanks(t)
	if _, err := shards.Commit(dir, 3); err != nil {
		t.Fatal(err)
	}
	link(t, filepath.Join(dir, shards.DatasetManifestName))
	_, err := shards.ReadDatasetManifest(dir)
	wantErr(t, err, "_manifest.json is not a regular file (a symbolic link)")
	link(t, filepath.Join(dir, shards.ManifestName(1)))
	_, err = shards.ReadManifest(dir, 1)
	wantErr(t, err, "_manifest-00001.json is not a regular file (a symbolic link)")
	err = pqPipeline(pqRows(10), 1).WithRank(1, 3).To(shards.Parquet[pqRow](dir)).Run(t.Context())
	wantErr(t, err, "_manifest-00001.json is not a regular file (a symbolic link)")

	snap, _ := snapshotAt(t, "progress renamed", 2)
	link(t, filepath.Join(snap, ".progress-00000.json"))
	_, _, _, err = shards.Continuation(snap, 0)
	wantErr(t, err, ".progress-00000.json is not a regular file (a symbolic link)")
}
