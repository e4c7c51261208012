package shards

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rowflow/rowflow/internal/io/flock"
)

// Runs of one rank exclude each other.
//
// Two runs of one rank in one directory at once (a replaced pod started
// while the old one still runs) would remove each other's temporary files
// and rename over each other's files. Each run therefore holds an
// exclusive lock on the hidden file .rank-<rank>.lock in the directory
// from before it looks at the rank's output until its commit or cleanup
// ends, and a second run fails at once. The lock is the operating
// system's (flock), which the kernel drops when a process dies, so a
// killed run never leaves a lock held; the file itself is removed when the
// run ends. Where flock is not available (see flock.TryLock), or on a network
// file system that does not honour it, runs are not excluded.

// lockName returns the name of the rank's lock file.
func lockName(rank int) string { return fmt.Sprintf(".rank-%05d.lock", rank) }

// lock takes the rank's lock, failing if another run holds it.
func (o *outputDir) lock() error {
	p := filepath.Join(o.root, lockName(o.rank))
	for {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return fmt.Errorf("shards: %s: %w", o.what, err)
		}
		held, err := flock.TryLock(f)
		if err != nil {
			f.Close()
			return fmt.Errorf("shards: %s: locking %s: %w", o.what, lockName(o.rank), err)
		}
		if !held {
			f.Close()
			return fmt.Errorf("shards: %s: another run of rank %d is writing in the directory (it holds %s); two runs of one rank at once are not supported", o.what, o.rank, lockName(o.rank))
		}
		// The run that held the lock may have removed the file between
		// our open and our lock: then lock the file now at p.
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(p)
		if err1 == nil && err2 == nil && os.SameFile(fi, pi) {
			o.lockFile = f
			return nil
		}
		f.Close()
	}
}

// unlock removes the lock file and drops the lock, if the run holds it.
func (o *outputDir) unlock() error {
	if o.lockFile == nil {
		return nil
	}
	err := os.Remove(o.lockFile.Name())
	if cerr := o.lockFile.Close(); err == nil {
		err = cerr
	}
	o.lockFile = nil
	return err
}
