package text

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"unicode/utf8"
)

// splitRecords splits the size bytes of r into byte ranges of about target
// bytes that each start at a record: byte 0, or the byte after a '\n' that
// ends a record. It returns the ranges' sizes. A range ends at the first
// record start at or after its start plus target, so a record longer than
// target makes a longer range; no range is empty.
//
// comma is the CSV delimiter, or 0 for JSON Lines, where a newline cannot
// appear inside a value: finding each start reads only the bytes from the
// nominal split point to the next '\n'.
//
// In CSV a '\n' ends a record unless it lies inside a quoted field, and a
// damaged record ends where encoding/csv stops reading it: at the end of
// the line of a bare quote (in a field that does not start with one) or
// of a quote followed by other than a quote, the delimiter or the line's
// end. So the split follows the file from its start as encoding/csv
// reads it, record by record, skipping from quote to quote: the ranges are
// the records of a serial read, whatever the damage, at the cost of one
// pass over the file at the speed of bytes.IndexByte. The parity of quotes
// alone would not do: one bare quote flips it for the rest of the file.
func splitRecords(ctx context.Context, r io.ReaderAt, size, target int64, comma rune) ([]int64, error) {
	sc := recordScanner{w: window{r: r, size: size, buf: make([]byte, 256<<10)}}
	if comma != 0 {
		sc.comma = utf8.AppendRune(nil, comma)
		if b, err := sc.w.slice(0, min(size, int64(len(bom)))); err == nil && string(b) == bom {
			sc.bom = int64(len(bom))
		} else if err != nil {
			return nil, err
		}
	}
	var sizes []int64
	start := int64(0)
	for start+target < size {
		b, err := sc.nextStart(ctx, start+target)
		if err != nil {
			return nil, err
		}
		if b >= size {
			break
		}
		sizes = append(sizes, b-start)
		start = b
	}
	if start < size {
		sizes = append(sizes, size-start)
	}
	return sizes, nil
}

// recordScanner finds record starts in increasing order, following the
// file as a serial read does.
type recordScanner struct {
	w      window
	comma  []byte // the CSV delimiter's encoding; nil for JSON Lines
	bom    int64  // the length of the byte order mark the file starts with
	pos    int64  // the bytes before pos have been followed
	quoted bool   // pos lies inside a quoted field
}

// nextStart returns the first record start at or after p (p > pos), or
// size if there is none.
func (s *recordScanner) nextStart(ctx context.Context, p int64) (int64, error) {
	size := s.w.size
	nl := int64(-1) // the first '\n' at or after max(p-1, pos), once found
	for s.pos < size {
		var err error
		if from := max(p-1, s.pos); nl < from {
			if nl, err = s.w.index(ctx, from, size, '\n'); err != nil {
				return 0, err
			}
		}
		if s.comma == nil {
			s.pos = min(nl+1, size)
			return s.pos, nil
		}
		var ended bool
		if s.quoted {
			ended, err = s.quotedField(ctx)
		} else {
			ended, err = s.unquoted(ctx, nl)
		}
		if err != nil {
			return 0, err
		}
		if ended && s.pos >= p {
			return s.pos, nil
		}
	}
	return size, nil
}

// unquoted follows the file from pos, outside quotes, to the end of the
// record at nl, the next '\n' (or size), or to a quote before it: the
// start of a quoted field, or a bare quote, whose record ends at the end
// of its line. It reports whether a record ended at the new pos.
func (s *recordScanner) unquoted(ctx context.Context, nl int64) (bool, error) {
	size := s.w.size
	q, err := s.w.index(ctx, s.pos, nl, '"')
	switch {
	case err != nil:
		return false, err
	case q == nl:
		s.pos = min(nl+1, size)
		return true, nil
	}
	start, err := s.fieldStart(q)
	if err != nil {
		return false, err
	}
	if start {
		s.pos, s.quoted = q+1, true
		return false, nil
	}
	return true, s.endLine(ctx, q+1)
}

// quotedField follows a quoted field from pos, inside it, to its closing
// quote and what follows: a doubled quote, which stays inside; the
// delimiter or the end of the line, which end the field; or anything
// else, which fails the record at the end of its line. It reports
// whether a record ended at the new pos.
func (s *recordScanner) quotedField(ctx context.Context) (bool, error) {
	size := s.w.size
	q, err := s.w.index(ctx, s.pos, size, '"')
	if err != nil || q >= size-1 {
		s.pos = size // unterminated, or closed at the end of the file
		return true, err
	}
	after, err := s.w.slice(q+1, min(q+3, size))
	if err != nil {
		return false, err
	}
	s.quoted = false
	switch {
	case after[0] == '"':
		s.pos, s.quoted = q+2, true
	case after[0] == s.comma[0] && (len(s.comma) == 1 || s.isComma(q+1)):
		s.pos = q + 1 + int64(len(s.comma))
	case after[0] == '\n':
		s.pos = q + 2
		return true, nil
	case after[0] == '\r' && (len(after) == 1 || after[1] == '\n'):
		s.pos = q + 1 + int64(len(after)) // "\r\n", or a '\r' that ends the file
		return true, nil
	default:
		return true, s.endLine(ctx, q+1)
	}
	return false, nil
}

// endLine ends a record that encoding/csv fails at the end of the line
// that holds byte i.
func (s *recordScanner) endLine(ctx context.Context, i int64) error {
	e, err := s.w.index(ctx, i, s.w.size, '\n')
	s.pos, s.quoted = min(e+1, s.w.size), false
	return err
}

// fieldStart reports whether the quote at q, outside quotes, starts a
// field: it follows the start of the file (after a byte order mark), a
// '\n' or the delimiter. Outside quotes every '\n' ends a record, and
// every occurrence of the delimiter's bytes separates fields, since a
// UTF-8 encoding cannot overlap another of the same rune.
func (s *recordScanner) fieldStart(q int64) (bool, error) {
	if q == 0 || q == s.bom {
		return true, nil
	}
	n := int64(len(s.comma))
	b, err := s.w.slice(max(q-n, 0), q)
	if err != nil {
		return false, err
	}
	return b[len(b)-1] == '\n' || bytes.Equal(b, s.comma), nil
}

// isComma reports whether the delimiter starts at byte i.
func (s *recordScanner) isComma(i int64) bool {
	j := i + int64(len(s.comma))
	if j > s.w.size {
		return false
	}
	b, err := s.w.slice(i, j)
	return err == nil && bytes.Equal(b, s.comma)
}

// window is a block of a file read at an offset, which moves as it is
// asked for bytes elsewhere.
type window struct {
	r    io.ReaderAt
	size int64
	buf  []byte
	off  int64 // the file offset of buf[0]
	n    int   // the bytes of buf read
}

// lookBack is how many bytes before the one asked for a new window holds.
const lookBack = 8

// load moves the window to hold byte i and up to lookBack bytes before it.
func (w *window) load(i int64) error {
	start := max(i-lookBack, 0)
	want := min(int64(len(w.buf)), w.size-start)
	n, err := w.r.ReadAt(w.buf[:want], start)
	if int64(n) == want {
		err = nil
	} else if err == nil || err == io.EOF {
		err = fmt.Errorf("%d bytes where %d were planned: %w", start+int64(n), w.size, io.ErrUnexpectedEOF)
	}
	w.off, w.n = start, n
	return err
}

// slice returns the bytes [i, j) of the file, j-i at most lookBack and j
// at most size, valid until the window moves.
func (w *window) slice(i, j int64) ([]byte, error) {
	if i < w.off || j-w.off > int64(w.n) {
		if err := w.load(i); err != nil {
			return nil, err
		}
	}
	return w.buf[i-w.off : j-w.off], nil
}

// index returns the offset of the first c in [i, end), or end if there is
// none. It checks ctx as it moves the window: a search may cross the
// whole file.
func (w *window) index(ctx context.Context, i, end int64, c byte) (int64, error) {
	for i < end {
		if i < w.off || i >= w.off+int64(w.n) {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if err := w.load(i); err != nil {
				return 0, err
			}
		}
		b := w.buf[i-w.off : min(int64(w.n), end-w.off)]
		if k := bytes.IndexByte(b, c); k >= 0 {
			return i + int64(k), nil
		}
		i += int64(len(b))
	}
	return end, nil
}
