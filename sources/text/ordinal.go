package text

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/rowflow/rowflow/internal/io/codec"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/io/objstore"
)

// ordinalBlock is the size of the blocks of a file (of its decompressed
// bytes) that the ordinals of its records count lines in: the record that
// starts at byte b, in block k = b/ordinalBlock, has the ordinal
// k·ordinalBlock + n, n being the newlines in the bytes from
// k·ordinalBlock to b.
//
// The ordinals of the records of one block are distinct and increase by
// one a line, since every record ends at a newline and n ≤ b -
// k·ordinalBlock < ordinalBlock; the blocks' ordinals do not overlap. So a
// file's ordinals increase from record to record, mostly by one, and jump
// once a block: a lineage column of them (package shards) costs a few
// bits a block, where byte offsets would cost the bits of the lines'
// lengths on every row. A range of the file computes its records'
// ordinals from its own bytes and at most one block before it; numbering
// records by line would need all the lines before it.
const ordinalBlock = 64 << 10

// blockStart returns the offset of the block that holds byte b.
func blockStart(b int64) int64 { return b / ordinalBlock * ordinalBlock }

// lineCounter counts the newlines of a part's stream as the part reads it,
// from the start of the block the part starts in, and notes how many came
// before each block start it passes: what a record's ordinal needs. It
// keeps the notes of the blocks from the one where the record being read
// starts on, so that a stream of blank lines, which gives no record, does
// not make it hold a note per block.
type lineCounter struct {
	r     io.Reader
	pos   int64   // the stream offset of the next byte
	lines int64   // the newlines before pos, from the counter's first byte
	block int64   // the block of marks[0]
	marks []int64 // marks[i]: lines at the start of block block+i
	// start is lines at the part's start.
	start int64
	// reading returns the stream offset of the record being read, before
	// which no record is asked for; nil keeps every note.
	reading func() int64
}

// newLineCounter returns a counter of r, whose first byte is at offset
// from: the start of a block.
func newLineCounter(r io.Reader, from int64) *lineCounter {
	return &lineCounter{r: r, pos: from, block: from / ordinalBlock, marks: []int64{0}}
}

func (c *lineCounter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.count(b[:n])
	return n, err
}

// count counts the newlines of b, the bytes at pos, and notes the count at
// each block start after pos that b reaches.
func (c *lineCounter) count(b []byte) {
	for len(b) > 0 {
		next := blockStart(c.pos) + ordinalBlock
		k := min(int64(len(b)), next-c.pos)
		c.lines += int64(bytes.Count(b[:k], newline))
		c.pos += k
		b = b[k:]
		if c.pos == next {
			if c.reading != nil {
				c.trim(c.reading() / ordinalBlock)
			}
			c.marks = append(c.marks, c.lines)
		}
	}
}

// trim drops the notes of the blocks before block k, keeping at least the
// last.
func (c *lineCounter) trim(k int64) {
	if d := min(k-c.block, int64(len(c.marks)-1)); d > 0 {
		c.marks = append(c.marks[:0], c.marks[d:]...)
		c.block += d
	}
}

var newline = []byte{'\n'}

// skip reads and counts the n bytes before the part's start.
func (c *lineCounter) skip(n int64) error {
	_, err := io.CopyN(io.Discard, c, n)
	c.start = c.lines
	return err
}

// ordinal returns the ordinal of the record that starts at offset b of the
// stream, with lines newlines between the part's start and b. The part
// asks in the order of its records, from the bytes it has read: b < pos.
func (c *lineCounter) ordinal(b, lines int64) uint64 {
	k := b / ordinalBlock
	c.trim(k)
	return uint64(k*ordinalBlock + c.start + lines - c.marks[0])
}

// recordAt returns the byte offset of the record start that has the
// ordinal x in the stream r (a file's decompressed bytes), whose first
// byte is at offset from, at or before the record's block; ok is false if
// no record can start there. afterBOM says that a record at the start of
// the stream starts after a byte order mark there (a CSV record; a JSON
// line starts at the mark).
func recordAt(ctx context.Context, r io.Reader, from int64, x uint64, afterBOM bool) (int64, bool, error) {
	block := blockStart(int64(x))
	n := int64(x) - block // newlines from the block's start to the record
	br := bufio.NewReaderSize(r, 64<<10)
	if _, _, err := discardCounting(ctx, br, block-from); err != nil {
		return 0, false, err
	}
	at := block
	if at == 0 && afterBOM {
		at = skipBOM(br)
	}
	for ; n > 0; n-- {
		line, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			at += int64(len(line))
			line, err = br.ReadSlice('\n')
		}
		if err != nil {
			return 0, false, err
		}
		at += int64(len(line))
		if at-block >= ordinalBlock {
			return 0, false, nil
		}
	}
	return at, true, nil
}

// locateByte returns the byte offset of the record of file with the
// ordinal x, as "byte b", reading the record's block of the file (of a
// compressed file, the stream up to it); quoted says the file is CSV.
func (c *textConfig) locateByte(ctx context.Context, file dataset.File, x uint64, quoted bool) (string, bool) {
	fh, err := objstore.Open(ctx, file.Path, objstore.Options{})
	if err != nil {
		return "", false
	}
	defer fh.Close()
	from := min(blockStart(int64(x)), fh.Size())
	var r io.Reader = io.NewSectionReader(fh, from, fh.Size()-from)
	if cd := c.codecOf(file); cd != codec.None {
		from = 0
		d, err := cd.NewReader(io.NewSectionReader(fh, 0, fh.Size()))
		if err != nil {
			return "", false
		}
		defer d.Close()
		r = d
	}
	b, ok, err := recordAt(ctx, r, from, x, quoted)
	if err != nil || !ok {
		return "", false
	}
	return fmt.Sprintf("byte %d", b), true
}
