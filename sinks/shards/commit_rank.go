package shards

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// A rank's output and its reruns.
//
// The rank's manifest is its commit record: data files of the rank under
// final names with no manifest are what an interrupted commit left, and a
// manifest lists exactly the rank's files. A rerun of the rank without
// Overwrite completes or confirms that output instead of refusing it:
//
//   - prepare (checkExisting) refuses only a manifest of another pipeline
//     (another fingerprint) or one it cannot read, before anything is
//     written;
//   - the commit (checkRerun) checks every file already under a final name
//     against the run's own: a file with the run's bytes is kept, and a
//     file with other bytes, or one the run did not write, fails the run
//     before anything changes.
//
// So a run killed at any point and started again ends with the output of
// an uninterrupted run, and a rerun of a committed rank that writes the
// same bytes changes nothing on disk.

// checkExisting reads what the directory holds of the rank's output: the
// data files under final names and the manifest. A manifest that cannot be
// read, or that another pipeline wrote, is an error.
func (o *outputDir) checkExisting() error {
	files, err := o.rankFiles()
	if err != nil {
		return err
	}
	o.found = make(map[string]bool, len(files))
	for _, f := range files {
		o.found[f] = true
	}
	path := filepath.Join(o.root, manifestName(o.rank))
	b, err := readRecord(o.root, manifestName(o.rank))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("shards: %s: %w", o.what, err)
	}
	_, err = o.acceptManifest(path, b, "directory")
	return err
}

// acceptManifest decodes the manifest b of the rank, read from path, that
// the output (where: "directory" or "bucket") already holds, and keeps
// it: a manifest the run cannot read, or another pipeline's, is an error.
func (o *outputDir) acceptManifest(path string, b []byte, where string) (*Manifest, error) {
	m, err := decodeManifest(path, b, o.rank)
	if err != nil {
		return nil, fmt.Errorf("shards: %s: the %s already holds output of rank %d that this run cannot check (%w); remove it, or use Overwrite", o.what, where, o.rank, err)
	}
	if m.Fingerprint != o.fingerprint {
		return nil, fmt.Errorf("shards: %s: the %s already holds output of rank %d of another pipeline (%s has fingerprint %s, this run's is %s); remove it, or use Overwrite",
			o.what, where, o.rank, manifestName(o.rank), m.Fingerprint, o.fingerprint)
	}
	o.manifest = b
	return m, nil
}

// checkRerun checks the rank's data files on disk against the run's
// files, and returns the paths of the files already on disk with the
// run's bytes. Every data file of the rank on disk must be one of the
// run's files, with its bytes.
func (o *outputDir) checkRerun(files []doneFile) (same map[string]bool, err error) {
	onDisk, err := o.rankFiles()
	if err != nil {
		return nil, err
	}
	ours := make(map[string]*doneFile, len(files))
	for i := range files {
		ours[files[i].Path] = &files[i]
	}
	same = map[string]bool{}
	for _, rel := range onDisk {
		f := ours[rel]
		switch {
		case !o.found[rel] && f != nil:
			return nil, fmt.Errorf("shards: %s: %s appeared during the run (another writer of rank %d, or partition directories whose names differ only in case on this file system)", o.what, rel, o.rank)
		case !o.found[rel]:
			return nil, fmt.Errorf("shards: %s: %s, a file of rank %d that this run does not write, appeared during the run", o.what, rel, o.rank)
		case f == nil:
			return nil, o.differs(rel, "this run does not write it")
		}
		ok, err := hasContent(filepath.Join(o.root, filepath.FromSlash(rel)), f.Bytes, f.SHA256)
		if err != nil {
			return nil, fmt.Errorf("shards: %s: %w", o.what, err)
		}
		if !ok {
			return nil, o.differs(rel, "this run wrote other bytes")
		}
		same[rel] = true
	}
	return same, nil
}

// differs is the error of a file on disk that the run would not write.
func (o *outputDir) differs(rel, why string) error {
	what := "left by an interrupted run (there is no manifest)"
	if o.manifest != nil {
		what = "committed by an earlier run of the same pipeline"
	}
	return fmt.Errorf("shards: %s: the directory already holds output of rank %d that differs from this run's: %s, %s, is not this run's output (%s); the input changed or the output is not deterministic; remove the rank's output, or use Overwrite",
		o.what, o.rank, rel, what, why)
}

// hasContent reports whether the file at path has size bytes whose
// SHA-256 is sum (in hex).
func hasContent(path string, size int64, sum string) (bool, error) {
	if fi, err := os.Stat(path); err != nil || fi.Size() != size {
		return false, err
	}
	got, n, err := fileSHA256(path)
	if err != nil {
		return false, err
	}
	return n == size && got == sum, nil
}

// fileSHA256 returns the hex SHA-256 of the file at path and its size.
func fileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
