package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reshardRefused runs reshard of in into out and checks that it is refused
// as a usage error naming -out, and that nothing was written into in.
func reshardRefused(t *testing.T, in, out string) {
	t.Helper()
	before := listDir(t, in)
	_, errOut, code := rowflow(t, nil, "reshard", "-out", out, in)
	if code != 2 || !strings.Contains(errOut, "-out "+out+" is the input "+in+" or inside it") {
		t.Errorf("reshard -out %s %s: exit %d, %s", out, in, code, errOut)
	}
	if after := listDir(t, in); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("reshard -out %s %s changed the input: %q, was %q", out, in, after, before)
	}
}

// listDir lists the paths under dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		names = append(names, p)
		return err
	})
	return names
}

// reshard refuses an output directory that is the input directory or
// lies inside it, however the path is spelt; a sibling whose name starts
// with the input's is fine.
func TestReshardOutputInsideInput(t *testing.T) {
	in := eightEvents(t)
	for _, out := range []string{
		in,
		in + string(filepath.Separator),
		filepath.Join(in, "out"),
		filepath.Join(in, "a", "b"),
		in + string(filepath.Separator) + "x" + string(filepath.Separator) + ".." + string(filepath.Separator) + "out",
	} {
		reshardRefused(t, in, out)
	}
	// The input given as a file: -out may not be that file either.
	file := filepath.Join(in, "x.parquet")
	reshardRefused(t, file, file)

	// An output that contains the input.
	for _, out := range []string{filepath.Dir(in), filepath.Dir(filepath.Dir(in))} {
		before := listDir(t, in)
		_, errOut, code := rowflow(t, nil, "reshard", "-out", out, in)
		if code != 2 || !strings.Contains(errOut, "-out "+out+" contains the input "+in) {
			t.Errorf("reshard -out %s %s: exit %d, %s", out, in, code, errOut)
		}
		if after := listDir(t, in); strings.Join(after, "\n") != strings.Join(before, "\n") {
			t.Errorf("reshard -out %s %s changed the input: %q, was %q", out, in, after, before)
		}
	}

	sibling := in + "2"
	if out := must(t, nil, "reshard", "-out", sibling, in); !strings.Contains(out, "8 rows") {
		t.Fatalf("reshard into a sibling directory: %s", out)
	}
}
