package dataset

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// linkLayout is a root with files, file links and directory links that
// stay under it or lead out of it, and a directory outside it.
func linkLayout(t *testing.T) (root, outside string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	writeFile(t, root, "a.parquet", "a")
	writeFile(t, root, "sub/x.parquet", "x")
	writeFile(t, outside, "b.parquet", "b")
	writeFile(t, outside, "d/c.parquet", "c")
	return root, outside
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one saying %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not say %q", err, p)
		}
	}
}

// TestLinksUnderRoot: links whose targets stay under the root are read
// as their targets, under the links' names, whether found by walking or
// named (a directory link named with Files is walked).
func TestLinksUnderRoot(t *testing.T) {
	root, _ := linkLayout(t)
	symlink(t, "a.parquet", filepath.Join(root, "in.parquet"))
	symlink(t, "sub", filepath.Join(root, "insidedir"))
	ds := mustDiscover(t, root)
	want := []string{"a.parquet", "in.parquet", "insidedir/x.parquet", "sub/x.parquet"}
	if got := relsOf(ds); !slices.Equal(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	ds, err := DiscoverRoot(root, "insidedir")
	if err != nil {
		t.Fatal(err)
	}
	if got := relsOf(ds); !slices.Equal(got, []string{"insidedir/x.parquet"}) {
		t.Fatalf("DiscoverRoot(root, insidedir): files %q", got)
	}
	if p := ds.Files()[0].Path; p != filepath.Join(root, "insidedir", "x.parquet") {
		t.Fatalf("path %s, want the path through the link", p)
	}
}

// TestLinksOutsideRoot: a file link, a directory link and a path through a
// directory link that lead outside the root are errors naming the link
// and its target.
func TestLinksOutsideRoot(t *testing.T) {
	t.Run("file link", func(t *testing.T) {
		root, outside := linkLayout(t)
		symlink(t, filepath.Join(outside, "b.parquet"), filepath.Join(root, "out.parquet"))
		_, err := Discover(root)
		wantErr(t, err, filepath.Join(root, "out.parquet"), "outside the root")
	})
	t.Run("directory link", func(t *testing.T) {
		root, outside := linkLayout(t)
		symlink(t, filepath.Join(outside, "d"), filepath.Join(root, "linkdir"))
		_, err := Discover(root)
		wantErr(t, err, filepath.Join(root, "linkdir"), filepath.Join(outside, "d"), "outside the root")
		_, err = DiscoverRoot(root, "linkdir")
		wantErr(t, err, filepath.Join(root, "linkdir"), "outside the root")
		_, err = DiscoverRoot(root, filepath.Join(root, "linkdir", "c.parquet"))
		wantErr(t, err, filepath.Join(root, "linkdir", "c.parquet"), filepath.Join(outside, "d", "c.parquet"), "outside the root")
	})
	t.Run("loop", func(t *testing.T) {
		root, _ := linkLayout(t)
		symlink(t, "..", filepath.Join(root, "sub", "up"))
		_, err := Discover(root)
		wantErr(t, err, filepath.Join(root, "sub", "up"), "loop")
	})
}

// TestRelativeFilesUnderRoot: relative paths given with a root are
// relative to it, not to the working directory.
func TestRelativeFilesUnderRoot(t *testing.T) {
	root, _ := linkLayout(t)
	t.Chdir(t.TempDir())
	ds, err := DiscoverRoot(root, "sub/x.parquet", "a.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if got := relsOf(ds); !slices.Equal(got, []string{"a.parquet", "sub/x.parquet"}) {
		t.Fatalf("files %q", got)
	}
}
