package dataset

import (
	"fmt"
	"os"
	"strconv"
)

// RankFromEnv reads this process's rank and world size from the
// environment, following the conventions of the engines that start it:
//
//   - RANK and WORLD_SIZE (torchrun, MPI launchers): both or neither.
//   - JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs): the world size is
//     completions, the Job's declared completion count, which Kubernetes
//     does not export; it is an error to find the index with completions < 1.
//   - SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (Slurm job arrays):
//     the rank is (ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP, MIN
//     and STEP defaulting to 0 and 1 when unset, so arrays such as 1-8 or
//     0-15:2 work; when SLURM_ARRAY_TASK_MAX is set it must agree with the
//     count, which rejects arrays given as irregular lists such as 1,3,7.
//
// Empty variables count as unset. If no convention applies it returns rank
// 0 of 1. Values that are not integers, a rank outside [0, world), and
// conventions that disagree with each other are errors. lookup is the
// environment, such as [os.LookupEnv], which is used when lookup is nil.
func RankFromEnv(lookup func(string) (string, bool), completions int) (rank, world int, err error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	env := envReader{lookup: lookup}
	found := []rankGuess{env.torch(), env.kubernetes(completions), env.slurm()}
	if env.err != nil {
		return 0, 0, env.err
	}
	var first *rankGuess
	for i := range found {
		g := &found[i]
		switch {
		case !g.ok:
			continue
		case g.world < 1 || g.rank < 0 || g.rank >= g.world:
			return 0, 0, fmt.Errorf("dataset: %s gives rank %d of world %d: need 0 <= rank < world", g.from, g.rank, g.world)
		case first == nil:
			first = g
		case g.rank != first.rank || g.world != first.world:
			return 0, 0, fmt.Errorf("dataset: inconsistent environment: %s gives rank %d of %d, %s gives rank %d of %d",
				first.from, first.rank, first.world, g.from, g.rank, g.world)
		}
	}
	if first == nil {
		return 0, 1, nil
	}
	return first.rank, first.world, nil
}

// rankGuess is the rank and world one convention gives, if it applies.
type rankGuess struct {
	ok          bool
	rank, world int
	from        string
}

// envReader reads integers from the environment and keeps the first error.
type envReader struct {
	lookup func(string) (string, bool)
	err    error
}

// int returns the value of the variable name, and whether it is set.
func (r *envReader) int(name string) (int, bool) {
	s, ok := r.lookup(name)
	if !ok || s == "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("dataset: %s=%q is not an integer", name, s)
	}
	return n, true
}

// both reads two variables that must be set together.
func (r *envReader) both(a, b string) (x, y int, ok bool) {
	x, okA := r.int(a)
	y, okB := r.int(b)
	if okA != okB && r.err == nil {
		r.err = fmt.Errorf("dataset: %s and %s must be set together", a, b)
	}
	return x, y, okA && okB
}

func (r *envReader) torch() rankGuess {
	rank, world, ok := r.both("RANK", "WORLD_SIZE")
	return rankGuess{ok: ok, rank: rank, world: world, from: "RANK/WORLD_SIZE"}
}

func (r *envReader) kubernetes(completions int) rankGuess {
	index, ok := r.int("JOB_COMPLETION_INDEX")
	if ok && completions < 1 && r.err == nil {
		r.err = fmt.Errorf("dataset: JOB_COMPLETION_INDEX=%d is set but no completion count was declared", index)
	}
	return rankGuess{ok: ok, rank: index, world: completions, from: "JOB_COMPLETION_INDEX"}
}

func (r *envReader) slurm() rankGuess {
	id, count, ok := r.both("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT")
	if !ok {
		return rankGuess{}
	}
	lo, _ := r.int("SLURM_ARRAY_TASK_MIN")
	step, hasStep := r.int("SLURM_ARRAY_TASK_STEP")
	if !hasStep {
		step = 1
	}
	hi, hasMax := r.int("SLURM_ARRAY_TASK_MAX")
	g := rankGuess{ok: true, world: count, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"}
	switch {
	case r.err != nil:
	case step < 1 || id < lo || (id-lo)%step != 0 || (hasMax && (hi-lo)/step+1 != count):
		r.err = fmt.Errorf("dataset: Slurm array task %d of %d (min %d, max %d, step %d) is not a regular range",
			id, count, lo, hi, step)
	default:
		g.rank = (id - lo) / step
	}
	return g
}
