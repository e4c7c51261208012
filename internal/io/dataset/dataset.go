package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/io/codec"
)

// File is one data file of a [Dataset].
type File struct {
	// Path is the absolute path of the file in the local file system, or
	// its s3://bucket/key URL.
	Path string
	// RelPath is the slash-separated path of the file relative to the
	// dataset root. Files are sorted by it, and it is what callers hash to
	// derive a file ID: it does not change when the dataset is moved.
	RelPath string
	// Partition holds the Hive partition values parsed from the
	// directories of RelPath, in path order.
	Partition Partition
}

// Dataset is a sorted list of data files found under one root directory.
// It is immutable and safe for concurrent use.
type Dataset struct {
	root    string
	columns []string
	files   []File
}

// Root returns the absolute directory that [File.RelPath] is relative to.
func (d *Dataset) Root() string { return d.root }

// Files returns the files of the dataset sorted by RelPath. The slice is
// shared: callers must not modify it.
func (d *Dataset) Files() []File { return d.files }

// Columns returns the names of the Hive partition columns, in path order.
// Every file has a value for each of them. The slice is shared: callers
// must not modify it.
func (d *Dataset) Columns() []string { return d.columns }

// Format says which files a directory search takes: those whose names end
// in one of Suffixes. Name names the format in errors.
type Format struct {
	Name     string
	Suffixes []string
}

// The formats the sources read: Parquet files, and CSV and JSON Lines
// files uncompressed or compressed (see internal/io/codec).
var (
	Parquet = Format{Name: "Parquet", Suffixes: []string{".parquet"}}
	CSV     = Format{Name: "CSV", Suffixes: codec.Suffixes(".csv")}
	JSONL   = Format{Name: "JSON Lines", Suffixes: append(codec.Suffixes(".jsonl"), codec.Suffixes(".ndjson")...)}
)

// takes reports whether a directory search takes the file name.
func (f Format) takes(name string) bool {
	for _, s := range f.Suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// Discover finds the Parquet files named by paths. Each path is a file, a
// directory (searched recursively for *.parquet files) or a glob pattern;
// see "Discovery" in the package documentation. The dataset root is the
// deepest directory that contains every path: for a single directory, the
// directory itself.
func Discover(paths ...string) (*Dataset, error) {
	return Parquet.Discover(paths...)
}

// Discover is [Discover] for the files of format f.
func (f Format) Discover(paths ...string) (*Dataset, error) {
	if anyURL("", paths) {
		return discoverObjects(f, nil, "", paths)
	}
	return discover(f, "", paths)
}

// DiscoverRoot is like [Discover] with an explicit root directory, which
// fixes [File.RelPath] and the directories parsed for Hive partition
// values, and which relative paths are relative to (not the working
// directory). Every file found must lie under root.
func DiscoverRoot(root string, paths ...string) (*Dataset, error) {
	return Parquet.DiscoverRoot(root, paths...)
}

// DiscoverRoot is [DiscoverRoot] for the files of format f.
func (f Format) DiscoverRoot(root string, paths ...string) (*Dataset, error) {
	if root == "" {
		return nil, errors.New("dataset: empty root")
	}
	if anyURL(root, paths) {
		return discoverObjects(f, nil, root, paths)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("dataset: root %s: %w", root, err)
	}
	anchored := make([]string, len(paths))
	for i, p := range paths {
		anchored[i] = p
		if p != "" && !filepath.IsAbs(p) {
			anchored[i] = filepath.Join(abs, p)
		}
	}
	return discover(f, abs, anchored)
}

// DiscoverWhere is [Format.Discover] of paths, or with root not empty
// [Format.DiscoverRoot], that may leave out files the partition filter
// where is false for: in a bucket, the Hive directories where is false
// for are not listed. A [Plan] with the same filter plans the same
// fragments over the dataset either way.
func (f Format) DiscoverWhere(where *filter.Expr, root string, paths ...string) (*Dataset, error) {
	if !anyURL(root, paths) {
		if root == "" {
			return f.Discover(paths...)
		}
		return f.DiscoverRoot(root, paths...)
	}
	return discoverObjects(f, where, root, paths)
}

// entry is one resolved argument of Discover.
type entry struct {
	arg     string   // the path as given, for errors
	abs     string   // absolute path (for globs, of the pattern)
	base    string   // directory the entry lies in or under
	kind    int      // entryFile, entryDir or entryGlob
	pattern []string // glob segments below base
}

const (
	entryFile = iota
	entryDir
	entryGlob
)

func discover(f Format, root string, paths []string) (*Dataset, error) {
	if len(paths) == 0 {
		return nil, errors.New("dataset: no paths given")
	}
	entries := make([]entry, 0, len(paths))
	for _, p := range paths {
		e, err := resolve(p)
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	root, err := chooseRoot(root, entries)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(root)
	if errors.Is(err, os.ErrNotExist) {
		real = root // a pattern whose directory does not exist finds nothing
	} else if err != nil {
		return nil, fmt.Errorf("dataset: root: %w", err)
	}
	files, err := collect(f, root, real, entries)
	if err != nil {
		return nil, err
	}
	columns, err := parseHive(files)
	if err != nil {
		return nil, err
	}
	return &Dataset{root: root, columns: columns, files: files}, nil
}

// resolve classifies one argument of Discover. A path that exists is taken
// literally, even if it contains glob metacharacters.
func resolve(p string) (entry, error) {
	if p == "" {
		return entry{}, errors.New("dataset: empty path")
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return entry{}, fmt.Errorf("dataset: %s: %w", p, err)
	}
	st, err := os.Stat(abs)
	switch {
	case err == nil && st.IsDir():
		return entry{arg: p, abs: abs, base: abs, kind: entryDir}, nil
	case err == nil:
		return entry{arg: p, abs: abs, base: filepath.Dir(abs), kind: entryFile}, nil
	case errors.Is(err, os.ErrNotExist) && hasMeta(abs):
		return globEntry(p, abs)
	default:
		return entry{}, fmt.Errorf("dataset: %w", err)
	}
}

// chooseRoot returns the absolute root: the given one, or the deepest
// common directory of the entries' bases.
func chooseRoot(root string, entries []entry) (string, error) {
	if root != "" {
		abs, err := filepath.Abs(root)
		if err != nil {
			return "", fmt.Errorf("dataset: root %s: %w", root, err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return "", fmt.Errorf("dataset: root: %w", err)
		}
		if !st.IsDir() {
			return "", fmt.Errorf("dataset: root %s is not a directory", root)
		}
		return abs, nil
	}
	common := entries[0].base
	for _, e := range entries[1:] {
		common = commonDir(common, e.base)
	}
	return common, nil
}

// commonDir returns the deepest directory containing both absolute paths.
func commonDir(a, b string) string {
	for !within(a, b) {
		parent := filepath.Dir(a)
		if parent == a {
			return a
		}
		a = parent
	}
	return a
}

// within reports whether path p is dir or lies under it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// collect lists the files of all entries relative to root, without
// duplicates, sorted by RelPath. real is root with its symbolic links
// resolved: every file must resolve to a regular file under it.
func collect(f Format, root, real string, entries []entry) ([]File, error) {
	seen := make(map[string]bool)
	var files []File
	add := func(e entry, abs string) error {
		if !within(root, abs) {
			return fmt.Errorf("dataset: %s (from %s) is outside the root %s", abs, e.arg, root)
		}
		if err := checkFile(real, abs); err != nil {
			return fmt.Errorf("dataset: %s (from %s): %w", abs, e.arg, err)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			return fmt.Errorf("dataset: %s: %w", abs, err)
		}
		rel = filepath.ToSlash(rel)
		if !seen[rel] {
			seen[rel] = true
			files = append(files, File{Path: abs, RelPath: rel})
		}
		return nil
	}
	w := &walker{real: real, format: f}
	for _, e := range entries {
		n, err := w.list(e, func(abs string) error { return add(e, abs) })
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("dataset: no %s files found for %s", f.Name, e.arg)
		}
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.RelPath, b.RelPath) })
	return files, nil
}

// list calls fn with the absolute path of every file of e and returns how
// many there were.
func (w *walker) list(e entry, fn func(abs string) error) (int, error) {
	switch e.kind {
	case entryFile:
		return 1, fn(e.abs)
	case entryDir:
		return w.walkDir(e.abs, fn)
	default:
		return w.walkGlob(e, fn)
	}
}

// Hidden reports whether a file or directory name is skipped by discovery:
// names starting with "." or "_", such as .DS_Store, _SUCCESS and
// _temporary.
func Hidden(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}
