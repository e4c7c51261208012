package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rowflow/rowflow/internal/io/flock"
	"github.com/rowflow/rowflow/internal/io/objstore"
	"github.com/rowflow/rowflow/sinks/shards"
)

// runCleanup removes the temporary files (hidden, named .….tmp-…) under a
// directory that killed runs left. A rank's temporaries are kept while a
// run of that rank holds its lock, the hidden file .rank-<rank>.lock of
// the output directory (see package shards), since that run is still
// writing them; cleanup says so on standard error. Cleanup holds each lock
// it takes while it removes that rank's files, so a run that starts then
// fails at once instead of losing its files. Where the operating system
// has no file locks (as for the shard sinks), every temporary is removed.
func runCleanup(ctx context.Context, args []string, stdout io.Writer) error {
	fs := newFlags("cleanup", "[-n] DIR", "rowflow cleanup out/")
	dry := fs.Bool("n", false, "remove nothing: list what would be removed (\"would remove PATH\"; without -n, \"removed PATH\")")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	root := fs.Arg(0)
	if objstore.IsURL(root) {
		return cleanupBucket(ctx, root, *dry, stdout)
	}
	if fi, err := os.Stat(root); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory; cleanup takes the output directory of reshard", root)
	}
	var stale []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), ".") && strings.Contains(d.Name(), ".tmp-") {
			stale = append(stale, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	locks := &rankLocks{root: root, probed: map[string]*lockProbe{}}
	defer locks.release()
	for _, p := range stale {
		if rank, ok := tempRank(filepath.Base(p)); ok {
			probe, err := locks.of(filepath.Dir(p), rank)
			if err != nil {
				return err
			}
			if probe != nil && probe.live {
				probe.kept++
				continue
			}
		}
		if *dry {
			fmt.Fprintln(stdout, "would remove", p)
			continue
		}
		if err := os.Remove(p); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "removed", p)
	}
	for _, lock := range slices.Sorted(maps.Keys(locks.probed)) {
		if p := locks.probed[lock]; p != nil && p.kept > 0 {
			fmt.Fprintf(os.Stderr, "kept %d temporary file(s) of rank %d: a run of rank %d is writing them (it holds %s)\n", p.kept, p.rank, p.rank, lock)
		}
	}
	return nil
}

// cleanupBucket removes what killed runs left in an output in a bucket:
// the data objects of a rank (part-<rank>-….<ext>) that the rank's
// manifest does not list, all of them if it has none. Runs in a bucket
// leave no temporary objects (they stage files locally) and hold no lock,
// so cleanup must not run while a run writes there: that run's commit
// would fail, finding an object it uploaded removed.
func cleanupBucket(ctx context.Context, root string, dry bool, stdout io.Writer) error {
	prefix := strings.TrimSuffix(root, "/") + "/"
	byRank := map[int][]string{}
	err := objstore.List(ctx, prefix, func(name string, _ objstore.Stamp) error {
		rel := strings.TrimPrefix(name, prefix)
		if rank, ok := partRank(path.Base(rel)); ok {
			byRank[rank] = append(byRank[rank], rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, rank := range slices.Sorted(maps.Keys(byRank)) {
		listed := map[string]bool{}
		m, err := shards.ReadManifest(root, rank)
		switch {
		case err == nil:
			for _, f := range m.Files {
				listed[f.Path] = true
			}
		case !errors.Is(err, iofs.ErrNotExist):
			return err
		}
		for _, rel := range byRank[rank] {
			if listed[rel] {
				continue
			}
			if dry {
				fmt.Fprintln(stdout, "would remove", prefix+rel)
				continue
			}
			if err := objstore.Delete(ctx, prefix+rel); err != nil {
				return err
			}
			fmt.Fprintln(stdout, "removed", prefix+rel)
		}
	}
	return nil
}

// partRank returns the rank of a data file name, part-<rank>-<seq>.<ext>.
func partRank(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "part-")
	digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if !ok || digits == 0 || !strings.HasPrefix(rest[digits:], "-") {
		return 0, false
	}
	rank, err := strconv.Atoi(rest[:digits])
	return rank, err == nil
}

// tempRank returns the rank of a sink's temporary file name: of a data
// file (.part-<rank>-….tmp-…), of a rank's manifest
// (._manifest-<rank>.json.tmp-…) or progress record
// (..progress-<rank>.json.tmp-…).
func tempRank(name string) (int, bool) {
	for _, f := range []struct{ prefix, next string }{
		{".part-", "-"},
		{"._manifest-", ".json.tmp-"},
		{"..progress-", ".json.tmp-"},
	} {
		rest, ok := strings.CutPrefix(name, f.prefix)
		if !ok {
			continue
		}
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if digits == 0 || !strings.HasPrefix(rest[digits:], f.next) {
			return 0, false
		}
		rank, err := strconv.Atoi(rest[:digits])
		return rank, err == nil
	}
	return 0, false
}

// rankLocks probes the lock files of ranks under root.
type rankLocks struct {
	root   string
	probed map[string]*lockProbe // by lock file path; nil: no such file
}

// lockProbe is what cleanup found of one lock file.
type lockProbe struct {
	rank int
	live bool     // another process holds it
	f    *os.File // held by cleanup until it ends, if not live
	kept int      // temporaries kept because it is live
}

// of returns the probe of the lock of rank that governs the directory
// dir: the nearest .rank-<rank>.lock in dir or a directory above it, up
// to the root (an output's lock is in its top directory, its Hive
// directories below it); nil if there is none.
func (l *rankLocks) of(dir string, rank int) (*lockProbe, error) {
	name := fmt.Sprintf(".rank-%05d.lock", rank)
	for {
		p := filepath.Join(dir, name)
		probe, seen := l.probed[p]
		if !seen {
			var err error
			if probe, err = probeLock(p, rank); err != nil {
				return nil, err
			}
			l.probed[p] = probe
		}
		if probe != nil {
			return probe, nil
		}
		rel, err := filepath.Rel(l.root, dir)
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			return nil, nil
		}
		dir = filepath.Dir(dir)
	}
}

// probeLock tries to take the lock file at p without waiting; nil if
// there is no such file.
func probeLock(p string, rank int) (*lockProbe, error) {
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	got, err := flock.TryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if !got {
		f.Close()
		return &lockProbe{rank: rank, live: true}, nil
	}
	return &lockProbe{rank: rank, f: f}, nil
}

// release drops the locks cleanup took; the lock files stay.
func (l *rankLocks) release() {
	for _, p := range l.probed {
		if p != nil && p.f != nil {
			p.f.Close()
		}
	}
}
