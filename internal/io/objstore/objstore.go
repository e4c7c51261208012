// Package objstore is where the sources open, stat and list the files of a
// dataset: files in the local file system, or objects in an S3-compatible
// bucket named by s3://bucket/key URLs; the shard sinks write objects
// through it (see write.go).
//
// A local file is an *os.File behind the [Object] interface: what the
// sources did before, with the same errors. An object is read by ranged
// GET requests (see s3.go): the first one fetches the object's tail (a
// Parquet footer) or its metadata, every later one is conditional on the
// ETag the first saw (If-Match), so that an object rewritten while a run
// reads it fails the run instead of mixing versions.
package objstore

import (
	"context"
	"io"
	"os"
	"strings"
	"time"
)

// Scheme is the prefix of the names that are object URLs.
const Scheme = "s3://"

// IsURL reports whether name is an object URL rather than a local path.
func IsURL(name string) bool { return strings.HasPrefix(name, Scheme) }

// Stamp tells a file's version: its size, modification time and, for an
// object, its ETag (empty for local files).
type Stamp struct {
	Size    int64
	ModTime time.Time
	ETag    string
}

// Object is an open file or object, read at offsets. It is safe for
// concurrent use.
type Object interface {
	io.ReaderAt
	// Size returns the size when the object was opened.
	Size() int64
	// Stamp returns the object's version: for a local file, as it is now
	// (a Stat); for an object, as it was opened, since every read checks
	// that it is still that version.
	Stamp() (Stamp, error)
	// Close releases the object; reads after it fail with an error that
	// wraps os.ErrClosed, for an object in a bucket as for a file.
	Close() error
}

// FooterTail is the Tail that Parquet readers open objects with: the
// footers of files of tens of columns and row groups fit in it, so that
// opening such a file and reading its footer cost one request; a larger
// footer costs one more.
const FooterTail = 16 << 10

// Options tune [Open].
type Options struct {
	// Tail is how many bytes of the object's end to fetch with the first
	// request (a Parquet footer), or 0 to fetch only its metadata.
	Tail int64
	// Limit bounds the requests in flight of a run; nil: the process's
	// default limit.
	Limit *Limit
}

// Open opens the file or object name. An object's reads use ctx, which
// must outlive the object's use: they fail, without retrying, once it is
// done.
func Open(ctx context.Context, name string, o Options) (Object, error) {
	if IsURL(name) {
		return openS3(ctx, name, o)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &localFile{File: f, size: st.Size()}, nil
}

// Stat returns the version of the file or object name.
func Stat(ctx context.Context, name string) (Stamp, error) {
	if IsURL(name) {
		return statS3(ctx, name)
	}
	st, err := os.Stat(name)
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{Size: st.Size(), ModTime: st.ModTime()}, nil
}

// localFile is an open local file.
type localFile struct {
	*os.File
	size int64
}

func (f *localFile) Size() int64 { return f.size }

func (f *localFile) Stamp() (Stamp, error) {
	st, err := f.Stat()
	if err != nil {
		return Stamp{}, err
	}
	return Stamp{Size: st.Size(), ModTime: st.ModTime()}, nil
}

// Limit bounds the requests in flight.
type Limit struct{ sem chan struct{} }

// NewLimit returns a limit of n requests in flight.
func NewLimit(n int) *Limit { return &Limit{sem: make(chan struct{}, max(n, 1))} }

// DefaultRequests is the requests in flight of a [Limit] a run makes, and
// of the process's default limit.
const DefaultRequests = 16

var defaultLimit = NewLimit(DefaultRequests)

func (l *Limit) acquire(ctx context.Context) error {
	if l == nil {
		l = defaultLimit
	}
	select {
	case l.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *Limit) release() {
	if l == nil {
		l = defaultLimit
	}
	<-l.sem
}
