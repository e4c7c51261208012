package dataset

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/rowflow/rowflow/internal/objstore"
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
func discoverObjects(f Format, root string, paths []string) (*Dataset, error) {
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
		err := listObjects(ctx, f, e, func(name string) {
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
func listObjects(ctx context.Context, f Format, e entry, fn func(name string)) error {
	if e.kind == entryFile {
		fn(e.abs)
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
