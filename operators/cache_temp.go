package operators

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"

	"github.com/rowflow/rowflow/internal/io/flock"
	"github.com/rowflow/rowflow/internal/io/objstore"
)

// A disk cache's first pass writes a temporary file beside the cache,
// .<name>.tmp-<random>, renamed to the cache's name when the pass ends; a
// failed pass removes it. A process killed during the pass cannot, so each
// run of the cache removes the temporaries that no pass is writing: the
// pass holds a lock on its temporary, as internal/io/flock's temporaries say.

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
// pass is writing.
func removeStaleTemps(path string) { flock.RemoveStale(filepath.Dir(path), tempPrefix(path)) }

// createTemp removes the stale temporaries of the cache at path and
// creates, and locks, a new one for a pass.
func createTemp(path string) (*os.File, error) {
	return flock.CreateTemp(filepath.Dir(path), tempPrefix(path), false)
}
