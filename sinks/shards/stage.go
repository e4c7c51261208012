package shards

import (
	"os"
	"path/filepath"

	"github.com/rowflow/rowflow/internal/flock"
)

// A run writing to a bucket stages each file in a local directory of its
// own in os.TempDir() before uploading it, and removes the directory when
// it ends. A killed run cannot, so each run holds a lock on its directory
// for as long as it lives (the kernel drops it when the process dies),
// and a run making its directory first removes those that no run holds.
// A lock on the file stageLockName in os.TempDir() makes the two exclude
// each other: no run removes a directory another has made and not yet
// locked. Where the file system has no locks, nothing is removed.

const (
	stagePrefix   = "rowflow-upload-"
	stageLockName = "rowflow-upload.lock"
)

// newStage makes and locks a staging directory in os.TempDir(), after
// removing the stale ones. The run holds the directory until it closes
// held.
func newStage() (dir string, held *os.File, err error) {
	tmp := os.TempDir()
	g, err := os.OpenFile(filepath.Join(tmp, stageLockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", nil, err
	}
	defer g.Close() // drops the lock
	locked, err := flock.Lock(g)
	if err != nil {
		return "", nil, err
	}
	if locked {
		removeStaleStages(tmp)
	}
	if dir, err = os.MkdirTemp(tmp, stagePrefix); err != nil {
		return "", nil, err
	}
	if held, err = os.Open(dir); err == nil {
		_, err = flock.TryLock(held) // a new directory: nobody else holds it
	}
	if err != nil {
		if held != nil {
			held.Close()
		}
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, held, nil
}

// removeStaleStages removes the staging directories in tmp that no run
// holds, best effort.
func removeStaleStages(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, stagePrefix+"*"))
	for _, d := range dirs {
		f, err := os.Open(d)
		if err != nil {
			continue
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			if free, err := flock.TryLock(f); err == nil && free {
				os.RemoveAll(d)
			}
		}
		f.Close()
	}
}
