package flock

import (
	"os"
	"path/filepath"
	"strings"
)

// Temporaries. A run that writes a temporary file or directory, renamed
// or uploaded and removed when the run ends, cannot remove it when it is
// killed. So the temporaries of one kind share a name prefix in one
// directory, and:
//
//   - a run holds an exclusive lock on its temporary while it lives; the
//     kernel drops the lock when the process dies;
//   - the temporaries whose lock can be taken are stale, and removed;
//   - creating and locking a temporary, and looking for stale ones, are
//     done only under a lock on the directory, so that no run sees
//     another's temporary between its creation and its lock.
//
// Where the file system has no locks, nothing is removed: a live run's
// temporary cannot be told from a dead one's.

// CreateTemp removes the stale temporaries in dir whose names start
// with prefix, then creates a new one, a file or (with isDir) a
// directory, named prefix and a random suffix, and locks it. The
// temporary is held until the returned file is closed; for a file, it
// is open for reading and writing.
func CreateTemp(dir, prefix string, isDir bool) (*os.File, error) {
	unlock, locked := lockDir(dir)
	if locked {
		defer unlock()
		removeStale(dir, prefix)
	}
	var f *os.File
	if isDir {
		name, err := os.MkdirTemp(dir, prefix)
		if err != nil {
			return nil, err
		}
		if f, err = os.Open(name); err != nil {
			os.Remove(name)
			return nil, err
		}
	} else {
		var err error
		if f, err = os.CreateTemp(dir, prefix+"*"); err != nil {
			return nil, err
		}
	}
	if locked {
		if _, err := TryLock(f); err != nil { // new: nobody else holds it
			f.Close()
			os.RemoveAll(f.Name())
			return nil, err
		}
	}
	return f, nil
}

// RemoveStale removes the temporaries in dir whose names start with
// prefix that no run holds. It is best effort: one it cannot remove
// stays.
func RemoveStale(dir, prefix string) {
	if unlock, locked := lockDir(dir); locked {
		defer unlock()
		removeStale(dir, prefix)
	}
}

// removeStale is RemoveStale for a caller that holds dir's lock.
func removeStale(dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !(e.Type().IsRegular() || e.IsDir()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if free, err := TryLock(f); err == nil && free {
			os.RemoveAll(p)
		}
		f.Close()
	}
}

// lockDir takes an exclusive lock on the directory dir, waiting for it:
// the operations it guards are short. It reports false, and locks
// nothing, if the directory cannot be opened or its file system has no
// locks.
func lockDir(dir string) (unlock func(), ok bool) {
	if dir == "" {
		dir = "."
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	if held, err := Lock(f); err != nil || !held {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
