package dataset

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/rowflow/rowflow/internal/filter"
	"github.com/rowflow/rowflow/internal/io/objstore"
)

// Datasets in buckets: a root or path that is an s3://bucket/key URL is
// discovered by listing the keys under it, with the rules of directories
// (see "Discovery" in the package documentation): "/" separates the
// directories of a key, hidden names are skipped below the root, a
// directory is searched for the files of the format, a glob matches
// slash-separated segments. RelPath is the key relative to the root, as
// the path relative to the root directory is for files on disk, so that
// the same files give the same plan and row IDs in a bucket as on disk.
// Buckets have no symbolic links.

// anyURL reports whether root or any of paths is an object URL.
func anyURL(root string, paths []string) bool {
	return objstore.IsURL(root) || slices.ContainsFunc(paths, objstore.IsURL)
}

// discoverObjects is discover for URLs.
func discoverObjects(f Format, where *filter.Expr, root string, paths []string) (*Dataset, error) {
	if len(paths) == 0 {
		return nil, errors.New("dataset: no paths given")
	}
	if root != "" {
		if !objstore.IsURL(root) {
			return nil, fmt.Errorf("dataset: root %s is a local directory, and the paths are not all relative to it", root)
		}
		root = strings.TrimSuffix(root, "/")
		if _, _, err := objstore.ParseURL(root); err != nil {
			return nil, fmt.Errorf("dataset: root: %w", err)
		}
	}
	ctx := context.Background()
	entries := make([]entry, 0, len(paths))
	for _, p := range paths {
		if p == "" {
			return nil, errors.New("dataset: empty path")
		}
		abs := p
		if !objstore.IsURL(p) {
			if root == "" || path.IsAbs(p) {
				return nil, fmt.Errorf("dataset: %s: a local path among object URLs", p)
			}
			abs = root + "/" + path.Clean(p)
		}
		e, err := resolveObject(ctx, p, strings.TrimSuffix(abs, "/"))
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	if root == "" {
		root = entries[0].base
		for _, e := range entries[1:] {
			root = commonPrefixDir(root, e.base)
		}
	}
	seen := make(map[string]bool)
	var files []File
	for _, e := range entries {
		if !underURL(root, e.abs) {
			return nil, fmt.Errorf("dataset: %s (from %s) is outside the root %s", e.abs, e.arg, root)
		}
		n := 0
		err := listObjects(ctx, f, where, e, func(name string) {
			n++
			rel := strings.TrimPrefix(name, root+"/")
			if !seen[rel] {
				seen[rel] = true
				files = append(files, File{Path: name, RelPath: rel})
			}
		})
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("dataset: no %s files found for %s", f.Name, e.arg)
		}
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.RelPath, b.RelPath) })
	columns, err := parseHive(files)
	if err != nil {
		return nil, err
	}
	return &Dataset{root: root, columns: columns, files: files}, nil
}

// resolveObject classifies one URL: an object, a "directory" (a prefix
// with objects under it), or a glob.
func resolveObject(ctx context.Context, arg, abs string) (entry, error) {
	bucket, key, err := objstore.ParseURL(abs)
	if err != nil {
		return entry{}, fmt.Errorf("dataset: %w", err)
	}
	if hasMeta(key) {
		segs := strings.Split(key, "/")
		i := 0
		for i < len(segs) && !hasMeta(segs[i]) {
			i++
		}
		for _, s := range segs[i:] {
			if _, err := path.Match(s, ""); err != nil {
				return entry{}, fmt.Errorf("dataset: pattern %s: %w", arg, err)
			}
		}
		base := strings.TrimSuffix(objstore.Scheme+bucket+"/"+strings.Join(segs[:i], "/"), "/")
		return entry{arg: arg, abs: abs, base: base, kind: entryGlob, pattern: segs[i:]}, nil
	}
	if key != "" {
		if _, err := objstore.Stat(ctx, abs); err == nil {
			return entry{arg: arg, abs: abs, base: parentURL(abs), kind: entryFile}, nil
		} else if !errors.Is(err, objstore.ErrNoObject) {
			return entry{}, fmt.Errorf("dataset: %w", err)
		}
	}
	return entry{arg: arg, abs: abs, base: abs, kind: entryDir}, nil
}

// listObjects calls fn with the URL of every object of e.
// With where, it lists a directory level by level and skips the Hive
// directories where is false for, whatever the values of the levels
// below.
func listObjects(ctx context.Context, f Format, where *filter.Expr, e entry, fn func(name string)) error {
	if e.kind == entryFile {
		fn(e.abs)
		return nil
	}
	if e.kind == entryDir && where != nil {
		if err := listPruned(ctx, f, where, e.base, "", fn); err != nil {
			return fmt.Errorf("dataset: listing %s: %w", e.arg, err)
		}
		return nil
	}
	err := objstore.List(ctx, e.base+"/", func(name string, _ objstore.Stamp) error {
		rel := strings.TrimPrefix(name, e.base+"/")
		if rel == "" || strings.HasSuffix(rel, "/") {
			return nil // a directory marker
		}
		segs := strings.Split(rel, "/")
		if e.kind == entryDir {
			if !slices.ContainsFunc(segs, Hidden) && f.takes(segs[len(segs)-1]) {
				fn(name)
			}
			return nil
		}
		// A glob takes the objects it matches, whatever their names, and
		// the files of the format under the directories it matches.
		if globMatch(e.pattern, segs) {
			fn(name)
			return nil
		}
		for i := len(segs) - 1; i > 0; i-- {
			if globMatch(e.pattern, segs[:i]) {
				if !slices.ContainsFunc(segs[i:], Hidden) && f.takes(segs[len(segs)-1]) {
					fn(name)
				}
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("dataset: listing %s: %w", e.arg, err)
	}
	return nil
}

// parentURL returns the URL of the "directory" of an object URL.
func parentURL(u string) string {
	i := strings.LastIndex(u, "/")
	if i < len(objstore.Scheme)+1 {
		return u
	}
	return u[:i]
}

// underURL reports whether u is dir or lies under it.
func underURL(dir, u string) bool {
	return u == dir || strings.HasPrefix(u, dir+"/")
}

// commonPrefixDir returns the deepest "directory" URL containing both.
func commonPrefixDir(a, b string) string {
	for !underURL(a, b) {
		p := parentURL(a)
		if p == a {
			return a
		}
		a = p
	}
	return a
}

// listPruned lists the objects under base/rel ("" or ending in "/") one
// level at a time, skipping hidden names and the directories whose Hive
// values make where false.
func listPruned(ctx context.Context, f Format, where *filter.Expr, base, rel string, fn func(name string)) error {
	var dirs []string
	err := objstore.ListDir(ctx, base+"/"+rel, func(name string, dir bool) error {
		sub := strings.TrimPrefix(name, base+"/")
		seg := strings.TrimSuffix(strings.TrimPrefix(sub, rel), "/")
		switch {
		case seg == "" || Hidden(seg):
		case dir:
			if !pruned(where, sub) {
				dirs = append(dirs, sub)
			}
		case f.takes(seg):
			fn(name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, d := range dirs {
		if err := listPruned(ctx, f, where, base, d, fn); err != nil {
			return err
		}
	}
	return nil
}

// pruned reports whether where is false for every file under the
// directory rel (relative to the dataset root, ending in "/"), whatever
// the columns of the directories below it: the columns it lacks are
// unknown (null), and a false with unknowns stays false once they are
// known. An error leaves the directory to the planner, which reports it.
func pruned(where *filter.Expr, rel string) bool {
	p, err := parsePartition(rel + "f")
	if err != nil {
		return false
	}
	t, err := where.Eval(func(n *filter.Expr) (filter.Tri, error) {
		if _, _, ok := p.filterText(n.Col); !ok {
			return filter.TriNull, nil
		}
		return n.MatchText(p.filterText)
	})
	return err == nil && t == filter.TriFalse
}
