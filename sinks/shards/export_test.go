package shards

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/rowflow/rowflow/flow"
)

// ManifestName is the name of rank's manifest (see manifestName).
func ManifestName(rank int) string { return manifestName(rank) }

// DatasetManifestName is the name of the dataset manifest.
const DatasetManifestName = datasetManifestName

// SetFSStep sets the function called at the steps of a run's work on the
// file system (see fsStep) and returns a function that restores the
// previous one.
func SetFSStep(f func(step string)) (restore func()) {
	old := fsStep
	fsStep = f
	return func() { fsStep = old }
}

// Reseal recomputes the checksum of the record at p (a rank's manifest,
// a progress record or a dataset manifest, by its name) after a test
// edited it, and writes it back as the sinks write it.
func Reseal(p string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var r sealable
	switch name := filepath.Base(p); {
	case strings.HasPrefix(name, ".progress-"):
		r = new(progress)
	case name == DatasetManifestName:
		r = new(DatasetManifest)
	default:
		r = new(Manifest)
	}
	if err := json.Unmarshal(b, r); err != nil {
		return err
	}
	if b, err = encodeRecord(r); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// Continuation returns what a run of rank in dir with Continue continues
// from (continuableSink.Continuation), and the rows after it that the kept
// files hold, for any pipeline.
func Continuation(dir string, rank int) (ck flow.Checkpoint, skip int64, ok bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, ManifestName(rank))); err == nil {
		return ck, 0, false, nil
	}
	p, err := readProgress(dir, rank, "")
	if err != nil || p == nil {
		return ck, 0, false, err
	}
	return p.Checkpoint, p.Skip, true, nil
}

// Limits and defaults the tests check against.
const (
	DefaultRowGroupRows = defaultRowGroupRows
	MaxPageBytes        = maxPageBytes
)

// SetRecordGroupBytes sets the bytes of values of variable size at which
// rowflow's writer ends a row group (see recordGroupBytes) and returns a
// function that restores the previous value.
func SetRecordGroupBytes(n int) (restore func()) {
	old := recordGroupBytes
	recordGroupBytes = n
	return func() { recordGroupBytes = old }
}

// SetOwnStructWriter sets whether Parquet writes the structs that its
// plan covers with rowflow's writer (ownStructWriter), and returns a
// function that restores the previous setting.
func SetOwnStructWriter(on bool) (restore func()) {
	old := ownStructWriter
	ownStructWriter = on
	return func() { ownStructWriter = old }
}

// WritesOwnStructs reports whether Parquet[T] writes T with rowflow's
// writer.
func WritesOwnStructs[T any]() bool {
	p, err := newPQPlan[T]("x", nil)
	return err == nil && p.fields != nil
}
