//go:build unix

package sinks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rowflow/rowflow/sinks"
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
	_, err := sinks.VerifyManifest(dir, 0)
	wantErr(t, err, "rank 0: _manifest-00000.json is not a regular file (a symbolic link)")
}
