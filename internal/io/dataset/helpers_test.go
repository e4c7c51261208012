package dataset

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type testRow struct {
	N int64 `parquet:"n"`
}

// writeParquet writes a Parquet file at root/rel with one row group per
// element of groups, of that many rows.
func writeParquet(t testing.TB, root, rel string, groups ...int) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := parquet.NewGenericWriter[testRow](f)
	n := int64(0)
	for _, g := range groups {
		rows := make([]testRow, g)
		for i := range rows {
			rows[i].N = n
			n++
		}
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// writeFile writes a non-Parquet file at root/rel.
func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hiveLayout is the test dataset: year=Y/lang=L/part-I.parquet for three
// years, three languages and two parts, with 1 to 3 row groups each, plus
// files that discovery must skip.
type hiveLayout struct {
	root   string
	groups map[string][]int // row-group sizes by RelPath
}

var (
	hiveYears = []string{"2022", "2023", "2024"}
	hiveLangs = []string{"de", "en", "fr"}
)

func makeHive(t testing.TB) hiveLayout {
	t.Helper()
	h := hiveLayout{root: t.TempDir(), groups: make(map[string][]int)}
	i := 0
	for _, y := range hiveYears {
		for _, l := range hiveLangs {
			for part := range 2 {
				rel := fmt.Sprintf("year=%s/lang=%s/part-%d.parquet", y, l, part)
				groups := []int{2 + i%3, 3, 1 + i%4}[:1+i%3]
				writeParquet(t, h.root, rel, groups...)
				h.groups[rel] = groups
				i++
			}
		}
	}
	writeFile(t, h.root, "_SUCCESS", "")
	writeFile(t, h.root, "_manifest.json", "{}")
	writeFile(t, h.root, "year=2022/.part-9.parquet", "not parquet")
	writeFile(t, h.root, "year=2022/lang=en/_tmp.parquet", "not parquet")
	writeFile(t, h.root, "_temporary/year=2022/lang=en/x.parquet", "not parquet")
	writeFile(t, h.root, ".cache/year=2022/lang=en/x.parquet", "not parquet")
	writeFile(t, h.root, "year=2023/lang=de/notes.txt", "hello")
	return h
}

// relPaths returns the sorted RelPaths of the layout.
func (h hiveLayout) relPaths() []string {
	var rels []string
	for rel := range h.groups {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	return rels
}

// counter is a Metadata that counts footer reads.
type counter struct {
	mu     sync.Mutex
	opened []string
}

func (c *counter) RowGroups(ctx context.Context, f File) ([]int64, error) {
	c.mu.Lock()
	c.opened = append(c.opened, f.RelPath)
	c.mu.Unlock()
	return ParquetFooters{}.RowGroups(ctx, f)
}

func (c *counter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.opened)
}

func (c *counter) files() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := slices.Clone(c.opened)
	slices.Sort(s)
	return s
}

func mustDiscover(t testing.TB, paths ...string) *Dataset {
	t.Helper()
	ds, err := Discover(paths...)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func mustPlan(t testing.TB, ds *Dataset, cfg Config) *Plan {
	t.Helper()
	p, err := New(ds, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// collect runs the iterator to the end and fails the test on error.
func collectAll(t testing.TB, seq func(func(Fragment, error) bool)) []Fragment {
	t.Helper()
	var out []Fragment
	for f, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

func relsOf(ds *Dataset) []string {
	var rels []string
	for _, f := range ds.Files() {
		rels = append(rels, f.RelPath)
	}
	return rels
}

// key identifies a fragment independently of its position in the plan.
type key struct {
	path     string
	rowGroup int
	from, to int64
}

func keyOf(f Fragment) key { return key{f.Path, f.RowGroup, f.From, f.To} }

func keys(frags []Fragment) []key {
	out := make([]key, len(frags))
	for i, f := range frags {
		out[i] = keyOf(f)
	}
	return out
}

func sortedKeys(frags []Fragment) []key {
	out := keys(frags)
	slices.SortFunc(out, func(a, b key) int {
		switch {
		case a.path != b.path:
			return strings.Compare(a.path, b.path)
		case a.rowGroup != b.rowGroup:
			return a.rowGroup - b.rowGroup
		default:
			return int(a.from - b.from)
		}
	})
	return out
}
