package ranks_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/api/limits"
	"github.com/rowflow/rowflow/ranks"
)

// conventionVars are the variables of each convention, named by its first
// one (the name Only takes), in the documented order of precedence.
var conventionVars = []struct {
	key  string
	vars []string
}{
	{"RANK", []string{"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"}},
	{"OMPI_COMM_WORLD_RANK", []string{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}},
	{"PMI_RANK", []string{"PMI_RANK", "PMI_SIZE"}},
	{"PMIX_RANK", []string{"PMIX_RANK"}},
	{"JOB_COMPLETION_INDEX", []string{"JOB_COMPLETION_INDEX"}},
	{"SLURM_PROCID", []string{"SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_ID", "SLURM_STEP_NUM_TASKS"}},
	{"SLURM_ARRAY_TASK_ID", []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
		"SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP"}},
}

// oddValues are values a variable may have besides a coherent one.
var oddValues = []string{"", "0", "1", "2", "3", "4", "7", "8", "-1", "-3", "65535", "65536", "65537", "4294967296",
	"9223372036854775807", "-9223372036854775808", "4611686018427387904", "99999999999999999999",
	"x", "1.5", " 1", "+3", "-0", "007", "0x10", "1e3", "２"}

// FuzzFromEnv draws an environment from seed: a true rank and world given
// coherently by some of the launcher conventions (torchrun with its local
// ranks, Open MPI, PMI, PMIx, a Kubernetes Indexed Job, a Slurm step or
// batch script, a Slurm array, a step inside an array task, an inner
// launcher with a larger world nested in an outer one), then damaged:
// variables removed, emptied, or set to negative, huge, non-numeric or
// contradicting values, and unrelated ones added; and options: Explicit,
// World, Only (with unknown names too), Lookup. It checks FromEnv against
// a naive reading of the package documentation: the same rank and world,
// or an error whose text names a variable (or option) the documented
// rules find at fault; contradicting conventions are an error naming both.
// On success 0 <= rank < world <= MaxWorld always.
func FuzzFromEnv(f *testing.F) {
	for s := range uint64(40) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		// Several draws a seed: each takes microseconds.
		for i := range uint64(16) {
			checkFromEnv(t, rand.New(rand.NewPCG(seed, i^0x5851f42d4c957f2d)))
		}
	})
}

func checkFromEnv(t *testing.T, rng *rand.Rand) {
	{
		e, o := randomEnv(rng)
		opts := append([]ranks.Option{ranks.Lookup(e.lookup)}, o.options()...)
		got, err := ranks.FromEnv(opts...)
		want := naiveFromEnv(e, o)
		desc := fmt.Sprintf("env %v, options %+v", e, o)
		if err == nil && (got.Rank < 0 || got.Rank >= got.World || got.World > limits.MaxWorld || got.From == "") {
			t.Fatalf("%s: FromEnv = %v", desc, got)
		}
		switch {
		case want.err != "" && err == nil:
			t.Fatalf("%s: FromEnv = %v, want an error: %s", desc, got, want.err)
		case want.err == "" && err != nil:
			t.Fatalf("%s: FromEnv: %v, want rank %d of %d", desc, err, want.rank, want.world)
		case err == nil && (got.Rank != want.rank || got.World != want.world):
			t.Fatalf("%s: FromEnv = %v, want rank %d of %d", desc, got, want.rank, want.world)
		case err != nil:
			msg := err.Error()
			if !strings.HasPrefix(msg, "ranks: ") {
				t.Fatalf("%s: error %q does not start with \"ranks: \"", desc, msg)
			}
			if !slices.ContainsFunc(want.names, func(n string) bool { return strings.Contains(msg, n) }) {
				t.Fatalf("%s: error %q names none of %q (%s)", desc, msg, want.names, want.err)
			}
			for _, n := range want.all {
				if !strings.Contains(msg, n) {
					t.Fatalf("%s: error %q does not name %s (%s)", desc, msg, n, want.err)
				}
			}
		}
	}
}

// fuzzOptions are the options of one draw.
type fuzzOptions struct {
	explicit      bool
	xrank, xworld int
	world         int // 0: World not given
	only          []string
	hasOnly       bool
}

func (o fuzzOptions) options() []ranks.Option {
	var opts []ranks.Option
	if o.world != 0 {
		opts = append(opts, ranks.World(o.world))
	}
	if o.explicit {
		opts = append(opts, ranks.Explicit(o.xrank, o.xworld))
	}
	if o.hasOnly {
		opts = append(opts, ranks.Only(o.only...))
	}
	return opts
}

func randomEnv(rng *rand.Rand) (env, fuzzOptions) {
	e := env{}
	var o fuzzOptions
	world := 1 + rng.IntN(8)
	if rng.IntN(10) == 0 {
		world = limits.MaxWorld - rng.IntN(2)
	}
	rank := rng.IntN(world)
	set := func(k string, v int) { e[k] = strconv.Itoa(v) }
	// Each convention chosen gives rank of world coherently.
	for _, cv := range conventionVars {
		if rng.IntN(4) != 0 {
			continue
		}
		switch cv.key {
		case "RANK":
			set("RANK", rank)
			set("WORLD_SIZE", world)
			if lws := []int{1, 2, 4}[rng.IntN(3)]; world%lws == 0 && rng.IntN(2) == 0 {
				set("LOCAL_RANK", rank%lws)
				set("LOCAL_WORLD_SIZE", lws)
			}
		case "OMPI_COMM_WORLD_RANK", "PMI_RANK":
			set(cv.vars[0], rank)
			set(cv.vars[1], world)
		case "PMIX_RANK":
			set("PMIX_RANK", rank)
		case "JOB_COMPLETION_INDEX":
			set("JOB_COMPLETION_INDEX", rank)
			o.world = world
		case "SLURM_PROCID":
			// A step of world/k tasks, each starting k inner processes,
			// or a batch script.
			k := []int{1, 1, 2, 4}[rng.IntN(4)]
			if world%k != 0 {
				k = 1
			}
			set("SLURM_PROCID", rank/k)
			set("SLURM_NTASKS", world/k)
			if rng.IntN(4) != 0 {
				set("SLURM_STEP_ID", rng.IntN(3))
			}
			if rng.IntN(2) == 0 {
				set("SLURM_STEP_NUM_TASKS", world/k)
			}
		case "SLURM_ARRAY_TASK_ID":
			lo, step := rng.IntN(3), 1+rng.IntN(3)
			set("SLURM_ARRAY_TASK_ID", lo+rank*step)
			set("SLURM_ARRAY_TASK_COUNT", world)
			if rng.IntN(2) == 0 {
				set("SLURM_ARRAY_TASK_MIN", lo)
				set("SLURM_ARRAY_TASK_STEP", step)
				if rng.IntN(2) == 0 {
					set("SLURM_ARRAY_TASK_MAX", lo+(world-1)*step)
				}
			}
		}
	}
	if rng.IntN(6) == 0 {
		// Only an srun step of t tasks in each of a tasks of an array.
		clear(e)
		o.world = 0
		t := []int{1, 2, 4, 8}[rng.IntN(4)]
		a := 1 + rng.IntN(4)
		set("SLURM_STEP_ID", 0)
		set("SLURM_PROCID", rng.IntN(t))
		set("SLURM_NTASKS", t)
		set("SLURM_ARRAY_TASK_ID", rng.IntN(a))
		set("SLURM_ARRAY_TASK_COUNT", a)
	}
	// Damage: remove, empty or change variables, add others.
	var present []string
	for k := range e {
		present = append(present, k)
	}
	slices.Sort(present)
	for range rng.IntN(4) {
		cv := conventionVars[rng.IntN(len(conventionVars))]
		name := cv.vars[rng.IntN(len(cv.vars))]
		if len(present) > 0 && rng.IntN(2) == 0 {
			name = present[rng.IntN(len(present))]
		}
		switch rng.IntN(5) {
		case 0:
			delete(e, name)
		case 1:
			e[name] = oddValues[rng.IntN(len(oddValues))]
		case 4:
			// Near a power of two, where products and differences
			// overflow an int.
			e[name] = strconv.Itoa((1<<(60+rng.IntN(3)))*(1-2*rng.IntN(2)) + rng.IntN(3)*(1-2*rng.IntN(2)))
		case 2:
			set(name, rng.IntN(world+2)-1)
		default:
			if _, ok := e[name]; !ok {
				e[name] = oddValues[rng.IntN(len(oddValues))]
			}
		}
	}
	if rng.IntN(8) == 0 {
		e["SLURM_JOB_ID"] = "12"
	}
	switch rng.IntN(8) {
	case 0:
		o.world = world
	case 1:
		o.world = []int{-1, 0, 1, 2, 3, 8, limits.MaxWorld, limits.MaxWorld + 1}[rng.IntN(8)]
	}
	if rng.IntN(8) == 0 {
		o.explicit = true
		o.xworld = []int{-1, 0, 1, 2, 3, 8, world, limits.MaxWorld, limits.MaxWorld + 1}[rng.IntN(9)]
		o.xrank = []int{-1, 0, 1, 2, rank, o.xworld - 1, o.xworld}[rng.IntN(7)]
	}
	if rng.IntN(6) == 0 {
		o.hasOnly = true
		for _, cv := range conventionVars {
			if rng.IntN(2) == 0 {
				o.only = append(o.only, cv.key)
			}
		}
		if rng.IntN(8) == 0 {
			o.only = append(o.only, []string{"SLURM_NTASKS", "rank", "WORLD_SIZE", ""}[rng.IntN(4)])
		}
	}
	return e, o
}

// outcome is what the documentation says FromEnv gives: rank of world,
// or an error (err says why) whose text names one of names and all of
// all.
type outcome struct {
	rank, world int
	err         string
	names, all  []string
}

func fail(why string, names ...string) outcome { return outcome{err: why, names: names} }

// guessOf is the rank and world that one convention gives.
type guessOf struct {
	key         string
	rank, world *big.Int // world nil: PMIX_RANK, whose world comes from elsewhere
	names       []string // the variables that gave it
	batch       bool
}

// naiveFromEnv reads the package documentation's rules, one by one.
func naiveFromEnv(e env, o fuzzOptions) outcome {
	// Option errors.
	if o.world != 0 && (o.world < 1 || o.world > limits.MaxWorld) {
		return fail("bad World", "World(")
	}
	if o.explicit && (o.xworld < 1 || o.xrank < 0 || o.xrank >= o.xworld || o.xworld > limits.MaxWorld) {
		return fail("bad Explicit", "Explicit(")
	}
	for _, name := range o.only {
		if !slices.ContainsFunc(conventionVars, func(cv struct {
			key  string
			vars []string
		}) bool {
			return cv.key == name
		}) {
			return fail("unknown convention in Only", "Only(")
		}
	}
	// 1. Explicit.
	if o.explicit {
		if o.world != 0 && o.world != o.xworld {
			return fail("Explicit and World disagree", "Explicit(")
		}
		return outcome{rank: o.xrank, world: o.xworld}
	}
	// Every variable of a convention read must be an integer if set
	// (empty is unset). Which of several faults the error names first is
	// not documented: faults collects them all, and a convention with a
	// variable that is not an integer gives no rank.
	var faults []string
	val := map[string]*big.Int{}
	read := func(key string) bool {
		if o.hasOnly && !slices.Contains(o.only, key) {
			return false
		}
		i := slices.IndexFunc(conventionVars, func(cv struct {
			key  string
			vars []string
		}) bool {
			return cv.key == key
		})
		for _, name := range conventionVars[i].vars {
			s := e[name]
			if s == "" {
				continue
			}
			if _, err := strconv.Atoi(s); err != nil {
				faults = append(faults, name)
				continue
			}
			n, _ := new(big.Int).SetString(strings.TrimPrefix(s, "+"), 10)
			val[name] = n
		}
		return true
	}
	has := func(name string) bool { return e[name] != "" }
	ints := func(names ...string) bool {
		return !slices.ContainsFunc(names, func(n string) bool { return has(n) && val[n] == nil })
	}
	both := func(a, b string) (bool, *outcome) {
		switch {
		case has(a) && has(b):
			return true, nil
		case has(a) || has(b):
			return false, &outcome{err: "convention set in part", names: []string{a, b}}
		}
		return false, nil
	}
	declared := big.NewInt(int64(o.world))
	var gs []guessOf
	// 2. torchrun.
	if read("RANK") {
		ok, bad := both("RANK", "WORLD_SIZE")
		local, bad2 := both("LOCAL_RANK", "LOCAL_WORLD_SIZE")
		switch {
		case bad != nil:
			faults = append(faults, bad.names...)
		case bad2 != nil:
			faults = append(faults, bad2.names...)
		case local && !ok:
			faults = append(faults, "LOCAL_RANK")
		case ok && ints("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE"):
			r, w := val["RANK"], val["WORLD_SIZE"]
			if local {
				lr, lws := val["LOCAL_RANK"], val["LOCAL_WORLD_SIZE"]
				start := new(big.Int).Sub(r, lr)
				end := new(big.Int).Add(start, lws)
				if lr.Sign() < 0 || lr.Cmp(lws) >= 0 || start.Sign() < 0 || end.Cmp(w) > 0 {
					faults = append(faults, "LOCAL_RANK", "RANK/WORLD_SIZE")
					break
				}
			}
			gs = append(gs, guessOf{key: "RANK", rank: r, world: w, names: []string{"RANK", "WORLD_SIZE"}})
		}
	}
	// 3, 4. Open MPI, PMI.
	for _, p := range [][2]string{{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, {"PMI_RANK", "PMI_SIZE"}} {
		if !read(p[0]) {
			continue
		}
		ok, bad := both(p[0], p[1])
		if bad != nil {
			faults = append(faults, bad.names...)
		}
		if ok {
			gs = append(gs, guessOf{key: p[0], rank: val[p[0]], world: val[p[1]], names: p[:]})
		}
	}
	// 5. PMIx: its world is found below.
	if read("PMIX_RANK") && has("PMIX_RANK") {
		gs = append(gs, guessOf{key: "PMIX_RANK", rank: val["PMIX_RANK"], names: []string{"PMIX_RANK"}})
	}
	// 6. Kubernetes.
	if read("JOB_COMPLETION_INDEX") && has("JOB_COMPLETION_INDEX") {
		if o.world == 0 {
			faults = append(faults, "JOB_COMPLETION_INDEX")
		} else {
			gs = append(gs, guessOf{key: "JOB_COMPLETION_INDEX", rank: val["JOB_COMPLETION_INDEX"], world: declared, names: []string{"JOB_COMPLETION_INDEX"}})
		}
	}
	// 7. A Slurm step, or a batch script.
	step := false
	if read("SLURM_PROCID") {
		if has("SLURM_STEP_ID") {
			switch {
			case !has("SLURM_PROCID"), !has("SLURM_NTASKS"):
				faults = append(faults, "SLURM_PROCID", "SLURM_NTASKS")
			case !ints("SLURM_STEP_ID", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS"):
			case has("SLURM_STEP_NUM_TASKS") && val["SLURM_STEP_NUM_TASKS"].Cmp(val["SLURM_NTASKS"]) != 0:
				faults = append(faults, "SLURM_STEP_NUM_TASKS")
			default:
				step = true
				gs = append(gs, guessOf{key: "SLURM_PROCID", rank: val["SLURM_PROCID"], world: val["SLURM_NTASKS"], names: []string{"SLURM_PROCID", "SLURM_NTASKS"}})
			}
		} else if !ints("SLURM_PROCID", "SLURM_NTASKS") {
		} else if has("SLURM_NTASKS") && val["SLURM_NTASKS"].Cmp(big.NewInt(1)) > 0 ||
			has("SLURM_PROCID") && val["SLURM_PROCID"].Sign() != 0 {
			gs = append(gs, guessOf{key: "SLURM_PROCID", batch: true, names: []string{"SLURM_PROCID", "SLURM_STEP_ID"}})
		}
	}
	// 8. A Slurm array.
	if read("SLURM_ARRAY_TASK_ID") {
		ok, bad := both("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT")
		if bad != nil {
			faults = append(faults, bad.names...)
		}
		if bad == nil && !ok && (has("SLURM_ARRAY_TASK_MIN") || has("SLURM_ARRAY_TASK_MAX") || has("SLURM_ARRAY_TASK_STEP")) {
			faults = append(faults, "SLURM_ARRAY_TASK_MIN")
		}
		if ok && ints("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP") {
			id, count := val["SLURM_ARRAY_TASK_ID"], val["SLURM_ARRAY_TASK_COUNT"]
			lo, st := big.NewInt(0), big.NewInt(1)
			if has("SLURM_ARRAY_TASK_MIN") {
				lo = val["SLURM_ARRAY_TASK_MIN"]
			}
			if has("SLURM_ARRAY_TASK_STEP") {
				st = val["SLURM_ARRAY_TASK_STEP"]
			}
			q, m := new(big.Int), new(big.Int)
			if st.Sign() > 0 {
				q.QuoRem(new(big.Int).Sub(id, lo), st, m)
			}
			regular := st.Sign() > 0 && id.Cmp(lo) >= 0 && m.Sign() == 0
			if hi := val["SLURM_ARRAY_TASK_MAX"]; regular && hi != nil {
				n := new(big.Int).Sub(hi, lo)
				n.Quo(n, st).Add(n, big.NewInt(1))
				regular = hi.Cmp(lo) >= 0 && n.Cmp(count) == 0
			}
			if regular {
				gs = append(gs, guessOf{key: "SLURM_ARRAY_TASK_ID", rank: q, world: count, names: []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT"}})
			} else {
				faults = append(faults, "SLURM_ARRAY_TASK_ID")
			}
		}
	}
	if len(faults) > 0 {
		return fail("bad variables", faults...)
	}
	find := func(key string) int { return slices.IndexFunc(gs, func(g guessOf) bool { return g.key == key }) }
	// PMIx's world: the declared one, else the first other convention's.
	if p := find("PMIX_RANK"); p >= 0 {
		o := slices.IndexFunc(gs, func(g guessOf) bool { return g.key != "PMIX_RANK" && !g.batch })
		switch {
		case declared.Sign() != 0:
			gs[p].world = declared
		case o >= 0:
			gs[p].world = gs[o].world
		default:
			return fail("PMIX_RANK without a world", "PMIX_RANK")
		}
	}
	// A step inside an array task: array-major composition; the PMI or
	// PMIx rank of the step's task that agrees with it is the step's.
	if t, a := find("SLURM_PROCID"), find("SLURM_ARRAY_TASK_ID"); step && a >= 0 {
		task, array := gs[t], gs[a]
		max := big.NewInt(limits.MaxWorld)
		if task.world.Cmp(max) > 0 || array.world.Cmp(max) > 0 {
			return fail("above MaxWorld", "SLURM_NTASKS")
		}
		for _, g := range []guessOf{array, task} {
			if g.world.Sign() < 1 || g.rank.Sign() < 0 || g.rank.Cmp(g.world) >= 0 {
				return fail("out of range", g.names...)
			}
		}
		r := new(big.Int).Mul(array.rank, task.world)
		gs[a] = guessOf{key: array.key, rank: r.Add(r, task.rank), world: new(big.Int).Mul(array.world, task.world),
			names: []string{"SLURM_ARRAY_TASK_ID", "SLURM_PROCID"}}
		gs = slices.DeleteFunc(gs, func(g guessOf) bool {
			return g.key == "SLURM_PROCID" || (g.key == "PMI_RANK" || g.key == "PMIX_RANK") && g.rank.Cmp(task.rank) == 0 && g.world.Cmp(task.world) == 0
		})
	}
	// A batch script's variables count only when nothing else gives the
	// rank, and then are an error.
	if b := slices.IndexFunc(gs, func(g guessOf) bool { return g.batch }); b >= 0 {
		if len(gs) == 1 {
			return fail("a batch script", "SLURM_STEP_ID")
		}
		gs = slices.Delete(gs, b, b+1)
	}
	if len(gs) == 0 {
		if o.world > 1 {
			looked := keysOf()
			if o.hasOnly {
				looked = o.only
			}
			return fail("a declared world and no rank", append(looked, "a world of "+strconv.Itoa(o.world)+" was declared")...)
		}
		return outcome{rank: 0, world: 1}
	}
	// Every convention gives 0 <= rank < world <= MaxWorld; the first (the
	// innermost launcher) is the rank, and must have the declared world;
	// each other one must agree with it or hold it in its block.
	// Each is checked in turn, in order of precedence.
	first := gs[0]
	for i, g := range gs {
		if g.world.Cmp(big.NewInt(limits.MaxWorld)) > 0 || g.world.Sign() < 1 || g.rank.Sign() < 0 || g.rank.Cmp(g.world) >= 0 {
			return fail("out of range", g.names...)
		}
		if i == 0 {
			if declared.Sign() != 0 && first.world.Cmp(declared) != 0 {
				return fail("the declared world differs", first.names...)
			}
			continue
		}
		inner, outer := first, g
		var nests bool
		switch c := inner.world.Cmp(outer.world); {
		case c == 0:
			nests = inner.rank.Cmp(outer.rank) == 0
		case c > 0 && new(big.Int).Rem(inner.world, outer.world).Sign() == 0:
			per := new(big.Int).Quo(inner.world, outer.world)
			nests = new(big.Int).Quo(inner.rank, per).Cmp(outer.rank) == 0
		}
		if !nests {
			out := fail("inconsistent", "inconsistent")
			out.all = []string{"inconsistent", inner.names[0], outer.names[0]}
			return out
		}
	}
	return outcome{rank: int(first.rank.Int64()), world: int(first.world.Int64())}
}

func keysOf() []string {
	var ks []string
	for _, cv := range conventionVars {
		ks = append(ks, cv.key)
	}
	return ks
}
