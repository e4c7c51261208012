package operators

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/rowflow/rowflow/internal/flock"
	"github.com/rowflow/rowflow/internal/objstore"
)

// A disk cache's first pass writes a temporary file beside the cache,
// .<name>.tmp-<random>, renamed to the cache's name when the pass ends; a
// failed pass removes it. A process killed during the pass cannot, so each
// run of the cache removes the temporaries that no pass is writing, as the
// sinks remove their stale shard temporaries:
//
//   - a pass holds an exclusive lock (flock) on its temporary file while it
//     writes it; the kernel drops the lock when the process dies;
//   - a run removes each temporary whose lock it can take;
//   - a pass creates and locks its temporary, and a run looks for stale
//     ones, only while it holds a lock on the cache's directory, so that
//     no run sees a temporary between its creation and its lock.
//
// Where the system has no file locks (see lockDir), temporaries are not
// removed: a live pass's cannot be told from a dead one's.

// stagePath returns the path whose temporaries a pass writes: the cache's
// own for a local cache; for a cache in a bucket, a name in os.TempDir
// made from the URL's hash, where the pass stages the file it uploads once
// complete (an object store has no rename), so that the temporaries of a
// killed pass are found and removed as on disk.
func (c *cacheSource[T]) stagePath() string {
	if !objstore.IsURL(c.cfg.path) {
		return c.cfg.path
	}
	h := sha256.Sum256([]byte(c.cfg.path))
	return filepath.Join(os.TempDir(), "rowflow-cache-"+hex.EncodeToString(h[:8]))
}

// tempPrefix returns the prefix of the names of the temporaries of the
// cache at path.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// removeStaleTemps removes the temporaries of the cache at path that no
// pass is writing. It is best effort: a temporary it cannot remove stays,
// and the run goes on.
func removeStaleTemps(path string) {
	unlock, ok := lockDir(filepath.Dir(path))
	if !ok {
		return
	}
	defer unlock()
	removeUnlocked(path)
}

// removeUnlocked removes the temporaries of the cache at path whose lock
// it can take. The caller holds the directory's lock.
func removeUnlocked(path string) {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(path)
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		if held, err := flock.TryLock(f); err == nil && held {
			os.Remove(p)
		}
		f.Close()
	}
}

// createTemp removes the stale temporaries of the cache at path and
// creates, and locks, a new one for a pass.
func createTemp(path string) (*os.File, error) {
	unlock, locked := lockDir(filepath.Dir(path))
	if locked {
		defer unlock()
		removeUnlocked(path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(path)+"*")
	if err != nil {
		return nil, err
	}
	if locked {
		if _, err := flock.TryLock(f); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
	}
	return f, nil
}
