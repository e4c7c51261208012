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
// decompressed. Where only the page's levels tell which rows it holds (a
// page v1 of a repeated column, but a chunk's last), the read leaves it
// once it has decoded them, and only if other reads need it (see
// sharingOf). A page leaves once reads have taken all its level entries,
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
// next, by size class (see bufferClass), so that a page of a few hundred
// kilobytes and one of several megabytes, which alternate in a row group,
// do not take each other's buffer and drop it.
var sharedBuffers [4 * bits.UintSize]sync.Pool // of *[]byte

// bufferClass returns the size class of a buffer for n > 0 bytes and the
// class's size: n rounded up to a quarter of the power of two below it
// (at most 25% more), or to a power of two below 8 bytes.
func bufferClass(n int) (class, size int) {
	k := bits.Len(uint(n - 1)) // 1<<(k-1) < n <= 1<<k
	if k < 3 {
		return 4*k + 3, 1 << k
	}
	low, q := 1<<(k-1), 1<<(k-3)
	sub := (n - low + q - 1) / q // 1 to 4
	return 4*k + sub - 1, low + sub*q
}

// sharedBuffer returns an empty buffer of at least size bytes: one of its
// size class, or, where that would pass limit, of size bytes.
func sharedBuffer(size int, limit int64) []byte {
	class, n := bufferClass(size)
	if int64(n) > limit {
		return make([]byte, 0, size)
	}
	if b, _ := sharedBuffers[class].Get().(*[]byte); b != nil {
		return *b
	}
	return make([]byte, 0, n)
}

// pageKey names a page of a column chunk. The chunk is part of it: in a
// damaged file two chunks can claim the same bytes, and a page's decoded
// form depends on its chunk's codec and, for its levels, on its column.
type pageKey struct {
	reader uint64 // the Reader's id
	chunk  int    // the column chunk's index: row group × leaves + column
	offset int64  // the page's file offset
}

// sharedPage is a decompressed page in shared.
type sharedPage struct {
	key    pageKey
	size   int64         // the decompressed size, as the page header declares, and the levels' buffers
	done   chan struct{} // closed once data or failed is set
	data   []byte
	buf    []byte      // the buffer data was decompressed into, from sharedBuffer
	failed bool        // decompressing failed: each read decompresses it itself
	left   int64       // level entries of the page that no read has taken yet
	users  int         // reads using data; under pageShare.mu
	gone   bool        // no longer in pages; under pageShare.mu
	levels *pageLevels // the levels a read left (see offerLevels); under pageShare.mu
}

// pageLevels are the levels of a page v1 in shared, which the first read
// to decode and check them leaves for the page's other reads: a page v1's
// levels are part of its compressed bytes, and a page of a whole row
// group holds hundreds of thousands of them. A read that takes them
// checks only what depends on the pages before (see checkRepetition).
type pageLevels struct {
	rep, def []byte // the page's level entries, in buffers from sharedBuffer
	values   int    // the bytes of the page's data after them: its values
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
	e = &sharedPage{key: key, size: size, done: make(chan struct{}), left: int64(entries), users: 1}
	s.add(e)
	return e, true
}

// holds reports whether shared holds the page under key, decompressed or
// being decompressed.
func (s *pageShare) holds(key pageKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pages[key] != nil
}

// add puts e in pages, making room for it; under mu.
func (s *pageShare) add(e *sharedPage) {
	for s.held+e.size > sharedBytes && len(s.order) > 0 {
		s.evictOldest()
	}
	s.pages[e.key] = e
	s.held += e.size
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
	if !e.gone || e.users != 0 {
		return
	}
	if e.buf != nil {
		putSharedBuffer(e.buf)
		e.buf, e.data = nil, nil
	}
	if e.levels != nil {
		putSharedBuffer(e.levels.rep)
		putSharedBuffer(e.levels.def)
		e.levels = nil
	}
}

// levelsOf returns the levels a read left with e, or nil; e may be nil.
func (s *pageShare) levelsOf(e *sharedPage) *pageLevels {
	if e == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return e.levels
}

// offerLevels leaves the levels of the current page, of n entries and
// values bytes of values after them, with the page in shared that the
// read uses (d.shared), unless another read left them first or they
// would take shared past sharedBytes. They count as part of the page (of
// a page not yet in shared, from when publish puts it there, making room
// as for any page). The decoder's level buffers go with them; it takes
// others for the next page (see levelBuffer).
func (d *decoder) offerLevels(n, values int) {
	var rep, def []byte
	if d.leaf.MaxRepetitionLevel > 0 {
		rep = d.repBuf[:n]
	}
	if d.leaf.MaxDefinitionLevel > 0 {
		def = d.defBuf[:n]
	}
	size := int64(cap(rep) + cap(def))
	s, e := &shared, d.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	if size == 0 || e.levels != nil || e.gone && !d.late || e.size+size > sharedBytes || !e.gone && s.held+size > sharedBytes {
		return
	}
	e.levels = &pageLevels{rep: rep, def: def, values: values}
	if rep != nil {
		d.repBuf = nil
	}
	if def != nil {
		d.defBuf = nil
	}
	d.levelsShared = true
	e.size += size
	if !e.gone {
		s.held += size
	}
}

// levelBuffer returns buf emptied, if it holds n bytes, or else an empty
// buffer for them from sharedBuffers, where a page's levels left in
// shared go back once the page has left. (The levels of a page of n
// entries need n+7 bytes: bit-packed levels are decoded 8 at a time.)
func levelBuffer(buf []byte, n int) []byte {
	if cap(buf) >= n {
		return buf[:0]
	}
	putSharedBuffer(buf)
	return sharedBuffer(max(n, 1), sharedBytes)
}

// putSharedBuffer puts a buffer from sharedBuffer back, if it is of a
// size class; others, and nil, are left to the collector.
func putSharedBuffer(b []byte) {
	if class, n := bufferClass(max(cap(b), 1)); n == cap(b) {
		b = b[:0]
		sharedBuffers[class].Put(&b)
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

// publish puts e, a page decompressed by a read that found out from its
// levels that other reads need it too, and of which the read takes taken
// level entries, in pages. If another read put the page there meanwhile,
// the read's entries are taken from that one instead, so that it leaves
// once the reads have taken all its entries.
func (s *pageShare) publish(e *sharedPage, taken int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.pages[e.key]; o != nil {
		if o.left -= int64(taken); o.left <= 0 {
			s.remove(o)
		}
		return
	}
	if e.size <= sharedBytes {
		s.add(e)
		e.gone = false
	}
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

// sharing says whether a read leaves a page it decompresses for other
// reads.
type sharing int

const (
	shareNo    sharing = iota // no other read needs the page
	shareNow                  // others need it: they wait while it is decompressed
	shareLater                // only the page's levels tell (see dataPage)
)

// sharingOf says whether a read other than req may need the data page p,
// as far as is known before its rows are: whether the page holds rows
// before req.from, or rows from req.to on. rows is the number of rows the
// page starts, or -1 where only its levels tell (a page v1 of a repeated
// column). Such a page is shared at once if it is the chunk's last (which
// holds every row from the rows before it on), holds rows of the range
// (fewer than req.to rows precede it) and rows follow the range, or the
// range runs to the end and may start inside the page; otherwise it is
// left for other reads once its levels show that it holds both rows of
// the range and rows of others. A page that a read only passes through
// (to count the rows before its range, or to find where its last row
// ends) is not left: the reads of its rows need it, and the first of them
// to come leaves it for the others.
func (d *decoder) sharingOf(p *page, rows int64, req *request) sharing {
	switch {
	case rows >= 0 && (d.nextRow < req.from || d.nextRow+rows > req.to):
		return shareNow
	case rows >= 0:
		return shareNo
	case p.end >= d.end && (req.to < req.numRows && d.nextRow < req.to || req.from > 0 && d.nextRow <= req.from):
		return shareNow
	}
	return shareLater
}

// pageData returns the decompressed form of the compressed part of the
// data page p of n level entries, its body from byte at on, size bytes
// once decompressed. A read of part of a row group looks the page up in
// shared first, and otherwise leaves it there, as share says; d.shared is
// then the entry (not yet in shared for shareLater), which the read
// releases once it is done with the page (see dataPage). A read that
// takes the page from shared does not read its body.
func (d *decoder) pageData(ctx context.Context, p *page, at, size, n int, share sharing, req *request) ([]byte, error) {
	if !d.sharesPages(req) {
		return d.decompressBody(ctx, p, at, size)
	}
	key := pageKey{d.reader, d.chunk, p.offset}
	e, owner := shared.acquire(key, int64(size), n, share == shareNow)
	switch {
	case e == nil && (share == shareNo || int64(size) > sharedBytes):
		return d.decompressBody(ctx, p, at, size)
	case e == nil:
		// Decompressed into a buffer that dataPage may leave in shared
		// once the levels tell; until then no other read sees it.
		e = &sharedPage{key: key, size: int64(size), done: closed, left: int64(n), users: 1, gone: true}
		data, buf, err := d.decompressOwn(ctx, p, at, size)
		if err != nil {
			putSharedBuffer(buf)
			return nil, err
		}
		e.buf, e.data = buf, data
		d.shared, d.late = e, true
		return data, nil
	case !owner:
		select {
		case <-e.done:
		case <-ctx.Done():
			shared.release(e, 0)
			return nil, ctx.Err()
		}
		if e.failed {
			shared.release(e, 0)
			return d.decompressBody(ctx, p, at, size) // for this read's own error
		}
		d.shared = e
		return e.data, nil
	}
	filled := false
	defer func() {
		if !filled {
			// Decompressing panicked (the read recovers it): the reads
			// waiting for the page decompress it themselves.
			shared.fill(e, nil, nil, errAbandoned)
			shared.release(e, 0)
		}
	}()
	data, buf, err := d.decompressOwn(ctx, p, at, size)
	filled = true
	shared.fill(e, buf, data, err)
	if err != nil {
		putSharedBuffer(buf)
		shared.release(e, 0)
		return nil, err
	}
	d.shared = e
	return data, nil
}

// sharesPages reports whether the read req may take pages from shared or
// leave them there: a read of part of a row group's rows, of compressed
// pages.
func (d *decoder) sharesPages(req *request) bool {
	return d.codec != format.Uncompressed && !req.whole && !(req.from == 0 && req.toEnd)
}

// closed is a closed channel: the done of a page that is decompressed
// before it is shared.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// decompressBody decompresses the body of p from byte at on, size bytes
// once decompressed.
func (d *decoder) decompressBody(ctx context.Context, p *page, at, size int) ([]byte, error) {
	body, err := d.pageBody(p)
	if err != nil {
		return nil, err
	}
	return d.decompress(ctx, body[at:], size)
}

// decompressOwn is decompressBody into a buffer of its own from
// sharedBuffers, not the decoder's, which the next page reuses. buf is
// that buffer, or nil if the codec took another; on error it is returned
// for the caller to put back.
func (d *decoder) decompressOwn(ctx context.Context, p *page, at, size int) (data, buf []byte, err error) {
	scratch := d.scratch
	buf = sharedBuffer(size+1, d.cfg.maxPageSize+1) // zstd decodes into one more byte
	d.scratch = buf
	defer func() { d.scratch = scratch }()
	data, err = d.decompressBody(ctx, p, at, size)
	if cap(d.scratch) != cap(buf) {
		buf = nil // the codec took a buffer of its own: not one of sharedBuffers'
	}
	return data, buf, err
}
