package shards

import (
	"os"

	"github.com/rowflow/rowflow/internal/io/flock"
)

// A run writing to a bucket stages each file in a local directory of its
// own in os.TempDir() before uploading it, and removes the directory when
// it ends. A killed run cannot, so the run holds a lock on its directory
// for as long as it lives, and a run making its directory first removes
// those that no run holds (internal/io/flock's temporaries).

// stagePrefix begins the names of the staging directories.
const stagePrefix = "rowflow-upload-"

// newStage makes and locks a staging directory in os.TempDir(), after
// removing the stale ones. The run holds the directory until it closes
// held.
func newStage() (dir string, held *os.File, err error) {
	if held, err = flock.CreateTemp(os.TempDir(), stagePrefix, true); err != nil {
		return "", nil, err
	}
	return held.Name(), held, nil
}
