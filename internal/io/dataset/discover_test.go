package dataset

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDiscoverOrderIsIndependentOfCreationOrder(t *testing.T) {
	rels := []string{"a/x.parquet", "a-b/x.parquet", "a/b/c.parquet", "b.parquet", "a/b.parquet", "A.parquet"}
	// Byte order of the whole slash path: "-" < "/" < "A" < "a".
	want := []string{"A.parquet", "a-b/x.parquet", "a/b.parquet", "a/b/c.parquet", "a/x.parquet", "b.parquet"}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {2, 5, 0, 3, 1, 4}} {
		root := t.TempDir()
		for _, i := range order {
			writeParquet(t, root, rels[i], 1)
		}
		ds := mustDiscover(t, root)
		if got := relsOf(ds); !slices.Equal(got, want) {
			t.Errorf("creation order %v: files %q, want %q", order, got, want)
		}
		if ds.Root() != root {
			t.Errorf("root %q, want %q", ds.Root(), root)
		}
	}
}

func TestDiscoverSkipsHiddenAndNonParquet(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	if got, want := relsOf(ds), h.relPaths(); !slices.Equal(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	for _, f := range ds.Files() {
		if want := filepath.Join(h.root, filepath.FromSlash(f.RelPath)); f.Path != want {
			t.Errorf("Path %q, want %q", f.Path, want)
		}
	}
}

func TestDiscoverDirectoryNamedParquet(t *testing.T) {
	root := t.TempDir()
	writeParquet(t, root, "out.parquet/part-0.parquet", 1)
	writeParquet(t, root, "out.parquet/part-1.parquet", 1)
	writeFile(t, root, "out.parquet/_SUCCESS", "")
	ds := mustDiscover(t, root)
	if got := relsOf(ds); !slices.Equal(got, []string{"out.parquet/part-0.parquet", "out.parquet/part-1.parquet"}) {
		t.Fatalf("files %q", got)
	}
}

func TestDiscoverHiddenRootIsAllowed(t *testing.T) {
	root := filepath.Join(t.TempDir(), "_build", ".data")
	writeParquet(t, root, "x.parquet", 1)
	ds := mustDiscover(t, root)
	if got := relsOf(ds); !slices.Equal(got, []string{"x.parquet"}) {
		t.Fatalf("files %q", got)
	}
}

func TestDiscoverGlob(t *testing.T) {
	h := makeHive(t)
	writeFile(t, h.root, "year=2022/lang=en/extra.parq", "x")
	tests := []struct {
		pattern string
		root    string // relative to h.root
		want    []string
	}{
		{"year=2023/*/part-0.parquet", "year=2023", []string{"lang=de/part-0.parquet", "lang=en/part-0.parquet", "lang=fr/part-0.parquet"}},
		{"year=202[34]/lang=fr/*.parquet", "", []string{
			"year=2023/lang=fr/part-0.parquet", "year=2023/lang=fr/part-1.parquet",
			"year=2024/lang=fr/part-0.parquet", "year=2024/lang=fr/part-1.parquet"}},
		// A matched directory is searched recursively.
		{"year=2024/lang=?e", "year=2024", []string{
			"lang=de/part-0.parquet", "lang=de/part-1.parquet"}},
		// "**" matches any depth; wildcards skip hidden names.
		{"**/part-1.parquet", "", filterRels(h.relPaths(), "part-1")},
		// A file matched by the pattern is taken whatever its name.
		{"**/*.parq", "", []string{"year=2022/lang=en/extra.parq"}},
	}
	for _, tt := range tests {
		ds, err := Discover(filepath.Join(h.root, tt.pattern))
		if err != nil {
			t.Errorf("%s: %v", tt.pattern, err)
			continue
		}
		if got := relsOf(ds); !slices.Equal(got, tt.want) {
			t.Errorf("%s: files %q, want %q", tt.pattern, got, tt.want)
		}
		if want := filepath.Join(h.root, tt.root); ds.Root() != want {
			t.Errorf("%s: root %q, want %q", tt.pattern, ds.Root(), want)
		}
	}
}

func filterRels(rels []string, sub string) []string {
	var out []string
	for _, r := range rels {
		if strings.Contains(r, sub) {
			out = append(out, r)
		}
	}
	return out
}

func TestDiscoverGlobLiteralHiddenSegment(t *testing.T) {
	root := t.TempDir()
	writeParquet(t, root, "_staging/a.parquet", 1)
	writeParquet(t, root, "_staging/_b.parquet", 1)
	ds := mustDiscover(t, filepath.Join(root, "_staging", "*.parquet"))
	if got := relsOf(ds); !slices.Equal(got, []string{"a.parquet"}) {
		t.Fatalf("files %q", got)
	}
}

func TestDiscoverList(t *testing.T) {
	h := makeHive(t)
	p := func(rel string) string { return filepath.Join(h.root, filepath.FromSlash(rel)) }
	want := []string{
		"year=2022/lang=en/part-0.parquet",
		"year=2022/lang=en/part-1.parquet",
		"year=2024/lang=de/part-0.parquet",
		"year=2024/lang=fr/part-1.parquet",
	}
	lists := [][]string{
		{p("year=2024/lang=fr/part-1.parquet"), p("year=2022/lang=en"), p("year=2024/lang=d?/part-0.parquet")},
		{p("year=2024/lang=de/part-0.parquet"), p("year=2022/lang=en/part-1.parquet"), p("year=2022/lang=en"), p("year=2024/lang=fr/part-1.parquet")},
	}
	for _, list := range lists {
		ds, err := Discover(list...)
		if err != nil {
			t.Fatal(err)
		}
		if got := relsOf(ds); !slices.Equal(got, want) {
			t.Errorf("files %q, want %q", got, want)
		}
		if ds.Root() != h.root {
			t.Errorf("root %q, want %q", ds.Root(), h.root)
		}
		if got := ds.Columns(); !slices.Equal(got, []string{"year", "lang"}) {
			t.Errorf("columns %q", got)
		}
	}
}

func TestDiscoverRoot(t *testing.T) {
	h := makeHive(t)
	file := filepath.Join(h.root, "year=2023", "lang=en", "part-1.parquet")

	ds, err := Discover(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := relsOf(ds); !slices.Equal(got, []string{"part-1.parquet"}) || len(ds.Columns()) != 0 {
		t.Errorf("single file: files %q, columns %q", got, ds.Columns())
	}

	ds, err = DiscoverRoot(h.root, file)
	if err != nil {
		t.Fatal(err)
	}
	if got := relsOf(ds); !slices.Equal(got, []string{"year=2023/lang=en/part-1.parquet"}) {
		t.Errorf("explicit root: files %q", got)
	}
	if v, _ := ds.Files()[0].Partition.Get("year"); v != "2023" {
		t.Errorf("explicit root: year %q", v)
	}

	_, err = DiscoverRoot(filepath.Join(h.root, "year=2022"), file)
	if err == nil || !strings.Contains(err.Error(), "outside the root") || !strings.Contains(err.Error(), file) {
		t.Errorf("file outside root: error %v", err)
	}
}

func TestDiscoverRelativePaths(t *testing.T) {
	h := makeHive(t)
	t.Chdir(h.root)
	ds := mustDiscover(t, "year=2022")
	if got := len(ds.Files()); got != 6 {
		t.Fatalf("%d files, want 6", got)
	}
	if !filepath.IsAbs(ds.Files()[0].Path) || ds.Files()[0].RelPath != "lang=de/part-0.parquet" {
		t.Errorf("first file %+v", ds.Files()[0])
	}
}

func TestDiscoverErrors(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "empty/_SUCCESS", "")
	writeParquet(t, root, "ok/x.parquet", 1)
	missing := filepath.Join(root, "missing")
	tests := []struct {
		paths []string
		want  string
	}{
		{nil, "no paths"},
		{[]string{""}, "empty path"},
		{[]string{missing}, missing},
		{[]string{filepath.Join(root, "empty")}, "no Parquet files found for " + filepath.Join(root, "empty")},
		{[]string{filepath.Join(root, "ok"), filepath.Join(root, "*", "nothing-*.parquet")}, "no Parquet files found"},
		{[]string{filepath.Join(root, "nodir", "*.parquet")}, "no Parquet files found"},
		{[]string{filepath.Join(root, "[", "*.parquet")}, "syntax error in pattern"},
	}
	for _, tt := range tests {
		_, err := Discover(tt.paths...)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "dataset: ") {
			t.Errorf("Discover(%q): error %v, want it to contain %q", tt.paths, err, tt.want)
		}
	}
}

func TestDiscoverUnreadableDirectory(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("permissions are not enforced for root")
	}
	root := t.TempDir()
	writeParquet(t, root, "locked/x.parquet", 1)
	locked := filepath.Join(root, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	_, err := Discover(root)
	if err == nil || !strings.Contains(err.Error(), locked) {
		t.Fatalf("error %v, want it to name %s", err, locked)
	}
}
