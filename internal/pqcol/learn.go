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
	starts   []pageStart
}

// note records a page that a read passed: the dictionary page, or a data
// page that starts a row, in the state before it (row, levels).
func (l *learned) note(p *page, ordinal int, row, levels int64, startsRow bool) {
	switch {
	case p.header.Type == format.DictionaryPage:
		l.dict, l.dictPage = p.offset, ordinal
	case startsRow:
		l.starts = append(l.starts, pageStart{offset: p.offset, row: row, levels: levels, page: ordinal})
	}
}

// merged returns the union of what l and the read's found hold.
func (l *learned) merged(found *learned) *learned {
	out := &learned{dict: found.dict, dictPage: found.dictPage}
	if l == nil {
		out.starts = append([]pageStart(nil), found.starts...)
		return out
	}
	if out.dict < 0 {
		out.dict, out.dictPage = l.dict, l.dictPage
	}
	a, b := l.starts, found.starts
	out.starts = make([]pageStart, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].offset < b[0].offset:
			out.starts, a = append(out.starts, a[0]), a[1:]
		case b[0].offset < a[0].offset:
			out.starts, b = append(out.starts, b[0]), b[1:]
		default:
			out.starts, a, b = append(out.starts, a[0]), a[1:], b[1:]
		}
	}
	out.starts = append(append(out.starts, a...), b...)
	return out
}

// learn adds what a read of column chunk slot found to what the Reader
// knows of it.
func (r *Reader) learn(slot int, found *learned) {
	if found.dict < 0 && len(found.starts) == 0 {
		return
	}
	r.learnMu.Lock()
	defer r.learnMu.Unlock()
	r.learned[slot].Store(r.learned[slot].Load().merged(found))
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
		d.pageNum, d.pageRow = l.dictPage, -1
		p, err := d.readPage(l.dict)
		if err != nil {
			return 0, 0, err
		}
		if err := d.dictionaryPage(ctx, p); err != nil {
			return 0, 0, err
		}
	}
	d.nextRow, d.levels, d.atBoundary = s.row, s.levels, true
	return s.offset, s.page, nil
}
