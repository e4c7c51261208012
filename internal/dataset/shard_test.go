package dataset

import (
	"slices"
	"testing"
)

func TestShardUnionIsThePlan(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	for _, w := range []int{0, -1, 3} {
		for _, wholeFiles := range []bool{false, true} {
			cfg := Config{WholeFiles: wholeFiles, Window: w, Seed: 11, Epochs: 2}
			whole := collectAll(t, mustPlan(t, ds, cfg).Fragments(ctx, Position{}))
			for world := 1; world <= 5; world++ {
				var union []Fragment
				seen := make(map[int64]int)
				for rank := range world {
					c := &counter{}
					rc := cfg
					rc.Rank, rc.World, rc.Metadata = rank, world, c
					p := mustPlan(t, ds, rc)
					frags := collectAll(t, p.Fragments(ctx, Position{}))
					for _, f := range frags {
						if f.Index%int64(world) != int64(rank) {
							t.Errorf("window %d, rank %d/%d: got index %d", w, rank, world, f.Index)
						}
						if r, dup := seen[f.Part]; dup {
							t.Errorf("window %d: partition %d on ranks %d and %d of %d", w, f.Part, r, rank, world)
						}
						seen[f.Part] = rank
					}
					union = append(union, frags...)
				}
				// Merging the ranks by partition number gives the unsharded plan.
				slices.SortFunc(union, func(a, b Fragment) int { return int(a.Part - b.Part) })
				if !slices.Equal(union, whole) {
					t.Errorf("window %d, world %d: union of ranks differs from the plan", w, world)
				}
			}
		}
	}
}

// TestShardWholeFilesReadsOwnFootersOnly checks that with WholeFiles a rank
// reads the footers of its own files only.
func TestShardWholeFilesReadsOwnFootersOnly(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	c := &counter{}
	p := mustPlan(t, ds, Config{WholeFiles: true, Window: -1, Rank: 1, World: 3, Metadata: c})
	frags := collectAll(t, p.Fragments(ctx, Position{}))
	var mine []string
	for _, f := range frags {
		mine = append(mine, f.Path)
	}
	slices.Sort(mine)
	if got := c.files(); len(frags) != 6 || !slices.Equal(got, mine) {
		t.Errorf("read %q, want the rank's own files %q", got, mine)
	}
}
