package operators_test

import (
	"fmt"
	"slices"
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

// packSerial is the reference for Pack(L, pad, Window(window), policy's
// option, PartitionItems(per)) named name over the sequences seqs whose
// row IDs are ids, from Pack's doc:
// empty sequences are skipped; under DropOverlong a sequence longer than
// L is dropped whole; otherwise a sequence is cut into pieces of L tokens
// (one piece if it is not longer than L), piece k of a split sequence
// having the ID forkID(id, k) and a sequence not split its own ID. A piece
// of exactly L tokens is a row of its own at once; a shorter piece enters
// the window. The row being filled takes the first piece of the window
// that fits, or, when none does, is emitted and a new row starts with the
// oldest piece. A row's ID folds its pieces' IDs from name, Members
// holds the sequences' IDs, and partitions hold per rows.
//
// Taken from pack.go where the doc does not say:
//   - The window is processed one piece at a time, when a piece brings it
//     to window pieces: the first that fits (or the oldest) leaves it for
//     the row, so it then holds window-1 pieces until the next arrives.
//     At the end the pieces left are placed the same way until the window
//     is empty, and the last row is emitted.
//   - A row is emitted as soon as it is exactly full, not when the next
//     piece does not fit.
//   - A whole row (a piece of L tokens) is emitted before the row being
//     filled, which stays as it is, so it may come before rows holding
//     earlier sequences.
//   - Positions count from 0 within each segment (a piece), not from the
//     start of the sequence the piece was cut from; Offsets gives that.
//   - DropOverlong drops the whole sequence, not only its shorter last
//     piece (as Pack's doc and DropOverlong's say).
func packSerial(seqs [][]int32, ids []rowid.ID, L int, pad int32, window int, policy overlong, name string, per int) []flow.Item[operators.Packed[int32]] {
	type piece struct {
		toks   []int32
		member rowid.ID // the sequence's ID
		id     rowid.ID // the piece's ID
		offset int32
	}
	var items []flow.Item[operators.Packed[int32]]
	emit := func(segs []piece) {
		p := operators.Packed[int32]{Segments: make([]int32, L), Positions: make([]int32, L)}
		segIDs := make([]rowid.ID, 0, len(segs))
		for s, pc := range segs {
			for j, tok := range pc.toks {
				p.Segments[len(p.Tokens)] = int32(s + 1)
				p.Positions[len(p.Tokens)] = int32(j)
				p.Tokens = append(p.Tokens, tok)
			}
			p.Members = append(p.Members, pc.member)
			p.Offsets = append(p.Offsets, pc.offset)
			segIDs = append(segIDs, pc.id)
		}
		for len(p.Tokens) < L {
			p.Tokens = append(p.Tokens, pad)
		}
		items = append(items, flow.Item[operators.Packed[int32]]{Part: int64(len(items) / per), ID: foldIDs(name, segIDs), Value: p})
	}
	var win, row []piece
	used := 0
	place := func() {
		i := slices.IndexFunc(win, func(pc piece) bool { return used+len(pc.toks) <= L })
		if i < 0 {
			emit(row)
			row, used, i = nil, 0, 0
		}
		row, used = append(row, win[i]), used+len(win[i].toks)
		win = slices.Delete(win, i, i+1)
		if used == L {
			emit(row)
			row, used = nil, 0
		}
	}
	for i, tok := range seqs {
		id := ids[i]
		if len(tok) > L && policy == dropOverlong {
			continue
		}
		for k := 0; k*L < len(tok); k++ {
			pc := piece{toks: tok[k*L : min((k+1)*L, len(tok))], member: id, id: id, offset: int32(k * L)}
			if len(tok) > L {
				pc.id = forkID(id, k)
			}
			if len(pc.toks) == L {
				emit([]piece{pc})
				continue
			}
			win = append(win, pc)
			if len(win) == window {
				place()
			}
		}
	}
	for len(win) > 0 {
		place()
	}
	if len(row) > 0 {
		emit(row)
	}
	return items
}

func TestPack(t *testing.T) {
	const rows, L = 1500, 10
	src := func() flow.Source[[]int32] {
		return sources.Generate(rows, func(i int64) ([]int32, error) { return longTokens(i), nil },
			sources.Named(srcName), sources.PartitionItems(40), sources.ChunkSize(16))
	}
	seqs, ids := make([][]int32, rows), make([]rowid.ID, rows)
	for i := range seqs {
		seqs[i], ids[i] = longTokens(int64(i)), sourceID(int64(i))
	}
	for _, window := range []int{1, 4, 16} {
		for _, policy := range []overlong{splitOverlong, dropOverlong} {
			t.Run(fmt.Sprintf("window %d policy %d", window, policy), func(t *testing.T) {
				build := func(p int) *flow.Pipeline {
					return flow.From(src()).Parallel(p).
						Via(operators.Pack(L, int32(-1), withOverlong(policy, operators.Window(window))...))
				}
				// Every run, serial or parallel, gives the reference's items:
				// values, IDs and partitions.
				want := packSerial(seqs, ids, L, -1, window, policy, "pack", 16)
				shapeVariants(t, want, build)
				// The reference, equal to every run, has every property of
				// packed rows.
				checkPacked(t, want, seqs, ids, L, -1, window, policy)
			})
		}
	}
}

// checkPacked checks every property of the rows that Pack(L, pad,
// Window(window), policy's option) made of one pass over seqs,
// whose row IDs are ids: shape; segments numbered from 1 in order,
// padding (pad, segment 0, position 0) only at the end; positions
// counting from 0 within each segment; each kept token exactly once, in
// its place in its sequence (Members and Offsets say which sequence and
// where); distinct row IDs; and, for window 1, sequences shorter than a
// row in stream order.
func checkPacked(t *testing.T, items []flow.Item[operators.Packed[int32]], seqs [][]int32, ids []rowid.ID, L int, pad int32, window int, policy overlong) {
	t.Helper()
	byID := make(map[rowid.ID][]int32, len(seqs))
	for i, id := range ids {
		byID[id] = seqs[i]
	}
	next := map[rowid.ID]int32{} // next offset expected per sequence
	seen := map[rowid.ID]bool{}
	firstRow := map[rowid.ID]int{}
	for r, it := range items {
		p := it.Value
		if len(p.Tokens) != L || len(p.Segments) != L || len(p.Positions) != L || len(p.Offsets) != len(p.Members) {
			t.Fatalf("row %d: lengths %d %d %d, want %d; %d offsets for %d members", r, len(p.Tokens), len(p.Segments), len(p.Positions), L, len(p.Offsets), len(p.Members))
		}
		if seen[it.ID] {
			t.Fatalf("row %d: ID %v seen before", r, it.ID)
		}
		seen[it.ID] = true
		for j := range L {
			seg := p.Segments[j]
			if seg == 0 {
				if p.Tokens[j] != pad || p.Positions[j] != 0 || (j+1 < L && p.Segments[j+1] != 0) {
					t.Fatalf("row %d token %d: padding %d, position %d, or padding not at the end", r, j, p.Tokens[j], p.Positions[j])
				}
				continue
			}
			prev, pos := int32(0), int32(0)
			if j > 0 {
				prev = p.Segments[j-1]
			}
			if seg != prev {
				if seg != prev+1 || int(seg) > len(p.Members) {
					t.Fatalf("row %d token %d: segment %d after %d, of %d members", r, j, seg, prev, len(p.Members))
				}
			} else {
				pos = p.Positions[j-1] + 1
			}
			if p.Positions[j] != pos {
				t.Fatalf("row %d token %d: position %d, want %d", r, j, p.Positions[j], pos)
			}
			m := p.Members[seg-1]
			tok, ok := byID[m]
			if !ok {
				t.Fatalf("row %d: member %v is no input sequence", r, m)
			}
			if pos == 0 {
				if p.Offsets[seg-1] != next[m] {
					t.Fatalf("row %d: segment %d of %v starts at %d, want %d", r, seg, m, p.Offsets[seg-1], next[m])
				}
				if _, ok := firstRow[m]; !ok {
					firstRow[m] = r
				}
			}
			if at := p.Offsets[seg-1] + pos; int(at) >= len(tok) || p.Tokens[j] != tok[at] {
				t.Fatalf("row %d token %d: %d, want token %d of %v (%v)", r, j, p.Tokens[j], at, m, tok)
			}
			next[m]++
		}
	}
	for i, tok := range seqs {
		want := int32(len(tok))
		if len(tok) > L && policy == dropOverlong {
			want = 0
		}
		if got := next[ids[i]]; got != want {
			t.Fatalf("sequence %d: %d tokens packed, want %d", i, got, want)
		}
	}
	// Window 1 packs sequences shorter than a row in stream order.
	if window == 1 {
		prev := -1
		for i, tok := range seqs {
			if r, ok := firstRow[ids[i]]; ok && len(tok) < L {
				if r < prev {
					t.Fatalf("window 1: sequence %d packed before an earlier one", i)
				}
				prev = r
			}
		}
	}
}
