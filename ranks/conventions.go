package ranks

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rowflow/rowflow/internal/api/limits"
)

// convention reads one launcher's variables.
type convention struct {
	key  string // its first variable, the name Only takes
	read func(r *envReader, world int) (guess, error)
}

// guess is the rank and world one convention gives, if it is set.
type guess struct {
	key         string
	set         bool
	rank, world int // world 0: the convention does not give it (PMIX_RANK)
	from        string
	// batch marks the variables of a Slurm batch script, which describe
	// the job's allocation rather than this process: they count only when
	// nothing else gives the rank.
	batch bool
}

// conventionList is in the order of precedence: a launcher started by
// another one (torchrun or mpirun inside a Slurm step or a Kubernetes pod)
// comes before it.
var conventionList = []convention{
	{"RANK", torchrun},
	{"OMPI_COMM_WORLD_RANK", pair("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE")},
	{"PMI_RANK", pair("PMI_RANK", "PMI_SIZE")},
	{"PMIX_RANK", pmix},
	{"JOB_COMPLETION_INDEX", kubernetes},
	{"SLURM_PROCID", slurmTasks},
	{"SLURM_ARRAY_TASK_ID", slurmArray},
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
	var gs []guess
	for _, cv := range conventionList {
		if c.only != nil && !slices.Contains(c.only, cv.key) {
			continue
		}
		g, err := cv.read(env, c.world)
		if err != nil {
			return Rank{}, err
		}
		if g.set {
			g.key = cv.key
			gs = append(gs, g)
		}
	}
	gs, err := combine(gs, c.world)
	if err != nil {
		return Rank{}, err
	}
	var first *guess
	for i := range gs {
		g := &gs[i]
		switch {
		case g.world > limits.MaxWorld:
			return Rank{}, fmt.Errorf("ranks: %s gives a world of %d, more than the %d processes a job may have", g.from, g.world, limits.MaxWorld)
		case g.world < 1 || g.rank < 0 || g.rank >= g.world:
			return Rank{}, fmt.Errorf("ranks: %s gives rank %d of world %d: need 0 <= rank < world", g.from, g.rank, g.world)
		case first == nil:
			if c.world != 0 && g.world != c.world {
				return Rank{}, fmt.Errorf("ranks: %s gives a world of %d, but a world of %d was declared", g.from, g.world, c.world)
			}
			first = g
		case !nests(*first, *g):
			return Rank{}, fmt.Errorf("ranks: inconsistent environment: %s gives rank %d of %d, %s gives rank %d of %d "+
				"(a launcher started inside another must give a rank within the block of the outer one's; say which to use with ranks.Only or explicit ranks)",
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

// nests reports whether inner's rank is outer's, or lies in outer's block
// of ranks when each of outer's processes started inner.World/outer.World
// of inner's: torchrun or mpirun started by srun, one per node.
func nests(inner, outer guess) bool {
	if inner.world == outer.world {
		return inner.rank == outer.rank
	}
	if inner.world < outer.world || inner.world%outer.world != 0 {
		return false
	}
	return inner.rank/(inner.world/outer.world) == outer.rank
}

// combine resolves what one convention cannot decide alone: a Slurm step
// inside an array task, PMIX_RANK's world, and a Slurm batch script.
func combine(gs []guess, declared int) ([]guess, error) {
	find := func(key string) int { return slices.IndexFunc(gs, func(g guess) bool { return g.key == key }) }
	// PMIX_RANK's world: the declared one, or another convention's (before
	// a Slurm step is composed with its array: PMIx numbers the step).
	if p := find("PMIX_RANK"); p >= 0 {
		o := slices.IndexFunc(gs, func(g guess) bool { return g.key != "PMIX_RANK" && !g.batch })
		switch {
		case declared != 0:
			gs[p].world = declared
		case o >= 0:
			gs[p].world = gs[o].world
			gs[p].from += " (world from " + gs[o].from + ")"
		default:
			return nil, fmt.Errorf("ranks: PMIX_RANK=%d is set but nothing gives the world (PMIx has no variable for it): declare the number of processes", gs[p].rank)
		}
	}
	// An srun step inside a task of an array: the array task's block of
	// ranks, then the step's task within it. PMI and PMIx variables that
	// srun sets for the step (MpiDefault=pmi2 or pmix) number the step's
	// tasks alone: they agree with the step, and the composed rank is used.
	if t, a := find("SLURM_PROCID"), find("SLURM_ARRAY_TASK_ID"); t >= 0 && a >= 0 && !gs[t].batch {
		task, array := gs[t], gs[a]
		if array.world > limits.MaxWorld || task.world > limits.MaxWorld {
			return nil, fmt.Errorf("ranks: %s gives %d tasks in each of %d array tasks, more than the %d processes a job may have",
				task.from, task.world, array.world, limits.MaxWorld)
		}
		// Each in range, so that the composed rank does not overflow.
		for _, g := range []guess{array, task} {
			if g.world < 1 || g.rank < 0 || g.rank >= g.world {
				return nil, fmt.Errorf("ranks: %s gives rank %d of world %d: need 0 <= rank < world", g.from, g.rank, g.world)
			}
		}
		gs[a] = guess{key: array.key, set: true,
			rank: array.rank*task.world + task.rank, world: array.world * task.world,
			from: array.from + "+" + task.from}
		gs = slices.DeleteFunc(gs, func(g guess) bool {
			return g.key == task.key || (g.key == "PMI_RANK" || g.key == "PMIX_RANK") && g.rank == task.rank && g.world == task.world
		})
	}
	if b := slices.IndexFunc(gs, func(g guess) bool { return g.batch }); b >= 0 {
		if len(gs) == 1 {
			return nil, fmt.Errorf("ranks: %s but SLURM_STEP_ID is not set: this is a Slurm batch script, one process of the job, not one of its tasks; "+
				"start one process per task with srun, or give the rank explicitly", gs[b].from)
		}
		gs = slices.Delete(gs, b, b+1)
	}
	return gs, nil
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

// torchrun reads RANK and WORLD_SIZE, and checks LOCAL_RANK and
// LOCAL_WORLD_SIZE against them: torchrun gives each node's processes a
// contiguous block of LOCAL_WORLD_SIZE ranks.
func torchrun(r *envReader, world int) (guess, error) {
	g, err := pair("RANK", "WORLD_SIZE")(r, world)
	if err != nil {
		return g, err
	}
	v, local, err := r.ints("LOCAL_RANK", "LOCAL_WORLD_SIZE")
	switch {
	case err != nil:
		return guess{}, err
	case local && !g.set:
		return guess{}, fmt.Errorf("ranks: LOCAL_RANK and LOCAL_WORLD_SIZE set without RANK and WORLD_SIZE: a rank within a node is not a rank within the job")
	case local && (v[1] < 1 || v[0] < 0 || v[0] >= v[1] || v[1] > g.world || v[0] > g.rank || g.rank-v[0]+v[1] > g.world):
		return guess{}, fmt.Errorf("ranks: LOCAL_RANK=%d, LOCAL_WORLD_SIZE=%d do not fit RANK=%d, WORLD_SIZE=%d: "+
			"need 0 <= LOCAL_RANK < LOCAL_WORLD_SIZE and the node's block of ranks, RANK-LOCAL_RANK to RANK-LOCAL_RANK+LOCAL_WORLD_SIZE-1, within the world",
			v[0], v[1], g.rank, g.world)
	}
	return g, nil
}

// pmix reads PMIX_RANK, whose world comes from the declared one or from
// another convention (see combine).
func pmix(r *envReader, _ int) (guess, error) {
	rank, ok, err := r.int("PMIX_RANK")
	if !ok || err != nil {
		return guess{}, err
	}
	return guess{set: true, rank: rank, from: "PMIX_RANK"}, nil
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

// slurmTasks reads the tasks of a Slurm step (srun): SLURM_PROCID of
// SLURM_NTASKS, which must agree with SLURM_STEP_NUM_TASKS when set. A
// batch script (no SLURM_STEP_ID) also has SLURM_PROCID=0, and
// SLURM_NTASKS when the job asked for tasks: those are marked batch.
func slurmTasks(r *envReader, _ int) (guess, error) {
	_, step, err := r.int("SLURM_STEP_ID")
	if err != nil {
		return guess{}, err
	}
	procid, hasID, err := r.int("SLURM_PROCID")
	if !hasID && step {
		return guess{}, fmt.Errorf("ranks: SLURM_STEP_ID is set (a Slurm step) but SLURM_PROCID is not")
	}
	if err != nil {
		return guess{}, err
	}
	ntasks, hasN, err := r.int("SLURM_NTASKS")
	if err != nil {
		return guess{}, err
	}
	stepTasks, hasStepTasks, err := r.int("SLURM_STEP_NUM_TASKS")
	if err != nil {
		return guess{}, err
	}
	if !step {
		// A batch script: SLURM_PROCID=0, SLURM_NTASKS only with --ntasks.
		if (hasN && ntasks > 1) || procid != 0 {
			return guess{set: true, batch: true, from: fmt.Sprintf("SLURM_PROCID=%d, SLURM_NTASKS=%d", procid, ntasks)}, nil
		}
		return guess{}, nil
	}
	switch {
	case !hasN:
		return guess{}, fmt.Errorf("ranks: SLURM_STEP_ID is set (a Slurm step) but SLURM_NTASKS is not")
	case hasStepTasks && stepTasks != ntasks:
		return guess{}, fmt.Errorf("ranks: SLURM_NTASKS=%d and SLURM_STEP_NUM_TASKS=%d disagree", ntasks, stepTasks)
	}
	return guess{set: true, rank: procid, world: ntasks, from: "SLURM_PROCID/SLURM_NTASKS"}, nil
}

func slurmArray(r *envReader, _ int) (guess, error) {
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
	// The differences are taken in uint64, where they are exact when not
	// negative: MIN, MAX and the ID may be any int64.
	if step < 1 || id < lo || (uint64(id)-uint64(lo))%uint64(step) != 0 ||
		(hasMax && (hi < lo || (uint64(hi)-uint64(lo))/uint64(step) != uint64(count)-1)) {
		return guess{}, fmt.Errorf("ranks: Slurm array task SLURM_ARRAY_TASK_ID=%d of SLURM_ARRAY_TASK_COUNT=%d (MIN %d, MAX %d, STEP %d) is not one of a regular range of ids",
			id, count, lo, hi, step)
	}
	rank := int(min((uint64(id)-uint64(lo))/uint64(step), math.MaxInt))
	return guess{set: true, rank: rank, world: count, from: "SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT"}, nil
}
