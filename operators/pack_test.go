package operators_test

import (
	"fmt"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// longTokens is tokens with a few sequences longer than 10.
func longTokens(i int64) []int32 {
	if i%17 == 5 {
		t := make([]int32, 10+i%23)
		for k := range t {
			t[k] = int32(i*100 + int64(k) + 1)
		}
		return t
	}
	return tokens(i)
}

func TestPack(t *testing.T) {
	const rows, L = 1500, 10
	src := func() flow.Source[[]int32] {
		return sources.Generate(rows, func(i int64) ([]int32, error) { return longTokens(i), nil },
			sources.Named(srcName), sources.PartitionSize(40), sources.ChunkSize(16))
	}
	for _, window := range []int{1, 4, 16} {
		for _, policy := range []operators.Overlong{operators.SplitOverlong, operators.DropOverlong} {
			t.Run(fmt.Sprintf("window %d policy %d", window, policy), func(t *testing.T) {
				build := func(p int) *flow.Pipeline {
					return flow.From(src()).Parallel(p).
						Via(operators.Pack(L, int32(-1), operators.Window(window), operators.OverlongPolicy(policy)))
				}
				verify[operators.Packed[int32]](t, build)
				ref := collect[operators.Packed[int32]](t, build(1))
				for _, n := range []int{2, 4, 8} {
					sameItems(t, fmt.Sprintf("parallelism %d", n), collect[operators.Packed[int32]](t, build(n)), ref)
				}
				checkPacked(t, ref, rows, L, window, policy)
			})
		}
	}
}

// checkPacked checks every property of packed rows: shape, segments and
// positions, each kept token exactly once and in order within its
// sequence, IDs, and how far the window let sequences move.
func checkPacked(t *testing.T, items []flow.Item[operators.Packed[int32]], rows int64, L, window int, policy operators.Overlong) {
	t.Helper()
	next := map[rowid.ID]int32{} // next offset expected per sequence
	ids := map[rowid.ID]bool{}
	firstRow := map[rowid.ID]int{}
	for r, it := range items {
		p := it.Value
		if len(p.Tokens) != L || len(p.Segments) != L || len(p.Positions) != L {
			t.Fatalf("row %d: lengths %d %d %d, want %d", r, len(p.Tokens), len(p.Segments), len(p.Positions), L)
		}
		if ids[it.ID] {
			t.Fatalf("row %d: ID %v seen before", r, it.ID)
		}
		ids[it.ID] = true
		for j := range L {
			seg := p.Segments[j]
			if seg == 0 {
				if p.Tokens[j] != -1 || p.Positions[j] != 0 || (j+1 < L && p.Segments[j+1] != 0) {
					t.Fatalf("row %d token %d: padding %d, position %d, or padding not at the end", r, j, p.Tokens[j], p.Positions[j])
				}
				continue
			}
			m := p.Members[seg-1]
			if p.Positions[j] == 0 {
				if p.Offsets[seg-1] != next[m] {
					t.Fatalf("row %d: segment %d of %v starts at %d, want %d", r, seg, m, p.Offsets[seg-1], next[m])
				}
				if _, ok := firstRow[m]; !ok {
					firstRow[m] = r
				}
			}
			next[m]++
		}
	}
	for i := range rows {
		tok := longTokens(i)
		want := int32(len(tok))
		if len(tok) > L && policy == operators.DropOverlong {
			want = 0
		}
		if got := next[sourceID(i)]; got != want {
			t.Fatalf("row %d: %d tokens packed, want %d", i, got, want)
		}
	}
	// Window 1 packs sequences shorter than a row in stream order.
	if window == 1 {
		prev := -1
		for i := range rows {
			if r, ok := firstRow[sourceID(i)]; ok && len(longTokens(i)) < L {
				if r < prev {
					t.Fatalf("window 1: row %d packed before an earlier row", i)
				}
				prev = r
			}
		}
	}
}
