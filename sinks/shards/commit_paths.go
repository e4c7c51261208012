package shards

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Paths read from records.
//
// Every path that a record (a rank's manifest, a progress record) names is
// relative to the output directory, its root, and is confined to it
// twice: lexically, by checkLocal, when the record is read, and on the
// file system, by opening, renaming and removing through an [os.Root] of
// the directory, which refuses a path that leads outside it through a
// symbolic link. A file that a record lists must also be a regular file,
// not a link (see openListed): the sinks never write links.

// checkLocal checks that rel, a slash-separated path read from a record,
// names a file under the record's directory: not empty, relative, clean,
// with no "." or ".." element and no backslash or NUL. Its error says
// what is wrong, for the caller to name the record and the entry.
func checkLocal(rel string) error {
	switch {
	case rel == "":
		return errors.New("is empty")
	case strings.ContainsAny(rel, "\\\x00"),
		path.IsAbs(rel),
		path.Clean(rel) != rel,
		!filepath.IsLocal(filepath.FromSlash(rel)):
		return errors.New("is not a clean relative path inside the output directory: it could lead outside it")
	}
	return nil
}

// openListed opens the file rel (slash-separated, checked with
// checkLocal) that a record lists, under root: it must be a regular file,
// reached without leaving the root.
func openListed(root *os.Root, rel string) (*os.File, error) {
	name := filepath.FromSlash(rel)
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("is not a regular file (%s): the sinks write only regular files", fileKind(fi.Mode()))
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	if gi, err := f.Stat(); err != nil || !os.SameFile(fi, gi) {
		f.Close()
		return nil, fmt.Errorf("was replaced while it was opened")
	}
	return f, nil
}

// fileKind names the type of a file mode that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

// maxRecordBytes bounds what is read of a record (a manifest, a progress
// record): 1 GiB, some four million files.
const maxRecordBytes = 1 << 30

// readRecordIn reads the record name (a file of the directory itself)
// through root: it must be a regular file of at most maxRecordBytes. A
// missing one gives an error that satisfies errors.Is(err,
// fs.ErrNotExist). Errors other than a missing file name the record.
func readRecordIn(root *os.Root, name string) ([]byte, error) {
	f, err := openListed(root, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s %w", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecordBytes+1))
	if err == nil && len(b) > maxRecordBytes {
		err = fmt.Errorf("more than %d bytes", maxRecordBytes)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, nil
}

// readRecord reads the record name of dir as readRecordIn does.
func readRecord(dir, name string) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return readRecordIn(root, name)
}
