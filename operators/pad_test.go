package operators_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// tokens gives row i a token list of 0 to 12 values.
func tokens(i int64) []int32 {
	n := int((i * 7919) % 13)
	t := make([]int32, n)
	for k := range t {
		t[k] = int32(i*100 + int64(k) + 1)
	}
	return t
}

func tokenSource(rows int64, part int) flow.Source[[]int32] {
	return sources.Generate(rows, func(i int64) ([]int32, error) { return tokens(i), nil },
		sources.Named(srcName), sources.PartitionItems(part), sources.ChunkSize(16))
}

func TestPad(t *testing.T) {
	const rows, size = 500, 8
	for _, c := range []struct {
		name        string
		opts        []operators.PadOption
		left        bool
		mult, width int
	}{
		{name: "right", mult: 1},
		{name: "left multiple 4", opts: []operators.PadOption{operators.PadLeft(), operators.PadMultiple(4)}, left: true, mult: 4},
		{name: "length 16", opts: []operators.PadOption{operators.PadLength(16)}, mult: 1, width: 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want []flow.Item[operators.Padded[int32]]
			for lo := int64(0); lo < rows; lo += size {
				n := min(size, rows-lo)
				w := c.width
				for i := lo; i < lo+n && c.width == 0; i++ {
					w = max(w, len(tokens(i)))
				}
				w = (w + c.mult - 1) / c.mult * c.mult
				b := operators.Padded[int32]{Shape: [2]int{size, w}}
				for i := lo; i < lo+size; i++ {
					tok := tokens(i)
					if i >= rows {
						tok = nil
					}
					line := slices.Repeat([]int32{-1}, w)
					mask := make([]bool, w)
					at := 0
					if c.left {
						at = w - len(tok)
					}
					copy(line[at:], tok)
					for j := range tok {
						mask[at+j] = true
					}
					b.Data, b.Mask = append(b.Data, line...), append(b.Mask, mask...)
					b.Lengths = append(b.Lengths, int32(len(tok)))
					id := rowid.ID{}
					if i < rows {
						id = sourceID(i)
					}
					b.IDs = append(b.IDs, id)
				}
				want = append(want, flow.Item[operators.Padded[int32]]{Part: int64(len(want) / 16), ID: foldIDs("batch", b.IDs[:n]), Value: b})
			}
			shapeVariants(t, want, func(p int) *flow.Pipeline {
				return flow.From(tokenSource(rows, 30)).Parallel(p).
					Via(operators.Batch[[]int32](size, operators.PadRemainder())).
					Via(operators.Pad(int32(-1), c.opts...)).Parallel(p)
			})
		})
	}
}

func TestPadTooLong(t *testing.T) {
	p := flow.From(tokenSource(100, 30)).Via(operators.Batch[[]int32](4)).Via(operators.Pad(int32(0), operators.PadLength(4)))
	var err error
	n := 0
	for _, err = range flow.Items[operators.Padded[int32]](t.Context(), p) {
		n++
	}
	// Row 1 has 7919 % 13 = 2 tokens, row 2 has 4, row 3 has 6.
	if err == nil || !strings.Contains(err.Error(), sourceID(3).String()) || !strings.Contains(err.Error(), "PadLength(4)") {
		t.Errorf("error %v: want one naming row 3 and PadLength(4)", err)
	}
	if bad := operators.Pad(int32(0), operators.PadMultiple(0)); flow.From(tokenSource(10, 5)).Via(operators.Batch[[]int32](2)).Via(bad).Err() == nil {
		for _, err := range flow.Items[operators.Padded[int32]](t.Context(), flow.From(tokenSource(10, 5)).Via(operators.Batch[[]int32](2)).Via(bad)) {
			if err == nil {
				t.Fatal("PadMultiple(0): the run gave an item")
			}
		}
	}
}
