package ranks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// convention reads one scheduler's variables.
type convention struct {
	key  string // its first variable, the name Only takes
	read func(r *envReader, world int) (guess, error)
}

// guess is the rank and world one convention gives, if it is set.
type guess struct {
	set         bool
	rank, world int
	from        string
}

var conventionList = []convention{
	{"RANK", pair("RANK", "WORLD_SIZE")},
	{"OMPI_COMM_WORLD_RANK", pair("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE")},
	{"PMI_RANK", pair("PMI_RANK", "PMI_SIZE")},
	{"JOB_COMPLETION_INDEX", kubernetes},
	{"SLURM_ARRAY_TASK_ID", slurm},
}

func keys() []string {
	var ks []string
	for _, cv := range conventionList {
		ks = append(ks, cv.key)
	}
	return ks
}

// discover reads the conventions and checks that they agree with each
// other and with the declared world.
func (c *config) discover() (Rank, error) {
	env := &envReader{lookup: c.lookup}
	var first *guess
	for _, cv := range conventionList {
		if c.only != nil && !slices.Contains(c.only, cv.key) {
			continue
		}
		g, err := cv.read(env, c.world)
		switch {
		case err != nil:
			return Rank{}, err
		case !g.set:
			continue
		case g.world < 1 || g.rank < 0 || g.rank >= g.world:
			return Rank{}, fmt.Errorf("ranks: %s gives rank %d of world %d: need 0 <= rank < world", g.from, g.rank, g.world)
		case c.world != 0 && g.world != c.world:
			return Rank{}, fmt.Errorf("ranks: %s gives a world of %d, but a world of %d was declared", g.from, g.world, c.world)
		case first == nil:
			first = &g
		case g.rank != first.rank || g.world != first.world:
			return Rank{}, fmt.Errorf("ranks: inconsistent environment: %s gives rank %d of %d, %s gives rank %d of %d",
				first.from, first.rank, first.world, g.from, g.rank, g.world)
		}
	}
	switch {
	case first != nil:
		return Rank{Rank: first.rank, World: first.world, From: first.from}, nil
	case c.world > 1:
		return Rank{}, fmt.Errorf("ranks: a world of %d was declared but no variable gives this process's rank (looked for %v)", c.world, c.lookedFor())
	}
	return Rank{Rank: 0, World: 1, From: "none"}, nil
}

func (c *config) lookedFor() []string {
	if c.only != nil {
		return c.only
	}
	return keys()
}

// envReader reads integer variables.
type envReader struct {
	lookup func(string) (string, bool)
}

// int returns the value of the variable name and whether it is set.
func (r *envReader) int(name string) (int, bool, error) {
	s, ok := r.lookup(name)
	if !ok || s == "" {
		return 0, false, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, true, fmt.Errorf("ranks: %s=%q is not an integer", name, s)
	}
	return n, true, nil
}

// ints reads variables that must be set all together or not at all.
func (r *envReader) ints(names ...string) ([]int, bool, error) {
	vals := make([]int, len(names))
	var set, unset []string
	for i, name := range names {
		v, ok, err := r.int(name)
		if err != nil {
			return nil, false, err
		}
		vals[i] = v
		if ok {
			set = append(set, name)
		} else {
			unset = append(unset, name)
		}
	}
	if len(set) > 0 && len(unset) > 0 {
		return nil, false, fmt.Errorf("ranks: %s set without %s: the convention needs both", strings.Join(set, ", "), strings.Join(unset, ", "))
	}
	return vals, len(set) > 0, nil
}

// pair reads a convention of a rank variable and a world variable.
func pair(rank, world string) func(*envReader, int) (guess, error) {
	return func(r *envReader, _ int) (guess, error) {
		v, ok, err := r.ints(rank, world)
		if !ok || err != nil {
			return guess{}, err
		}
		return guess{set: true, rank: v[0], world: v[1], from: rank + "/" + world}, nil
	}
}

func kubernetes(r *envReader, world int) (guess, error) {
	index, ok, err := r.int("JOB_COMPLETION_INDEX")
	switch {
	case !ok || err != nil:
		return guess{}, err
	case world < 1:
		return guess{}, fmt.Errorf("ranks: JOB_COMPLETION_INDEX=%d is set but no world was declared: pass the Job's completion count", index)
	}
	return guess{set: true, rank: index, world: world, from: "JOB_COMPLETION_INDEX"}, nil
}

func slurm(r *envReader, _ int) (guess, error) {
	v, ok, err := r.ints("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT")
	if err != nil {
		return guess{}, err
	}
	lo, hasMin, err1 := r.int("SLURM_ARRAY_TASK_MIN")
	step, hasStep, err2 := r.int("SLURM_ARRAY_TASK_STEP")
	hi, hasMax, err3 := r.int("SLURM_ARRAY_TASK_MAX")
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return guess{}, err
		}
	}
	if !ok {
		if hasMin || hasStep || hasMax {
			return guess{}, fmt.Errorf("ranks: SLURM_ARRAY_TASK_MIN/MAX/STEP set without SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT")
		}
		return guess{}, nil
	}
	id, count := v[0], v[1]
	if !hasStep {
		step = 1
	}
	if step < 1 || id < lo || (id-lo)%step != 0 || (hasMax && (hi < lo || (hi-lo)/step+1 != count)) {
		return guess{}, fmt.Errorf("ranks: Slurm array task %d of %d (min %d, max %d, step %d) is not one of a regular range of ids",
			id, count, lo, hi, step)
	}
	return guess{set: true, rank: (id - lo) / step, world: count, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"}, nil
}
