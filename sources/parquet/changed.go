package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"github.com/rowflow/rowflow/internal/io/objstore"
)

var footerCRC = crc32.MakeTable(crc32.Castagnoli)

// maxFooterCheck bounds the footer a data fingerprint reads; past it the
// fingerprint covers the footer's length and its last maxFooterCheck
// bytes.
const maxFooterCheck = 1 << 20

// footerSum returns the CRC-32C of a Parquet file's footer (its metadata,
// length and magic), read from f of size bytes: what a rewrite of the file
// changes even where its size and modification time stay.
func footerSum(f io.ReaderAt, size int64) (uint32, error) {
	if size < 12 {
		return 0, fmt.Errorf("%d bytes: too short for a Parquet file", size)
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return 0, err
	}
	if !bytes.Equal(tail[4:], []byte("PAR1")) {
		return 0, fmt.Errorf("no Parquet magic at its end")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return 0, fmt.Errorf("a footer of %d bytes in a file of %d", n, size)
	}
	n = min(n, maxFooterCheck)
	buf := make([]byte, n+8)
	if _, err := f.ReadAt(buf, size-8-n); err != nil {
		return 0, err
	}
	return crc32.Checksum(buf, footerCRC), nil
}

// fileStamp is what tells that a Parquet file changed while a run read
// it: its size, modification time and its last tailBytes bytes (the end
// of its footer: the last row groups' offsets and statistics, the
// footer's length), which a rewrite changes even where it keeps the size
// and time. Reading them costs little per fragment, where reading the
// whole footer again cost a run of small row groups a third of its time.
type fileStamp struct {
	size    int64
	modTime time.Time
	etag    string // of an object in a bucket
	tail    string
}

// tailBytes is how much of a file's end its stamp holds.
const tailBytes = 4 << 10

// stampFile returns f's stamp; with tail false, without its last bytes.
func stampFile(f objstore.Object, tail bool) (fileStamp, error) {
	st, err := f.Stamp()
	if err != nil {
		return fileStamp{}, err
	}
	s := fileStamp{size: st.Size, modTime: st.ModTime, etag: st.ETag}
	if tail {
		b := make([]byte, min(s.size, tailBytes))
		if _, err := f.ReadAt(b, s.size-int64(len(b))); err != nil {
			return fileStamp{}, err
		}
		s.tail = string(b)
	}
	return s, nil
}

// checkUnchanged fails, naming the file, if the file open as of has
// changed since the run opened it: its size or modification time, and,
// with tail, its last bytes. A fragment checks the size and time when it
// starts, and all three after its last row, so that a file truncated or
// rewritten while it was read fails the partition rather than ending it
// early or passing on rows of another file.
func (of *openFile[T]) checkUnchanged(tail bool) error {
	now, err := stampFile(of.f, tail)
	if err != nil {
		return &fileChanged{fmt.Errorf("%s changed during the run: %w", of.path, err)}
	}
	was := of.stamp
	if !tail {
		was.tail = ""
	}
	return changedFrom(of.path, was, now)
}

// changedFrom returns the error for a file whose stamp was was and is now
// now, or nil if they are equal.
func changedFrom(path string, was, now fileStamp) error {
	if now == was {
		return nil
	}
	what := "the end of its footer"
	switch {
	case now.size != was.size:
		what = fmt.Sprintf("%d bytes when it was opened, %d now", was.size, now.size)
	case !now.modTime.Equal(was.modTime):
		what = fmt.Sprintf("modified at %s when it was opened, at %s now", was.modTime.Format(time.RFC3339Nano), now.modTime.Format(time.RFC3339Nano))
	case now.etag != was.etag:
		what = fmt.Sprintf("ETag %s when it was opened, %s now", was.etag, now.etag)
	}
	return &fileChanged{fmt.Errorf("%s changed during the run: %s", path, what)}
}

// fileChanged is checkUnchanged's error: it fails a run that skips bad
// files too, since it is the run's input that moved, not a bad file.
type fileChanged struct{ err error }

func (e *fileChanged) Error() string { return e.err.Error() }
func (e *fileChanged) Unwrap() error { return e.err }

// sameAsFirst fails if the run opened the file at path before with
// another stamp (it was closed to bound the open files, and changed
// since), and otherwise records stamp as the file's.
func (run *parquetRun[T]) sameAsFirst(path string, stamp fileStamp) error {
	run.mu.Lock()
	defer run.mu.Unlock()
	if run.stamps == nil {
		run.stamps = map[string]fileStamp{}
	}
	was, ok := run.stamps[path]
	if !ok {
		run.stamps[path] = stamp
		return nil
	}
	return changedFrom(path, was, stamp)
}
