package sources

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"unicode/utf8"
	"unsafe"
)

// fastCSV is the CSV reader's fast path. encoding/csv copies each record
// into a buffer of its own, then into one newly allocated string that all
// its fields share. The fast path reads records that fit on one line in
// place: it splits the line in the part's read buffer (quoted fields too,
// with their quotes dropped and doubled quotes undone, in a buffer of its
// own) and hands the fields on as strings that point there, or, for
// records, as slices of one string, so that a struct field of a number or
// a bool costs no allocation. It takes records up to the first that needs
// more: a quoted field that spans lines or is malformed, a quote inside a
// field that is not quoted, a blank line, a line longer than the read
// buffer. From there encoding/csv reads the rest of the part, and its
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
	hdr    int64 // lines of the header, which encoding/csv read
	fields []string
	ends   []int  // where each field of the record ends in its text
	buf    []byte // the text of a record with quoted fields
	quoted bool   // the record has a quote: its fields' text is buf
}

// csvFastPath turns the fast path on; tests turn it off to compare the
// two readers.
var csvFastPath = true

// start sets up the fast path for records of n fields; hdrLines lines of
// the part were read already (the header).
func (f *fastCSV) start(comma rune, n int, hdrLines int64) {
	f.on = csvFastPath && n > 0 && comma < utf8.RuneSelf && comma != '"' && comma != '\r' && comma != '\n'
	f.comma, f.n, f.hdr = byte(comma), n, hdrLines
}

// eachFast calls fn with the records the fast path takes. It reports
// whether the part has ended; if not, encoding/csv goes on from the
// first record it did not take. encoding/csv's offset does not move
// while the fast path reads.
func (c *csvReader) eachFast(own bool, fn func(rec []string, off int64, borrowed bool) error) (bool, error) {
	f := &c.fast
	if !f.on {
		return false, nil
	}
	br, hdrOff := c.part.r, c.r.InputOffset()
	for {
		off := hdrOff + f.bytes
		line, eof, err := peekLine(br)
		switch {
		case err == bufio.ErrBufferFull:
			return false, nil // a line longer than the buffer
		case err != nil:
			return true, c.part.broken(c.line+1, off, err)
		case eof && len(line) == 0:
			return true, nil
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
			// encoding/csv skips blank lines, and a record after them
			// starts where reading it began: it reads them.
			return false, nil
		}
		base, ok := f.split(rec)
		if !ok {
			return false, nil
		}
		fields := f.strings(base, own) // before the buffer moves on
		br.Discard(len(line))
		f.bytes += int64(len(line))
		f.lines++
		c.line, c.part.mark = f.hdr+f.lines, hdrOff+f.bytes
		if len(fields) != f.n {
			if err := c.part.bad(c.line, off, csv.ErrFieldCount); err != nil {
				return true, err
			}
			continue
		}
		if err := fn(fields, off, !own); err != nil {
			return true, err
		}
	}
}

// split finds the fields of a record of one line, as encoding/csv reads
// them: a field is the text between delimiters, or a quoted field, whose
// quotes are dropped and whose doubled quotes are single. It returns the
// fields' text, their ends in f.ends: rec itself if no field is quoted,
// else f.buf. It reports false for a record that encoding/csv must read:
// one with a quoted field that does not end on this line (it holds a
// newline) or is followed by other than the delimiter, or with a quote
// inside a field that is not quoted (encoding/csv reports those).
func (f *fastCSV) split(rec []byte) ([]byte, bool) {
	f.ends = f.ends[:0]
	f.quoted = bytes.IndexByte(rec, '"') >= 0
	if !f.quoted {
		for i := 0; ; {
			j := bytes.IndexByte(rec[i:], f.comma)
			if j < 0 {
				f.ends = append(f.ends, len(rec))
				return rec, true
			}
			i += j
			f.ends = append(f.ends, i)
			i++
		}
	}
	f.buf = f.buf[:0]
	for i := 0; ; {
		if i < len(rec) && rec[i] == '"' {
			for i++; ; {
				j := bytes.IndexByte(rec[i:], '"')
				if j < 0 {
					return nil, false // the field goes on past this line
				}
				f.buf = append(f.buf, rec[i:i+j]...)
				i += j + 1
				if i < len(rec) && rec[i] == '"' {
					f.buf = append(f.buf, '"')
					i++
					continue
				}
				break
			}
			f.ends = append(f.ends, len(f.buf))
			if i == len(rec) {
				return f.buf, true
			}
			if rec[i] != f.comma {
				return nil, false
			}
			i++
			continue
		}
		j := bytes.IndexByte(rec[i:], f.comma)
		field := rec[i:]
		if j >= 0 {
			field = rec[i : i+j]
		}
		if bytes.IndexByte(field, '"') >= 0 {
			return nil, false
		}
		f.buf = append(f.buf, field...)
		f.ends = append(f.ends, len(f.buf))
		if j < 0 {
			return f.buf, true
		}
		i += j + 1
	}
}

// strings returns the fields that split found in base: with own, slices
// of one new string, as encoding/csv gives them; else strings that point
// into base, valid until the next record is read.
func (f *fastCSV) strings(base []byte, own bool) []string {
	var s string
	if own {
		s = string(base)
	} else {
		s = unsafe.String(unsafe.SliceData(base), len(base))
	}
	gap := 0 // 1 where base is the record, with a delimiter after each field
	if !f.quoted {
		gap = 1
	}
	fields, start := f.fields[:0], 0
	for _, end := range f.ends {
		fields = append(fields, s[start:end])
		start = end + gap
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
