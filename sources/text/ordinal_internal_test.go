package text

import (
	"bytes"
	"io"
	"testing"
)

// TestLineCounterKeepsFewMarks: reading a stream of blank lines, which
// gives no record, the counter keeps the notes of the blocks from the one
// being read on, not one for every block it passed; and a record after
// them gets its ordinal.
func TestLineCounterKeepsFewMarks(t *testing.T) {
	const n = 64 << 20
	data := append(bytes.Repeat([]byte{'\n'}, n), "x\n"...)
	c := newLineCounter(bytes.NewReader(data), 0)
	c.reading = func() int64 { return c.pos } // a reader that keeps up
	buf := make([]byte, 64<<10)
	most := 0
	for {
		_, err := c.Read(buf)
		most = max(most, len(c.marks))
		if err == io.EOF {
			break
		}
	}
	if most > 2 {
		t.Errorf("%d notes held at once over %d blocks of blank lines, want at most 2", most, n/ordinalBlock)
	}
	// The record "x" starts at byte n, after n newlines; in block
	// n/ordinalBlock, with none before it in its block.
	if got, want := c.ordinal(n, n), uint64(n); got != want {
		t.Errorf("the record after the blank lines has ordinal %d, want %d", got, want)
	}
}
