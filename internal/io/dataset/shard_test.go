package dataset

import (
	"fmt"
	"slices"
	"testing"
)

// rowsOf expands fragments into the rows they read, in order: "path:row".
func rowsOf(frags []Fragment) []string {
	var out []string
	for _, f := range frags {
		for i := range f.Rows() {
			out = append(out, fmt.Sprintf("%s:%d", f.Path, f.FirstRow+i))
		}
	}
	return out
}

// TestShardUnionIsThePlan: the ranks' pieces are disjoint, numbered apart
// and in increasing order on each rank, and merged by partition number
// they read exactly the rows of the one-rank plan, in its order. With row
// ranges the ranks' shares differ by at most one row.
func TestShardUnionIsThePlan(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	for _, w := range []int{0, -1, 3} {
		for _, mode := range []string{"groups", "rows", "whole"} {
			cfg := Config{WholeFiles: mode == "whole", RowRanges: mode == "rows", MaxRows: 0, Window: w, Seed: 11, Epochs: 2}
			whole := collectAll(t, mustPlan(t, ds, cfg).Fragments(ctx, Position{}))
			for world := 1; world <= 7; world++ {
				var union []Fragment
				seen := make(map[int64]int)
				perRank := make([]int64, world)
				for rank := range world {
					rc := cfg
					rc.Rank, rc.World = rank, world
					frags := collectAll(t, mustPlan(t, ds, rc).Fragments(ctx, Position{}))
					for i, f := range frags {
						if r, dup := seen[f.Part]; dup {
							t.Fatalf("window %d, %s: partition %d on ranks %d and %d of %d", w, mode, f.Part, r, rank, world)
						}
						seen[f.Part] = rank
						if i > 0 && f.Part <= frags[i-1].Part {
							t.Fatalf("window %d, %s, rank %d/%d: partition %d after %d", w, mode, rank, world, f.Part, frags[i-1].Part)
						}
						if f.Epoch == 0 {
							perRank[rank] += f.Rows()
						}
					}
					union = append(union, frags...)
				}
				slices.SortFunc(union, func(a, b Fragment) int { return int(a.Part - b.Part) })
				if !slices.Equal(rowsOf(union), rowsOf(whole)) {
					t.Fatalf("window %d, %s, world %d: the union of the ranks reads other rows than the plan", w, mode, world)
				}
				if world == 1 && !slices.Equal(union, whole) {
					t.Fatalf("window %d, %s: one rank's fragments differ from the plan's", w, mode)
				}
				if mode == "rows" && slices.Max(perRank)-slices.Min(perRank) > 1 {
					t.Fatalf("window %d, world %d: rows per rank %v differ by more than one", w, world, perRank)
				}
			}
		}
	}
}

// TestShardResumesAtAPiece: a rank's plan started at the position of one
// of its pieces yields the rest of its pieces.
func TestShardResumesAtAPiece(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	cfg := Config{RowRanges: true, Window: -1, Seed: 3, Epochs: 2, Rank: 2, World: 3}
	all := collectAll(t, mustPlan(t, ds, cfg).Fragments(ctx, Position{}))
	for i, f := range all {
		rest := collectAll(t, mustPlan(t, ds, cfg).Fragments(ctx, f.Position()))
		if !slices.Equal(rest, all[i:]) {
			t.Fatalf("from piece %d (%+v): %d pieces, want %d", i, f.Position(), len(rest), len(all)-i)
		}
	}
}

// TestDivideWholeFragmentsBySize: fragments that cannot be cut go to
// ranks by row count, not by number: one large and many small files on
// three ranks.
func TestDivideWholeFragmentsBySize(t *testing.T) {
	frags := []Fragment{{To: 900}}
	for range 30 {
		frags = append(frags, Fragment{To: 60})
	}
	load := make([]int64, 3)
	for _, pc := range divide(frags, 3, false) {
		load[pc.rank] += pc.f.Rows()
	}
	if !slices.Equal(load, []int64{900, 900, 900}) {
		t.Fatalf("rows per rank %v, want 900 each", load)
	}
}
