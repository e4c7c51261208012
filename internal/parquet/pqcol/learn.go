package pqcol

import (
	"context"
	"sort"

	"github.com/parquet-go/parquet-go/format"
)

// Page starts learned by scanning.
//
// A column chunk without an offset index gives no way to find the page
// that holds a row other than reading the pages before it: their headers,
// and for data pages v1 of repeated columns their levels too, since only
// the levels say where rows start. A row group read in k row ranges was
// then scanned k(k+1)/2 pages' worth over (a row group of a million token
// lists in the default ranges of 65536 rows took six times as long as the
// same file with an index). So each read of such a chunk notes the pages
// it passes that start a row, with the state the scan had there, and a
// later read of the chunk through the same Reader starts at the last noted
// page at or before its first row instead of the chunk's first page. The
// state is all that the pages before carry over: the row and level entry
// counts, the page's ordinal and the dictionary. A read so started checks
// what a scan from the first page checks, for the pages it decodes.
//
// The page starts kept are bounded, since a file's pages may be tiny and
// its row groups may all name one chunk: a start is kept only if it lies
// at least learnGap bytes after the one before it (and a chunk keeps at
// most maxChunkStarts), so that a read scans at most that far before its
// range, and a Reader keeps at most learnedLimit of them in all.

// learnGap is the least distance in bytes between two page starts kept
// of a chunk; maxChunkStarts widens it for large chunks.
const (
	learnGap       = 64 << 10
	maxChunkStarts = 1024
)

// learnedLimit returns how many page starts a Reader of a file of size
// bytes keeps: 32 bytes each, at most an eighth of the file's size, or
// 4096 for a small file.
func learnedLimit(size int64) int { return int(max(4096, size/256)) }

// pageStart is a data page that starts a row, as a scan found it.
type pageStart struct {
	offset int64 // the file offset of the page's header
	row    int64 // the row the page starts
	levels int64 // the level entries of the chunk before the page
	page   int   // the page's ordinal in the chunk
}

// learned is what the reads of one column chunk have found: the
// dictionary page, if one was passed, and the pages that start a row, by
// offset. A value is never changed once stored in a Reader.
type learned struct {
	dict     int64 // the dictionary page's offset, or -1 if none was passed
	dictPage int   // its ordinal
	gap      int64 // the least distance between two starts kept
	starts   []pageStart
}

// note records a page that a read passed: the dictionary page, or a data
// page that starts a row, in the state before it (row, levels), unless it
// lies within l.gap bytes of the start noted before it.
func (l *learned) note(p *page, ordinal int, row, levels int64, startsRow bool) {
	switch {
	case p.header.Type == format.DictionaryPage:
		l.dict, l.dictPage = p.offset, ordinal
	case startsRow && (len(l.starts) == 0 || p.offset-l.starts[len(l.starts)-1].offset >= l.gap):
		l.starts = append(l.starts, pageStart{offset: p.offset, row: row, levels: levels, page: ordinal})
	}
}

// merged returns the union of what l and the read's found hold, the
// starts kept found.gap apart, and whether it holds more than l.
func (l *learned) merged(found *learned) (*learned, bool) {
	out := &learned{dict: found.dict, dictPage: found.dictPage, gap: found.gap}
	var a []pageStart
	if l != nil {
		a = l.starts
		if out.dict < 0 {
			out.dict, out.dictPage = l.dict, l.dictPage
		}
	}
	b := found.starts
	out.starts = make([]pageStart, 0, len(a)+len(b))
	add := func(s pageStart) {
		if n := len(out.starts); n == 0 || s.offset-out.starts[n-1].offset >= out.gap {
			out.starts = append(out.starts, s)
		}
	}
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].offset < b[0].offset:
			add(a[0])
			a = a[1:]
		case b[0].offset < a[0].offset:
			add(b[0])
			b = b[1:]
		default:
			add(a[0])
			a, b = a[1:], b[1:]
		}
	}
	for _, s := range a {
		add(s)
	}
	for _, s := range b {
		add(s)
	}
	grew := l == nil || len(out.starts) != len(l.starts) || out.dict != l.dict
	return out, grew
}

// learn adds what a read of column chunk slot found to what the Reader
// knows of it, while the Reader keeps fewer than its limit of starts.
func (r *Reader) learn(slot int, found *learned) {
	if found.dict < 0 && len(found.starts) == 0 {
		return
	}
	r.learnMu.Lock()
	defer r.learnMu.Unlock()
	old := r.learned[slot].Load()
	l, grew := old.merged(found)
	if !grew {
		return
	}
	n := len(l.starts)
	if old != nil {
		n -= len(old.starts)
	}
	if r.learnedStarts+n > learnedLimit(r.file.Size()) {
		return
	}
	r.learnedStarts += n
	r.learned[slot].Store(l)
}

// seekLearned positions the decoder at the last page of l that starts a
// row at or before req.from, in the state a scan from the chunk's first
// page had there, loading the dictionary page if it lies before. It
// returns the file offset and page ordinal to decode from; with no such
// page, the chunk's start.
func (d *decoder) seekLearned(ctx context.Context, l *learned, start int64, req *request) (int64, int, error) {
	if l == nil {
		return start, 0, nil
	}
	i := sort.Search(len(l.starts), func(i int) bool { return l.starts[i].row > req.from }) - 1
	if i < 0 {
		return start, 0, nil
	}
	s := l.starts[i]
	if l.dict >= 0 && l.dict < s.offset {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		d.pageNum, d.pageRow = l.dictPage, -1
		p, err := d.readPage(l.dict, true)
		if err != nil {
			return 0, 0, err
		}
		if err := d.dictionaryPage(ctx, p); err != nil {
			return 0, 0, err
		}
		d.pageNum = -1
	}
	d.nextRow, d.levels, d.atBoundary = s.row, s.levels, true
	return s.offset, s.page, nil
}
