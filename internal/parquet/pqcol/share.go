package pqcol

import (
	"context"
	"errors"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go/format"
)

// Reads that divide a row group between them (ranges of MaxRows rows, read
// by different workers or one after another) can need the same page: one
// that holds rows of two ranges, or, as DuckDB writes them, the one page of
// a whole column chunk, which every range of the row group needs. Such a
// page is decompressed once. The first read that needs it decompresses it
// into a buffer of its own and leaves the buffer in shared; the reads of
// its other rows take it from there, waiting for it while it is being
// decompressed. A page leaves once reads have taken all its level entries,
// or, oldest first, when the pages held would pass sharedBytes; a read
// that needs it after that decompresses it again. Its buffer is used again
// for another page once it has left and no read uses it. The bytes are the
// file's, so a page from shared is the page a read would decompress
// itself, and the values and errors of every read are the same.

// sharedBytes bounds the decompressed pages that shared holds, across all
// Readers: a few row groups' worth of DuckDB's one-page chunks.
const sharedBytes = 64 << 20

// shared holds the pages that reads of part of a row group leave for the
// other reads of the row group.
var shared = pageShare{pages: map[pageKey]*sharedPage{}}

// readerIDs numbers Readers, for the keys of shared.
var readerIDs atomic.Uint64

// sharedBuffers holds the buffers of pages that left shared, for the
// next, by size: class k holds buffers of 1<<k bytes, so that a page of
// a few hundred kilobytes and one of several megabytes, which alternate
// in a row group, do not take each other's buffer and drop it.
var sharedBuffers [bits.UintSize]sync.Pool // of *[]byte

// sharedBuffer returns an empty buffer of at least size bytes, its
// capacity a power of two.
func sharedBuffer(size int) []byte {
	k := bits.Len(uint(size - 1))
	if b, _ := sharedBuffers[k].Get().(*[]byte); b != nil {
		return *b
	}
	return make([]byte, 0, 1<<k)
}

type pageKey struct {
	reader uint64 // the Reader's id
	offset int64  // the page's file offset
}

// sharedPage is a decompressed page in shared.
type sharedPage struct {
	key    pageKey
	size   int64         // the decompressed size, as the page header declares
	done   chan struct{} // closed once data or failed is set
	data   []byte
	buf    []byte // the buffer data was decompressed into, from sharedBuffer
	failed bool   // decompressing failed: each read decompresses it itself
	left   int64  // level entries of the page that no read has taken yet
	users  int    // reads using data; under pageShare.mu
	gone   bool   // no longer in pages; under pageShare.mu
}

type pageShare struct {
	mu    sync.Mutex
	pages map[pageKey]*sharedPage
	order []*sharedPage // in the order they came, for eviction
	held  int64         // the declared sizes of the pages in pages
}

// acquire returns the page under key, if shared holds it, or, if add is
// set, a new entry for it that the caller must fill (owner is then true).
// It returns nil if shared neither holds nor takes the page.
func (s *pageShare) acquire(key pageKey, size int64, entries int, add bool) (e *sharedPage, owner bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.pages[key]; e != nil {
		e.users++
		return e, false
	}
	if !add || size > sharedBytes {
		return nil, false
	}
	for s.held+size > sharedBytes {
		s.evictOldest()
	}
	e = &sharedPage{key: key, size: size, done: make(chan struct{}), left: int64(entries), users: 1}
	s.pages[key] = e
	s.held += size
	if len(s.order) > 2*len(s.pages)+16 {
		live := s.order[:0]
		for _, o := range s.order {
			if !o.gone {
				live = append(live, o)
			}
		}
		clear(s.order[len(live):])
		s.order = live
	}
	s.order = append(s.order, e)
	return e, true
}

// evictOldest removes the page that came first; under mu. A page being
// decompressed leaves too: its readers keep it, later ones decompress it
// again.
func (s *pageShare) evictOldest() {
	for len(s.order) > 0 {
		e := s.order[0]
		s.order[0] = nil
		s.order = s.order[1:]
		if !e.gone {
			s.remove(e)
			return
		}
	}
}

// remove takes e out of pages; under mu.
func (s *pageShare) remove(e *sharedPage) {
	e.gone = true
	delete(s.pages, e.key)
	s.held -= e.size
	s.recycle(e)
}

// recycle keeps e's buffer for another page once e has left and no read
// uses it; under mu.
func (s *pageShare) recycle(e *sharedPage) {
	if e.gone && e.users == 0 && e.buf != nil {
		b := e.buf[:0]
		e.buf, e.data = nil, nil
		sharedBuffers[bits.Len(uint(cap(b)))-1].Put(&b)
	}
}

// drop removes the pages of the Reader with the given id.
func (s *pageShare) drop(reader uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, e := range s.pages {
		if k.reader == reader {
			s.remove(e)
		}
	}
}

// fill sets the page of an entry that acquire made, or marks it failed
// and removes it.
func (s *pageShare) fill(e *sharedPage, buf, data []byte, err error) {
	s.mu.Lock()
	if err != nil {
		e.failed = true
		if !e.gone {
			s.remove(e)
		}
	} else {
		e.buf, e.data = buf, data
	}
	s.mu.Unlock()
	close(e.done)
}

// release records that a read is done with e, having taken n of its level
// entries; e leaves once all are taken.
func (s *pageShare) release(e *sharedPage, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.users--
	if e.left -= int64(n); e.left <= 0 && !e.gone {
		s.remove(e)
	}
	s.recycle(e)
}

// errAbandoned marks a page whose decompression panicked.
var errAbandoned = errors.New("pqcol: decompressing the page panicked")

// pageData returns the decompressed form of src, the compressed part of
// the data page p of n level entries, size bytes once decompressed. A read
// of part of a row group looks the page up in shared first, and leaves it
// there if another read may need it (share); d.shared is then the entry,
// which the read releases once it is done with the page (see dataPage).
func (d *decoder) pageData(ctx context.Context, p *page, src []byte, size, n int, share bool, req *request) ([]byte, error) {
	if d.codec == format.Uncompressed || req.whole || req.from == 0 && req.toEnd {
		return d.decompress(ctx, src, size)
	}
	e, owner := shared.acquire(pageKey{d.reader, p.offset}, int64(size), n, share)
	switch {
	case e == nil:
		return d.decompress(ctx, src, size)
	case !owner:
		select {
		case <-e.done:
		case <-ctx.Done():
			shared.release(e, 0)
			return nil, ctx.Err()
		}
		if e.failed {
			shared.release(e, 0)
			return d.decompress(ctx, src, size) // for this read's own error
		}
		d.shared = e
		return e.data, nil
	}
	// The page is decompressed into a buffer of its own, not the
	// decoder's, which the next page reuses.
	scratch, buf := d.scratch, sharedBuffer(size+1) // zstd decodes into one more byte
	d.scratch = buf
	filled := false
	defer func() {
		if !filled {
			// Decompressing panicked (the read recovers it): the reads
			// waiting for the page decompress it themselves.
			d.scratch = scratch
			shared.fill(e, nil, nil, errAbandoned)
			shared.release(e, 0)
		}
	}()
	data, err := d.decompress(ctx, src, size)
	filled = true
	if cap(d.scratch) != cap(buf) {
		buf = nil // the codec took a buffer of its own: not one of sharedBuffers'
	}
	d.scratch = scratch
	shared.fill(e, buf, data, err)
	if err != nil {
		shared.release(e, 0)
		return nil, err
	}
	d.shared = e
	return data, nil
}

// sharesPage reports whether a read other than req may need the data page
// p, as far as is known before its rows are: whether the page holds rows
// before req.from, or rows from req.to on. rows is the number of rows the
// page starts, or -1 where only its levels tell (a page v1 of a repeated
// column): such a page is shared if the rows before it reach req.from (it
// may continue, or be where the read of the rows before stops), or if it
// is the chunk's last page and rows follow the range.
func (d *decoder) sharesPage(p *page, rows int64, req *request) bool {
	if rows < 0 {
		return d.nextRow <= req.from && req.from > 0 || p.end >= d.end && req.to < req.numRows
	}
	return d.nextRow < req.from || d.nextRow+rows > req.to
}
