package pqcol

import (
	"errors"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// TestRepetitionLevelErrors reads list columns whose levels continue a
// list that the entry before left null or empty (DuckDB writes such levels
// for null fixed-size arrays): the error names the column, the page, the
// row and the levels expected.
func TestRepetitionLevelErrors(t *testing.T) {
	col := listColumn(format.Int32)
	page := func(rep, def []byte) handPage {
		values := plainInt32(countEqual(def, 3))
		return pageV1(len(rep), format.Plain, levelsV1Bytes(rep, 1, packed256), levelsV1Bytes(def, 2, packed256), values)
	}
	cases := []struct {
		name  string
		rows  int64
		pages []handPage
		want  []string
	}{
		{"after a null list", 2, []handPage{page([]byte{0, 1, 0, 1}, []byte{3, 3, 0, 3})},
			[]string{`column "l.list.element"`, "page 0 at offset 4", "level entry 3 of the page (row 1)",
				"repetition level 1", "(definition level 0)", "definition level 2 or more"}},
		{"after an empty list, on the next page", 2, []handPage{page([]byte{0, 1, 0}, []byte{3, 2, 1}), page([]byte{1}, []byte{3})},
			[]string{"page 1 at offset", "level entry 0 of the page (row 1)", "(definition level 1)"}},
	}
	for _, c := range cases {
		n := 0
		for _, p := range c.pages {
			n += int(p.header.DataPageHeader.V.NumValues)
		}
		_, err := readHand(t, "levels.parquet", handFile(t, col, c.rows, int64(n), c.pages, nil))
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: got %v, want ErrCorrupt", c.name, err)
		}
		t.Log(err)
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the error does not say %q: %v", c.name, w, err)
			}
		}
	}
	// The same levels with the list given an element read.
	data := handFile(t, col, 2, 4, []handPage{page([]byte{0, 1, 0, 1}, []byte{3, 3, 2, 3})}, nil)
	if c, err := readHand(t, "levels.parquet", data); err != nil || c.NumRows != 2 {
		t.Fatalf("valid levels: %v", err)
	}
}

func plainInt32(n int) []byte {
	out := make([]byte, 4*n)
	for i := range n {
		out[4*i] = byte(i)
	}
	return out
}
