package pqcol

import (
	"fmt"
	"io"
	"sync"
)

// readAhead is how many bytes of a column chunk a window reads at once when
// the bytes asked for are not buffered: large enough that a chunk of small
// pages costs few ReadAt calls, small enough to bound memory.
const readAhead = 1 << 20

// window buffers a byte range of a column chunk [start, end) read from r.
// Slices it returns stay valid until the next call to bytes.
type window struct {
	r          io.ReaderAt
	start, end int64  // the column chunk's bytes in the file
	buf        []byte // bytes [off, off+len(buf)) of the file
	off        int64
	// stop, if > 0, is where the pages a read needs end (a read of a
	// row range that the offset index bounds): reads ahead stop there,
	// and bytes past it are read only as asked for, so that a read of a
	// few pages of a large chunk in a bucket asks for those pages, not
	// readAhead bytes.
	stop int64
}

func (w *window) reset(r io.ReaderAt, start, end int64) {
	w.r = r
	w.start, w.end, w.stop = start, end, 0
	w.buf = w.buf[:0]
	w.off = start
}

// read returns the n bytes at file offset off, which must lie within the
// chunk. If they are not buffered, it reads them, and the bytes after
// them if ahead is set.
func (w *window) read(off int64, n int, ahead bool) ([]byte, error) {
	if off < w.start || n < 0 || off+int64(n) > w.end {
		return nil, corruptf("byte range [%d, %d) lies outside the column chunk [%d, %d)", off, off+int64(n), w.start, w.end)
	}
	if off >= w.off && off+int64(n) <= w.off+int64(len(w.buf)) {
		i := off - w.off
		return w.buf[i : i+int64(n)], nil
	}
	more := int64(0)
	switch {
	case !ahead:
	case w.stop > 0:
		more = max(w.stop-off, 0)
	default:
		more = readAhead
	}
	size := int(min(max(int64(n), more), w.end-off))
	// Bytes at off that are already buffered move to the front and are not
	// read again.
	keep := 0
	if off >= w.off && off < w.off+int64(len(w.buf)) {
		keep = copy(w.buf, w.buf[off-w.off:])
	}
	if cap(w.buf) < size {
		buf := make([]byte, size)
		copy(buf, w.buf[:keep])
		w.buf = buf
	}
	w.buf = w.buf[:size]
	w.off = off
	if err := readAt(w.r, w.buf[keep:], off+int64(keep)); err != nil {
		w.buf = w.buf[:0]
		return nil, fmt.Errorf("reading %d bytes at offset %d: %w", size-keep, off+int64(keep), err)
	}
	return w.buf[:n], nil
}

// decoders holds decoders between reads. A decoder's buffers (the
// chunk's window, the decompressed page, a page's levels and dictionary
// indexes, the dictionary) are needed only while it decodes a column
// chunk, and a chunk's one page can be many megabytes (DuckDB writes one
// page per chunk), so a read borrows a decoder for one chunk rather than
// each Column keeping one for as long as the Column lives: values, levels
// and dictionary values are copied out of its buffers.
var decoders sync.Pool // of *decoder

// borrowDecoder returns a decoder from the pool, or a new one.
func borrowDecoder() *decoder {
	if d, _ := decoders.Get().(*decoder); d != nil {
		return d
	}
	return new(decoder)
}

// release hands d back to the pool, keeping its buffers and nothing of
// the file it read.
func (d *decoder) release() {
	d.win.r, d.leaf, d.shared, d.late = nil, nil, nil, false
	d.src.Reset(nil)
	decoders.Put(d)
}
