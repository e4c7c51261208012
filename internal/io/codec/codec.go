// Package codec is the table of stream compressions that the text sources
// and sinks share: none, gzip, zstd and s2, all from klauspost/compress,
// chosen by name or by a file's extension.
package codec

import (
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Codec is a stream compression. The zero Codec is None.
type Codec int

const (
	None Codec = iota
	Gzip
	Zstd
	S2
)

var table = []struct {
	name string
	exts []string // the first is the one written
}{
	None: {"none", nil},
	Gzip: {"gzip", []string{".gz"}},
	Zstd: {"zstd", []string{".zst", ".zstd"}},
	S2:   {"s2", []string{".s2"}},
}

// Parse returns the codec named name: "none", "gzip", "zstd" or "s2".
func Parse(name string) (Codec, error) {
	for c, t := range table {
		if t.name == name {
			return Codec(c), nil
		}
	}
	return None, fmt.Errorf("codec: unknown compression %q (want none, gzip, zstd or s2)", name)
}

// ForPath returns the codec that the extension of path names, and None for
// other names.
func ForPath(path string) Codec {
	for c, t := range table {
		for _, ext := range t.exts {
			if strings.HasSuffix(path, ext) {
				return Codec(c)
			}
		}
	}
	return None
}

// Suffixes returns base followed by base with each compressed extension:
// the names a directory search for files of base takes.
func Suffixes(base string) []string {
	out := []string{base}
	for _, t := range table {
		for _, ext := range t.exts {
			out = append(out, base+ext)
		}
	}
	return out
}

func (c Codec) String() string { return table[c].name }

// Ext returns the extension a file written with c gets: "" for None.
func (c Codec) Ext() string {
	if c == None {
		return ""
	}
	return table[c].exts[0]
}

// maxWindow bounds the window a zstd stream may ask the decoder for, so
// that a small hostile file cannot make it allocate gigabytes.
const maxWindow = 128 << 20

// NewReader returns a reader of the decompressed stream r. Closing it
// releases the decoder, not r.
func (c Codec) NewReader(r io.Reader) (io.ReadCloser, error) {
	switch c {
	case Gzip:
		return gzip.NewReader(r)
	case Zstd:
		d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(maxWindow))
		if err != nil {
			return nil, err
		}
		return d.IOReadCloser(), nil
	case S2:
		return io.NopCloser(s2.NewReader(r)), nil
	}
	return io.NopCloser(r), nil
}

// NewWriter returns a writer that compresses into w; Close flushes the
// stream's end but does not close w. The same data gives the same bytes
// on every run: gzip headers carry no time or name, and the encoders run
// on one goroutine.
func (c Codec) NewWriter(w io.Writer) (io.WriteCloser, error) {
	switch c {
	case Gzip:
		return gzip.NewWriter(w), nil
	case Zstd:
		return zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	case S2:
		return s2.NewWriter(w, s2.WriterConcurrency(1)), nil
	}
	return nopWriteCloser{w}, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
