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

// bytes returns the n bytes at file offset off, which must lie within the
// chunk.
func (w *window) bytes(off int64, n int) ([]byte, error) {
	if off < w.start || n < 0 || off+int64(n) > w.end {
		return nil, corruptf("byte range [%d, %d) lies outside the column chunk [%d, %d)", off, off+int64(n), w.start, w.end)
	}
	if off >= w.off && off+int64(n) <= w.off+int64(len(w.buf)) {
		i := off - w.off
		return w.buf[i : i+int64(n)], nil
	}
	ahead := int64(readAhead)
	if w.stop > 0 {
		ahead = max(w.stop-off, 0)
	}
	size := int(min(max(int64(n), ahead), w.end-off))
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

// pageBuffers holds the byte buffers of decoders between reads: a
// decoder's window and decompressed page are needed only while it
// decodes a column chunk, and a column chunk's one page can be many
// megabytes (DuckDB writes one page per chunk), so a reader's columns
// share them, through the pool, instead of each keeping its own for as
// long as its Column lives.
var pageBuffers sync.Pool // of *chunkBuffers

// chunkBuffers are the buffers a decoder borrows for one column chunk.
type chunkBuffers struct {
	win, page []byte
}

// borrowBuffers gives d a window buffer and a decompression buffer
// from pageBuffers for one column chunk.
func (d *decoder) borrowBuffers() {
	b, _ := pageBuffers.Get().(*chunkBuffers)
	if b == nil {
		b = new(chunkBuffers)
	}
	d.bufs = b
	d.win.buf, d.scratch = b.win[:0], b.page
}

// returnBuffers hands d's buffers back to pageBuffers: no slice of
// them is used after the chunk is decoded, since values, levels and
// dictionaries are copied out of the pages.
func (d *decoder) returnBuffers() {
	b := d.bufs
	b.win, b.page = d.win.buf, d.scratch
	d.bufs, d.win.buf, d.scratch = nil, nil, nil
	d.src.Reset(nil)
	pageBuffers.Put(b)
}
