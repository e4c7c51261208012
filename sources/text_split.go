package sources

import (
	"bytes"
	"io"
)

// splitRecords splits the size bytes of r into byte ranges of about target
// bytes that each start at a record: byte 0, or the byte after a '\n' that
// ends a record. It returns the ranges' sizes. A range ends at the first
// record start at or after its start plus target, so a record longer than
// target makes a longer range; no range is empty.
//
// With quotes, a '\n' ends a record only outside a quoted field, and
// whether a byte is inside one is told by the parity of the '"' before it
// from the start of the file. That is exact for CSV as RFC 4180 writes it
// (a quote inside a quoted field is doubled, and a field that does not
// start with a quote contains none), so the split costs one pass over the
// file counting quotes, at memory speed. Files that break the rule fail to
// parse the same way at every parallelism, because the ranges depend on
// the file alone. Without quotes (JSON Lines, where a newline cannot
// appear inside a value), finding each start reads only the bytes from the
// nominal split point to the next '\n'.
func splitRecords(r io.ReaderAt, size, target int64, quotes bool) ([]int64, error) {
	sc := recordScanner{r: r, size: size, quotes: quotes, buf: make([]byte, 256<<10)}
	var sizes []int64
	start := int64(0)
	for start+target < size {
		b, err := sc.nextStart(start + target)
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

// recordScanner finds record starts in increasing order.
type recordScanner struct {
	r      io.ReaderAt
	size   int64
	quotes bool
	buf    []byte
	pos    int64 // the bytes before pos have been counted
	odd    bool  // an odd number of quotes before pos
}

// nextStart returns the first record start at or after p (p > pos), or
// size if there is none.
func (s *recordScanner) nextStart(p int64) (int64, error) {
	if !s.quotes {
		s.pos = p - 1
	}
	for s.pos < s.size {
		n := min(int64(len(s.buf)), s.size-s.pos)
		blk := s.buf[:n]
		if _, err := s.r.ReadAt(blk, s.pos); err != nil && err != io.EOF {
			return 0, err
		}
		// Count the quotes before the byte p-1 in bulk.
		skip := min(max(p-1-s.pos, 0), n)
		if s.quotes && bytes.Count(blk[:skip], []byte{'"'})%2 == 1 {
			s.odd = !s.odd
		}
		for i := skip; i < n; i++ {
			switch blk[i] {
			case '"':
				if s.quotes {
					s.odd = !s.odd
				}
			case '\n':
				if !s.odd {
					s.pos += i + 1
					return s.pos, nil
				}
			}
		}
		s.pos += n
	}
	return s.size, nil
}
