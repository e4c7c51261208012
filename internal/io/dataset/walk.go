package dataset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// walkDir calls fn for every file of the walker's format under dir, skipping hidden
// files and directories below dir. Symbolic links are followed where they
// stay under the root (see links.go); fn receives paths under dir as
// given, links unresolved.
func (w *walker) walkDir(dir string, fn func(abs string) error) (int, error) {
	return w.walkDirOn(dir, nil, fn)
}

// walkDirOn walks dir, reached through the resolved directories on.
func (w *walker) walkDirOn(dir string, on []string, fn func(abs string) error) (int, error) {
	real, err := w.resolveDir(dir, on)
	if err != nil {
		return 0, err
	}
	on = append(on[:len(on):len(on)], real)
	n := 0
	err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == real {
			return nil
		}
		logical := filepath.Join(dir, strings.TrimPrefix(p, real))
		if Hidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				m, err := w.walkDirOn(logical, on, fn)
				n += m
				return err
			}
		}
		if d.IsDir() || !w.format.takes(d.Name()) {
			return nil
		}
		n++
		return fn(logical)
	})
	if err != nil {
		return n, fmt.Errorf("dataset: listing %s: %w", dir, err)
	}
	return n, nil
}

// hasMeta reports whether p contains glob metacharacters.
func hasMeta(p string) bool {
	return strings.ContainsAny(p, "*?[")
}

// globEntry splits an absolute pattern into the directory made of its
// leading literal segments and the pattern segments below it.
func globEntry(arg, abs string) (entry, error) {
	segs := strings.Split(filepath.ToSlash(abs), "/")
	i := 0
	for i < len(segs) && !hasMeta(segs[i]) {
		i++
	}
	base := filepath.FromSlash(strings.Join(segs[:i], "/"))
	if base == "" {
		base = string(filepath.Separator)
	}
	pattern := segs[i:]
	for _, s := range pattern {
		if _, err := filepath.Match(s, ""); err != nil {
			return entry{}, fmt.Errorf("dataset: pattern %s: %w", arg, err)
		}
	}
	return entry{arg: arg, abs: abs, base: base, kind: entryGlob, pattern: pattern}, nil
}

// walkGlob calls fn for every file matched by e's pattern: files matched
// directly, whatever their name, and the files of the walker's format under matched
// directories. A symbolic link to a directory is walked when the pattern
// matches it, not searched for matches below it.
func (w *walker) walkGlob(e entry, fn func(abs string) error) (int, error) {
	if _, err := os.Stat(e.base); errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	n := 0
	err := filepath.WalkDir(e.base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == e.base {
			return nil
		}
		rel, err := filepath.Rel(e.base, p)
		if err != nil {
			return err
		}
		segs := strings.Split(filepath.ToSlash(rel), "/")
		if d.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(p); err == nil && st.IsDir() && globMatch(e.pattern, segs) {
				m, err := w.walkDir(p, fn)
				n += m
				return err
			}
		}
		switch {
		case d.IsDir() && globMatch(e.pattern, segs):
			m, err := w.walkDir(p, fn)
			n += m
			if err != nil {
				return err
			}
			return filepath.SkipDir
		case d.IsDir() && !globPrefix(e.pattern, segs):
			return filepath.SkipDir
		case !d.IsDir() && globMatch(e.pattern, segs):
			n++
			return fn(p)
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("dataset: matching %s: %w", e.arg, err)
	}
	return n, nil
}

// globMatch reports whether the path segments match the pattern segments.
// A "**" segment matches any number of segments, including none. Wildcards
// never match hidden names; a literal pattern segment can.
func globMatch(pattern, segs []string) bool {
	if len(pattern) == 0 {
		return len(segs) == 0
	}
	if pattern[0] == "**" {
		if globMatch(pattern[1:], segs) {
			return true
		}
		return len(segs) > 0 && !Hidden(segs[0]) && globMatch(pattern, segs[1:])
	}
	return len(segs) > 0 && segMatch(pattern[0], segs[0]) && globMatch(pattern[1:], segs[1:])
}

// globPrefix reports whether some path that starts with the directory
// segments segs could match the pattern.
func globPrefix(pattern, segs []string) bool {
	if len(segs) == 0 {
		return len(pattern) > 0
	}
	if len(pattern) == 0 {
		return false
	}
	if pattern[0] == "**" {
		return globPrefix(pattern[1:], segs) || (!Hidden(segs[0]) && globPrefix(pattern, segs[1:]))
	}
	return segMatch(pattern[0], segs[0]) && globPrefix(pattern[1:], segs[1:])
}

func segMatch(pattern, name string) bool {
	if hasMeta(pattern) && Hidden(name) {
		return false
	}
	ok, _ := filepath.Match(pattern, name) // validated in globEntry
	return ok
}
