package text

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/csv"
	"io"
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// fastCSV is the CSV reader's fast path. encoding/csv copies each record
// into a buffer of its own, then into one newly allocated string that all
// its fields share. The fast path reads records that fit on one line in
// place: it splits the line in the part's read buffer (quoted fields too,
// with their quotes dropped and doubled quotes undone, in a buffer of its
// own) and hands the fields on as strings that point there, so that a
// struct field of a number or a bool costs no allocation, and the text
// that a string keeps is copied into its chunk's memory (internal/io/chunkmem),
// shared by many rows. It takes records up to the first that needs
// more: a quoted field that spans lines or is malformed, a quote inside a
// field that is not quoted, a line longer than the read buffer. Blank
// lines it skips, as encoding/csv does. From there encoding/csv reads the rest of the part, and its
// line numbers and offsets count from where the fast path stopped. What
// the fast path gives is what encoding/csv gives for such records: "\r\n"
// ends a line as "\n" does, a '\r' before the end of the input is
// dropped, and a record whose field count is not the header's is an error
// (csv.ErrFieldCount) on the line it starts on, at the offset where
// reading it began.
type fastCSV struct {
	on     bool
	comma  byte
	n      int   // fields per record
	bytes  int64 // bytes of the part the fast path consumed
	lines  int64 // lines of the part the fast path consumed
	fields []string
	ends   []int  // where each field of the record ends in its text
	buf    []byte // the text of a record with quoted fields
}

// csvFastPath turns the fast path on; tests turn it off to compare the
// two readers.
var csvFastPath = true

// start sets up the fast path for records of n fields.
func (f *fastCSV) start(comma rune, n int) {
	f.on = csvFastPath && n > 0 && comma < utf8.RuneSelf && comma != '"' && comma != '\r' && comma != '\n'
	f.comma, f.n = byte(comma), n
}

// skipBlankLines discards the blank lines ("\n", "\r\n") at the start of
// the part's reader, as encoding/csv skips them, and returns the bytes and
// lines it discarded: a record's position is where its first line starts.
// skipped is the bytes of the part before encoding/csv's first: the part's
// mark follows the lines discarded, which are no record's. It checks ctx
// as it goes: a small compressed stream can hold gigabytes of them. The
// error is ctx's or the reader's.
func (c *csvReader) skipBlankLines(ctx context.Context, skipped int64) (n, lines int64, err error) {
	br := c.part.r
	for {
		line, _, err := peekLine(br)
		switch {
		case err == bufio.ErrBufferFull:
			return n, lines, nil // a long line is not blank
		case err != nil:
			return n, lines, err
		case string(line) != "\n" && string(line) != "\r\n":
			return n, lines, nil
		}
		br.Discard(len(line))
		n += int64(len(line))
		lines++
		c.part.mark = skipped + n + c.r.InputOffset()
		if err := c.pace.check(ctx, len(line)); err != nil {
			return n, lines, err
		}
	}
}

// eachFast calls fn with the records the fast path takes. It reports
// whether the part has ended; if not, encoding/csv goes on from the
// first record it did not take. encoding/csv's offset does not move
// while the fast path reads.
// It checks ctx at every line: blank and bad lines, which push nothing,
// can make the part long.
func (c *csvReader) eachFast(ctx context.Context, fn func(rec []string, off int64, borrowed bool) error) (bool, error) {
	f := &c.fast
	if !f.on {
		return false, nil
	}
	br := c.part.r
	for {
		off := f.bytes
		line, eof, err := peekLine(br)
		switch {
		case err == bufio.ErrBufferFull:
			return false, nil // a line longer than the buffer
		case err != nil:
			return true, c.part.broken(c.line+1, off, err)
		case eof && len(line) == 0:
			return true, nil
		}
		if err := c.pace.check(ctx, len(line)); err != nil {
			return true, err
		}
		rec := line
		switch {
		case eof && rec[len(rec)-1] == '\r':
			rec = rec[:len(rec)-1]
		case !eof && len(rec) >= 2 && rec[len(rec)-2] == '\r':
			rec = rec[:len(rec)-2]
		case !eof:
			rec = rec[:len(rec)-1]
		}
		if len(rec) == 0 {
			// A blank line: encoding/csv skips it too. A record's
			// position is where its first line starts, after them.
			br.Discard(len(line))
			f.bytes += int64(len(line))
			f.lines++
			c.part.mark = f.bytes
			continue
		}
		base, ok := f.split(rec)
		if !ok {
			return false, nil
		}
		fields := f.strings(base) // before the buffer moves on
		br.Discard(len(line))
		f.bytes += int64(len(line))
		f.lines++
		c.line, c.part.mark = f.lines, f.bytes
		if len(fields) != f.n {
			if err := c.part.bad(c.line, off, csv.ErrFieldCount); err != nil {
				return true, err
			}
			continue
		}
		if err := fn(fields, off, true); err != nil {
			return true, err
		}
	}
}

// split finds the fields of a record of one line, as encoding/csv reads
// them: a field is the text between delimiters, or a quoted field, whose
// quotes are dropped and whose doubled quotes are single. It returns the
// fields' text, each field followed by one delimiter byte but the last,
// and their ends in f.ends: rec itself if no field is quoted, else f.buf.
// It reports false for a record that encoding/csv must read: one with a
// quoted field that does not end on this line (it holds a newline) or is
// followed by other than the delimiter, or with a quote inside a field
// that is not quoted (encoding/csv reports those).
//
// One pass over the record finds the delimiters and quotes, eight bytes
// at a time: a call to bytes.IndexByte per field cost more than that on
// records of short fields.
func (f *fastCSV) split(rec []byte) ([]byte, bool) {
	ends, comma := f.ends[:0], f.comma
	cm, qm := ones*uint64(comma), ones*uint64('"')
	i := 0
	for {
		for i+8 <= len(rec) {
			w := binary.LittleEndian.Uint64(rec[i:])
			if m := zeroBytes(w^cm) | zeroBytes(w^qm); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(rec) && rec[i] != comma && rec[i] != '"' {
			i++
		}
		if i == len(rec) {
			break
		}
		if rec[i] == '"' {
			f.ends = ends
			return f.splitQuoted(rec, i)
		}
		ends = append(ends, i)
		i++
	}
	f.ends = append(ends, len(rec))
	return rec, true
}

// ones has a 1 in each byte.
const ones = 0x0101010101010101

// zeroBytes has the high bit of its lowest zero byte set, and no set bit
// below it: the bits above may be wrong, so only the lowest counts.
func zeroBytes(w uint64) uint64 { return (w - ones) &^ w & (ones << 7) }

// splitQuoted is split from the first quote, at rec[q], on: it copies
// the record into f.buf as it undoes the quoting.
func (f *fastCSV) splitQuoted(rec []byte, q int) ([]byte, bool) {
	start := 0 // of the field the quote is in
	if n := len(f.ends); n > 0 {
		start = f.ends[n-1] + 1
	}
	if q != start {
		return nil, false // a quote inside a field that is not quoted
	}
	buf, ends, comma := append(f.buf[:0], rec[:start]...), f.ends, f.comma
	for i := start; ; {
		if i < len(rec) && rec[i] == '"' {
			for i++; ; {
				j := bytes.IndexByte(rec[i:], '"')
				if j < 0 {
					return nil, false // the field goes on past this line
				}
				buf = append(buf, rec[i:i+j]...)
				i += j + 1
				if i < len(rec) && rec[i] == '"' {
					buf = append(buf, '"')
					i++
					continue
				}
				break
			}
			ends = append(ends, len(buf))
			if i == len(rec) {
				f.buf, f.ends = buf, ends
				return buf, true
			}
			if rec[i] != comma {
				return nil, false
			}
			buf = append(buf, comma)
			i++
			continue
		}
		j := i
		for ; j < len(rec) && rec[j] != comma; j++ {
			if rec[j] == '"' {
				return nil, false
			}
		}
		buf = append(buf, rec[i:j]...)
		ends = append(ends, len(buf))
		if j == len(rec) {
			f.buf, f.ends = buf, ends
			return buf, true
		}
		buf = append(buf, comma)
		i = j + 1
	}
}

// strings returns the fields that split found in base: strings that
// point into base, valid until the next record is read.
func (f *fastCSV) strings(base []byte) []string {
	s := unsafe.String(unsafe.SliceData(base), len(base))
	fields, start := f.fields[:0], 0
	for _, end := range f.ends {
		fields = append(fields, s[start:end])
		start = end + 1 // past the delimiter
	}
	f.fields = fields
	return fields
}

// peekLine returns the next line of br, with its '\n', without consuming
// it, or at the end of the input what is left (eof true; empty at the
// very end). The error is bufio.ErrBufferFull for a line longer than the
// buffer, or the reader's.
func peekLine(br *bufio.Reader) (line []byte, eof bool, err error) {
	if br.Buffered() == 0 {
		if _, err := br.Peek(1); err != nil {
			if err == io.EOF {
				return nil, true, nil
			}
			return nil, false, err
		}
	}
	b, _ := br.Peek(br.Buffered())
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1], false, nil
	}
	b, err = br.Peek(br.Size()) // fill the buffer, or read to the end
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1], false, nil
	}
	switch err {
	case io.EOF:
		return b, true, nil
	case nil:
		return nil, false, bufio.ErrBufferFull
	}
	return nil, false, err
}
