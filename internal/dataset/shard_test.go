package dataset

import (
	"slices"
	"strings"
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
						if r, dup := seen[f.Batch]; dup {
							t.Errorf("window %d: batch %d on ranks %d and %d of %d", w, f.Batch, r, rank, world)
						}
						seen[f.Batch] = rank
					}
					union = append(union, frags...)
				}
				// Merging the ranks by batch number gives the unsharded plan.
				slices.SortFunc(union, func(a, b Fragment) int { return int(a.Batch - b.Batch) })
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

func TestRankFromEnv(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		completions int
		rank, world int
		err         string
	}{
		{name: "none", rank: 0, world: 1},
		{name: "torchrun", env: map[string]string{"RANK": "3", "WORLD_SIZE": "8"}, rank: 3, world: 8},
		{name: "empty is unset", env: map[string]string{"RANK": "", "WORLD_SIZE": ""}, rank: 0, world: 1},
		{name: "rank alone", env: map[string]string{"RANK": "3"}, err: "RANK and WORLD_SIZE must be set together"},
		{name: "world alone", env: map[string]string{"WORLD_SIZE": "3"}, err: "must be set together"},
		{name: "rank too large", env: map[string]string{"RANK": "8", "WORLD_SIZE": "8"}, err: "rank 8 of world 8"},
		{name: "negative rank", env: map[string]string{"RANK": "-1", "WORLD_SIZE": "8"}, err: "rank -1"},
		{name: "zero world", env: map[string]string{"RANK": "0", "WORLD_SIZE": "0"}, err: "world 0"},
		{name: "not a number", env: map[string]string{"RANK": "one", "WORLD_SIZE": "2"}, err: `RANK="one" is not an integer`},
		{name: "kubernetes", env: map[string]string{"JOB_COMPLETION_INDEX": "4"}, completions: 5, rank: 4, world: 5},
		{name: "kubernetes undeclared", env: map[string]string{"JOB_COMPLETION_INDEX": "4"}, err: "no completion count was declared"},
		{name: "kubernetes out of range", env: map[string]string{"JOB_COMPLETION_INDEX": "5"}, completions: 5, err: "rank 5 of world 5"},
		{name: "count without index", completions: 5, rank: 0, world: 1},
		{name: "slurm", env: map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, rank: 2, world: 4},
		{name: "slurm from 1", env: map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4",
			"SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"}, rank: 3, world: 4},
		{name: "slurm step", env: map[string]string{"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_COUNT": "8",
			"SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "14", "SLURM_ARRAY_TASK_STEP": "2"}, rank: 3, world: 8},
		{name: "slurm list", env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3",
			"SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_STEP": "1"}, err: "not a regular range"},
		{name: "slurm off step", env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "8",
			"SLURM_ARRAY_TASK_STEP": "2"}, err: "not a regular range"},
		{name: "slurm count alone", env: map[string]string{"SLURM_ARRAY_TASK_COUNT": "4"}, err: "must be set together"},
		{name: "slurm beyond count", env: map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4"}, err: "rank 4 of world 4"},
		{name: "agreeing conventions", env: map[string]string{"RANK": "1", "WORLD_SIZE": "2",
			"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"}, rank: 1, world: 2},
		{name: "disagreeing conventions", env: map[string]string{"RANK": "1", "WORLD_SIZE": "2", "JOB_COMPLETION_INDEX": "0"},
			completions: 2, err: "inconsistent environment: RANK/WORLD_SIZE gives rank 1 of 2, JOB_COMPLETION_INDEX gives rank 0 of 2"},
	}
	for _, tt := range tests {
		lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
		rank, world, err := RankFromEnv(lookup, tt.completions)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "dataset: ") {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case rank != tt.rank || world != tt.world:
			t.Errorf("%s: rank %d of %d, want %d of %d", tt.name, rank, world, tt.rank, tt.world)
		}
	}
}

func TestShardFromProcessEnv(t *testing.T) {
	t.Setenv("RANK", "2")
	t.Setenv("WORLD_SIZE", "5")
	rank, world, err := RankFromEnv(nil, 0)
	if err != nil || rank != 2 || world != 5 {
		t.Errorf("rank %d of %d, %v", rank, world, err)
	}
}
