package pqcol

import (
	"errors"
	"fmt"
	"math/rand/v2"
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

// TestCheckRepetitionWords compares the check of repetition levels, word
// at a time or by the values below the deepest list's level, with an
// entry-at-a-time one, on random levels of columns nested one to three
// lists deep, valid and with one offending entry anywhere: short pages and
// pages of thousands of entries, where null and empty lists are common or
// rare (then found by value).
func TestCheckRepetitionWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 7))
	for _, lists := range [][]int{{1}, {2}, {1, 3}, {2, 4, 5}, {2, 3, 4, 5, 6}} {
		maxDef := lists[len(lists)-1] + 1
		for k := range 3000 {
			n, rare := 1+rng.IntN(70), 0
			if k%3 == 0 {
				n, rare = 256+rng.IntN(4000), 1+rng.IntN(200)
			}
			rep, def := make([]byte, n), make([]byte, n)
			for i := range n {
				def[i] = byte(rng.IntN(maxDef + 1))
				if rare > 0 && rng.IntN(rare) > 0 {
					def[i] = byte(maxDef - rng.IntN(2))
				}
				if i == 0 {
					continue
				}
				// A valid level: continue a list the previous entry gave an element.
				for r := len(lists); r > 0; r-- {
					if int(def[i-1]) >= lists[r-1] && rng.IntN(3) > 0 {
						rep[i] = byte(r)
						break
					}
				}
			}
			if rng.IntN(2) == 0 && n > 1 {
				i := 1 + rng.IntN(n-1)
				rep[i], def[i-1] = byte(len(lists)), byte(rng.IntN(lists[len(lists)-1]))
			}
			want := -1
			for i := 1; i < n && want < 0; i++ {
				if r := rep[i]; r > 0 && int(def[i-1]) < lists[r-1] {
					want = i
				}
			}
			d := &decoder{leaf: &Leaf{MaxRepetitionLevel: len(lists), MaxDefinitionLevel: maxDef, RepeatedLevels: lists},
				rep: rep, def: def, lastDef: maxDef}
			err := d.checkRepetition(n)
			got := -1
			if err != nil {
				fmt.Sscanf(err.Error()[strings.Index(err.Error(), "level entry"):], "level entry %d", &got)
			}
			if got != want {
				t.Fatalf("lists %v, rep %v, def %v: offending entry %d, want %d (%v)", lists, rep, def, got, want, err)
			}
		}
	}
}
