package operators_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// FuzzCombineSemantics checks that the serial run of the combinations and
// the shuffles is what their docs say, not only that other runs equal it
// (FuzzPipelines). A seed draws one of:
//
//   - Concat, Interleave(cycle, block) or Mix(weights) of 1 to 5 inputs,
//     each a slice of 0 to 100 rows (partition and chunk sizes drawn),
//     read plainly, through IndexShuffle or through Shuffle, with a Map
//     that may run in parallel, 1 or 2 epochs of its own and a seed of
//     its own; the policy on exhaustion, the combination's partition size,
//     its epochs and seed;
//   - IndexShuffle, Shuffle(window) or BlockShuffle(k) of a slice of 0 to
//     300 rows (partition and chunk sizes drawn), with a filter and maps
//     around it, the partition size, the epochs and the seed.
//
// Each is run through matrixResume (parallelism 1, 2, 4, 8 and resumed
// runs equal the serial run), and the serial run is checked against
// oracles written from the docs. Concat and Interleave: the exact sequence
// of rows, from a naive round of turns over the inputs' own runs (run
// alone, epoch by epoch, as the docs say each input runs). Mix: each
// input's rows come in its own order; the default gives every row of
// every input of positive weight, StopExhausted a prefix of each with one
// input complete, CycleExhausted whole runs of every input (the restarts
// reading the input's next epochs) and the part of one more, one input
// ending on a whole run; an input of weight 0 is never read; before any
// input runs out, each input's share of the rows is its weight's within
// six standard deviations; another seed or epoch gives another order. For
// all three: row IDs are the input's IDs combined with input i's ID,
// rowid.Ordinal(i).Combine(rowid.FromString("rowflow input")), and row j
// of epoch e lies in partition j/PartitionItems of epoch e. The shuffles:
// every epoch is a permutation of the epoch's input, each value with its
// own row ID, in partitions of PartitionItems positions (IndexShuffle,
// Shuffle); Shuffle gives out position j from the first j+window rows
// and keeps the order with window 1; BlockShuffle puts a row of input
// partition q in an output partition q to q+k-1; another seed or epoch
// gives another order when there are enough rows to make one likely.
func FuzzCombineSemantics(f *testing.F) {
	// Seeds 0 to 17, and a few more: Mix under each policy (28, 41, 78),
	// Mix with shares to check (137, 958),
	// Interleave with inputs opened as others run out (43, 49, 52),
	// Shuffle of 40 to 300 rows with windows 1, 2 and 10 (34, 45, 64),
	// BlockShuffle(1) and (3) of 40 rows (126, 24).
	for _, i := range []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 24, 28, 34, 41, 43, 45, 49, 52, 64, 78, 126, 137, 958} {
		f.Add(i*0x9e3779b97f4a7c15 + 7)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		r := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
		switch k := r.IntN(6); k {
		case 0, 1, 2:
			fuzzCombination(t, r, k)
		case 3:
			fuzzIndexShuffle(t, r)
		case 4:
			fuzzShuffle(t, r)
		default:
			fuzzBlockShuffle(t, r)
		}
	})
}

// combBase separates the inputs' values: row k of input i is
// i*combBase + k.
const combBase = 1_000_000

// combInput is one drawn input of a combination.
type combInput struct {
	size, part, chunk int
	order             int // 0: the slice's order; 1: IndexShuffle; 2: Shuffle
	window            int // IndexShuffle's partition size or Shuffle's window
	parallel          bool
	epochs            int64
	seed              uint64
}

func (in combInput) String() string {
	s := fmt.Sprintf("Slice(%d, part %d, chunk %d)", in.size, in.part, in.chunk)
	switch in.order {
	case 1:
		s = fmt.Sprintf("IndexShuffle(%s, %d)", s, in.window)
	case 2:
		s += fmt.Sprintf("→Shuffle(%d)", in.window)
	}
	if in.parallel {
		s += "→Map.Parallel"
	}
	return fmt.Sprintf("%s epochs %d seed %d", s, in.epochs, in.seed)
}

// pipeline returns input i at parallelism par, reading epochs epochs;
// reads, if not nil, counts the rows its Map sees.
func (in combInput) pipeline(i, par int, epochs int64, reads *atomic.Int64) *flow.Pipeline {
	vals := make([]int64, in.size)
	for k := range vals {
		vals[k] = int64(i)*combBase + int64(k)
	}
	src := sources.Slice(vals, sources.PartitionItems(in.part), sources.ChunkSize(in.chunk))
	var p *flow.Pipeline
	if in.order == 1 {
		p = flow.From(operators.IndexShuffle[int64](src, operators.PartitionItems(in.window)))
	} else {
		p = flow.From(src)
	}
	p = p.Via(operators.Map(func(v int64) (int64, error) {
		if reads != nil {
			reads.Add(1)
		}
		return v, nil
	}))
	if in.parallel {
		p = p.Parallel(par)
	}
	if in.order == 2 {
		p = p.Via(operators.Shuffle[int64](in.window))
	}
	return p.Epochs(epochs).WithSeed(in.seed)
}

// inputRuns holds an input's runs as the combination's docs describe
// them: its k-th run (k counted over the combination's epochs and
// restarts) reads the input's epochs k·n to k·n+n-1, n being its own epoch
// count, as one longer run of the input alone reads them.
type inputRuns struct {
	in   combInput
	i    int
	runs [][]flow.Item[int64]
}

// run returns the input's k-th run.
func (r *inputRuns) run(t *testing.T, k int) []flow.Item[int64] {
	t.Helper()
	if k >= len(r.runs) {
		n := max(2*len(r.runs), k+1)
		all, err := matrixCollect[int64](r.in.pipeline(r.i, 1, r.in.epochs*int64(n), nil))
		if err != nil {
			t.Fatalf("input %d alone: %v", r.i, err)
		}
		r.runs = make([][]flow.Item[int64], n)
		for _, it := range all {
			e := it.Epoch() / r.in.epochs
			if e >= int64(n) {
				t.Fatalf("input %d alone: an item of epoch %d in a run of %d", r.i, it.Epoch(), r.in.epochs*int64(n))
			}
			r.runs[e] = append(r.runs[e], it)
		}
	}
	return r.runs[k]
}

// combinedID is the ID a combination gives a row of input i whose ID was
// id, as the docs give it.
func combinedID(id rowid.ID, i int) rowid.ID {
	return id.Combine(rowid.Ordinal(uint64(i)).Combine(rowid.FromString("rowflow input")))
}

// taken is a row a combination takes: input, the input's run and the
// row's position in it.
type taken struct{ input, run, pos int }

// interleaveOracle returns the rows of epoch e of Interleave(cycle,
// block, policy), read from the docs: rows of cycle inputs at a time,
// block rows from each in turn; a turn that finds its input run out ends
// the epoch (StopExhausted), restarts the input on its next run, which
// goes on with the turn (CycleExhausted, unless every input has run out:
// then the epoch ends), or ends the turn and gives the slot to the next
// input not yet opened, whose first block comes when the round is back,
// or drops the slot (by default, and under CycleExhausted for an input
// whose run gave no row).
// Concat is Interleave with a cycle of 1 and unbounded blocks.
func interleaveOracle(t *testing.T, runs []*inputRuns, e, cycle, block int, policy exhausted) []taken {
	t.Helper()
	n := len(runs)
	if cycle < 1 || cycle > n {
		cycle = n
	}
	run, pos := make([]int, n), make([]int, n)
	ranOut, dropped := make([]bool, n), make([]bool, n)
	for i := range run {
		run[i] = e
	}
	allRanOut := func() bool {
		for i := range n {
			if !ranOut[i] && !dropped[i] {
				return false
			}
		}
		return true
	}
	var slots []int
	for i := range cycle {
		slots = append(slots, i)
	}
	opened, slot, took := cycle, 0, 0
	var out []taken
	for len(slots) > 0 {
		i := slots[slot]
		if pos[i] < len(runs[i].run(t, run[i])) {
			out = append(out, taken{i, run[i], pos[i]})
			pos[i]++
			if took++; took == block {
				took, slot = 0, (slot+1)%len(slots)
			}
			continue
		}
		switch policy {
		case stopExhausted:
			return out
		case cycleExhausted:
			ranOut[i] = true
			if pos[i] > 0 && !allRanOut() {
				run[i], pos[i] = run[i]+1, 0
				continue
			}
		}
		dropped[i], took = true, 0
		if opened < n {
			slots[slot] = opened
			opened++
			slot = (slot + 1) % len(slots)
			continue
		}
		slots = slices.Delete(slots, slot, slot+1)
		if slot >= len(slots) {
			slot = 0
		}
		if policy == cycleExhausted && allRanOut() {
			break
		}
	}
	return out
}

// fuzzCombination draws and checks Concat (kind 0), Interleave (1) or Mix (2).
func fuzzCombination(t *testing.T, r *rand.Rand, kind int) {
	pick := func(xs ...int) int { return xs[r.IntN(len(xs))] }
	k := 1 + r.IntN(5)
	ins := make([]combInput, k)
	for i := range ins {
		ins[i] = combInput{
			size: pick(0, 0, 1, 2, 3, 5, 8, 20, 45, 100), part: pick(1, 3, 16, 64), chunk: pick(1, 2, 5, 1024),
			order: r.IntN(3), window: pick(1, 2, 7, 30), parallel: r.IntN(2) == 0,
			epochs: int64(1 + r.IntN(2)), seed: r.Uint64N(1000),
		}
		if r.IntN(3) > 0 {
			ins[i].epochs = 1
		}
	}
	policy := []exhausted{dropExhausted, stopExhausted, cycleExhausted}[r.IntN(3)]
	per := pick(0, 1, 3, 7, 50)
	epochs, seed := int64(1+r.IntN(3)), r.Uint64()
	cycle, block := 0, pick(1, 2, 3, 10, 1000)
	if kind == 1 && policy != cycleExhausted {
		cycle = r.IntN(k + 1)
	}
	weights := make([]float64, k)
	for i := range weights {
		weights[i] = []float64{0, 1, 1, 2, 3, 4, 1e-6}[r.IntN(7)]
	}
	if kind == 2 && !slices.ContainsFunc(weights, func(w float64) bool { return w > 0 }) {
		weights[r.IntN(k)] = 1
	}
	if kind == 1 && policy == cycleExhausted && cycleRestarts(ins, block) > 150 {
		// Every turn restarts a small input block/size times until the
		// largest has run out once: keep it short.
		block = min(block, 3)
		for i := range ins {
			ins[i].size = min(ins[i].size, 20)
		}
	}
	if kind == 2 && policy == cycleExhausted && cycleDraws(ins, weights) > 400 {
		// The epoch would last until the input least likely drawn has
		// run out once, restarting the others all along: keep it short.
		for i := range weights {
			weights[i] = 1
		}
	}
	var opts []operators.CombineOption
	if kind != 0 {
		opts = withExhausted(policy, opts...)
		if per > 0 {
			opts = append(opts, operators.PartitionItems(per))
		}
	}
	if kind == 0 || per == 0 {
		per = 4096
	}
	if kind == 0 {
		policy = dropExhausted
	}
	var desc []string
	for _, in := range ins {
		desc = append(desc, in.String())
	}
	name := []string{"Concat", "Interleave", "Mix"}[kind]
	switch kind {
	case 1:
		name += fmt.Sprintf("(cycle %d, block %d, %v, part %d)", cycle, block, policy, per)
	case 2:
		name += fmt.Sprintf("(weights %v, %v, part %d)", weights, policy, per)
	}
	t.Logf("%s of [%s], epochs %d, seed %d", name, strings.Join(desc, "; "), epochs, seed)

	reads := make([]atomic.Int64, k)
	build := func(par int, seed uint64) *flow.Pipeline {
		ps := make([]*flow.Pipeline, k)
		for i, in := range ins {
			ps[i] = in.pipeline(i, par, in.epochs, &reads[i])
		}
		var src flow.Source[int64]
		switch kind {
		case 0:
			src = operators.Concat[int64](ps...)
		case 1:
			src = operators.Interleave[int64](ps, cycle, block, opts...)
		default:
			src = operators.Mix[int64](ps, weights, opts...)
		}
		return flow.From(src).
			Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par).
			Epochs(epochs).WithSeed(seed)
	}
	got := testutil.Items[int64](t, build(1, seed))

	runs := make([]*inputRuns, k)
	for i, in := range ins {
		runs[i] = &inputRuns{in: in, i: i}
	}
	byEpoch := splitEpochs(t, got, epochs)
	// want is the combination's item for row pos of run run of input i
	// at position j of epoch e.
	want := func(e, j int, x taken) flow.Item[int64] {
		it := runs[x.input].run(t, x.run)[x.pos]
		return flow.Item[int64]{Part: epoch.Part(int64(e), int64(j/per)), ID: combinedID(it.ID, x.input), Value: it.Value}
	}
	free := 0 // rows of epoch 0 before any input of Mix has run out
	for e, items := range byEpoch {
		if kind != 2 {
			bl := block
			if kind == 0 {
				cycle, bl = 1, math.MaxInt
			}
			oracle := interleaveOracle(t, runs, e, cycle, bl, policy)
			for j, x := range oracle {
				if j >= len(items) {
					t.Fatalf("epoch %d: %d rows, want %d (the next: input %d, run %d, row %d)", e, len(items), len(oracle), x.input, x.run, x.pos)
				}
				if w := want(e, j, x); !reflect.DeepEqual(items[j], w) {
					t.Fatalf("epoch %d, row %d: got %+v, want %+v (input %d, run %d, row %d)", e, j, items[j], w, x.input, x.run, x.pos)
				}
			}
			if len(items) > len(oracle) {
				t.Fatalf("epoch %d: %d rows, want %d; the first extra is %+v", e, len(items), len(oracle), items[len(oracle)])
			}
			continue
		}
		if f := checkMix(t, e, items, runs, weights, policy, want); e == 0 {
			free = f
		}
	}
	if kind == 2 {
		for i, w := range weights {
			if w == 0 && reads[i].Load() != 0 {
				t.Fatalf("input %d of weight 0 was read: %d rows", i, reads[i].Load())
			}
		}
		// Another seed, another epoch: another order of the inputs in the
		// first 60 rows or more, drawn while two inputs of weights at least
		// 1 (of at most 4) had rows: the same order by chance is out of
		// the question (below 0.68^60).
		var big []int
		for i, in := range ins {
			if weights[i] >= 1 && in.size*int(in.epochs) > 0 {
				big = append(big, i)
			}
		}
		if len(big) >= 2 && free >= 60 {
			inputsOf := func(items []flow.Item[int64]) []int64 {
				var xs []int64
				for _, it := range items[:min(free, len(items))] {
					xs = append(xs, it.Value/combBase)
				}
				return xs
			}
			if len(byEpoch) > 1 && slices.Equal(inputsOf(byEpoch[0]), inputsOf(byEpoch[1])) {
				t.Fatalf("epochs 0 and 1 draw the inputs in the same order: %v", inputsOf(byEpoch[0]))
			}
			other, err := matrixCollect[int64](build(1, seed+1))
			if err != nil {
				t.Fatal(err)
			}
			if o := splitEpochs(t, other, epochs); slices.Equal(inputsOf(o[0]), inputsOf(byEpoch[0])) {
				t.Fatalf("seeds %d and %d draw the inputs in the same order: %v", seed, seed+1, inputsOf(o[0]))
			}
		}
	}
	// The checks hold at every parallelism and for resumed runs:
	// they give what the serial run gives.
	matrixResume[int64](t, func(par int) *flow.Pipeline { return build(par, seed) },
		matrixOpts{stride: 1 + len(got)/10, stops: 2, chain: 1})
}

// cycleRestarts is about how many restarts an epoch of Interleave of
// every input makes under CycleExhausted.
func cycleRestarts(ins []combInput, block int) int {
	rounds := 0
	for _, in := range ins {
		rounds = max(rounds, (in.size*int(in.epochs)+block-1)/block)
	}
	restarts := 0
	for _, in := range ins {
		if n := in.size * int(in.epochs); n > 0 {
			restarts += rounds * block / n
		}
	}
	return restarts
}

// cycleDraws is about how many draws an epoch of Mix takes under
// CycleExhausted: until every input has given its rows once (or, with
// none, been drawn).
func cycleDraws(ins []combInput, weights []float64) float64 {
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	draws := 0.0
	for i, in := range ins {
		if weights[i] > 0 {
			// An input without rows is dropped when first drawn.
			draws = max(draws, float64(max(in.size*int(in.epochs), 1))*sum/weights[i])
		}
	}
	return draws
}

// checkMix checks epoch e of Mix against what its docs promise. It
// returns how many rows came before any input of positive weight and rows
// ran out: draws with the weights as given.
func checkMix(t *testing.T, e int, items []flow.Item[int64], runs []*inputRuns, weights []float64, policy exhausted, want func(e, j int, x taken) flow.Item[int64]) int {
	t.Helper()
	k := len(runs)
	// Each input's rows in its own order, run after run (restarts only
	// under CycleExhausted).
	run, pos, count := make([]int, k), make([]int, k), make([]int, k)
	whole := make([]bool, k) // the rows taken are whole runs
	for i := range run {
		run[i] = e
	}
	first := -1 // the position at which an input first gave its last row
	for j, it := range items {
		i := int(it.Value / combBase)
		if it.Value < 0 || i >= k {
			t.Fatalf("epoch %d, row %d: %+v is of no input", e, j, it)
		}
		if weights[i] == 0 {
			t.Fatalf("epoch %d, row %d: %+v of input %d, whose weight is 0", e, j, it, i)
		}
		for pos[i] == len(runs[i].run(t, run[i])) {
			if policy != cycleExhausted {
				t.Fatalf("epoch %d, row %d: %+v of input %d after its %d rows, under %v", e, j, it, i, pos[i], policy)
			}
			if pos[i] == 0 {
				t.Fatalf("epoch %d, row %d: input %d has no rows, and a run of it was restarted", e, j, i)
			}
			run[i], pos[i] = run[i]+1, 0
		}
		if w := want(e, j, taken{i, run[i], pos[i]}); !reflect.DeepEqual(it, w) {
			t.Fatalf("epoch %d, row %d: got %+v, want row %d of run %d of input %d, %+v", e, j, it, pos[i], run[i], i, w)
		}
		pos[i]++
		count[i]++
		if first < 0 && run[i] == e && pos[i] == len(runs[i].run(t, e)) {
			first = j
		}
	}
	for i := range k {
		whole[i] = pos[i] == len(runs[i].run(t, run[i]))
	}
	// The policy.
	var ended []int // inputs of positive weight whose rows taken are whole runs
	allRows := true // every input of positive weight has rows
	for i := range k {
		if weights[i] == 0 {
			continue
		}
		n := len(runs[i].run(t, e))
		allRows = allRows && n > 0
		if whole[i] {
			ended = append(ended, i)
		}
		switch policy {
		case dropExhausted:
			if count[i] != n {
				t.Fatalf("epoch %d, default policy: %d rows of input %d, want all %d", e, count[i], i, n)
			}
		case cycleExhausted:
			if count[i] < n {
				t.Fatalf("epoch %d, CycleExhausted: %d rows of input %d, want at least its %d", e, count[i], i, n)
			}
		}
	}
	if policy != dropExhausted && allRows && len(ended) == 0 {
		t.Fatalf("epoch %d, %v: the epoch ended with no input at the end of a run (rows %v)", e, policy, count)
	}
	if policy == stopExhausted && first >= 0 {
		// The first input to run out ends the epoch when next drawn, each
		// draw picking it with probability p: that R more rows come
		// first has probability (1-p)^R.
		i, sum := int(items[first].Value/combBase), 0.0
		for _, w := range weights {
			sum += w
		}
		if r := len(items) - first - 1; math.Pow(1-weights[i]/sum, float64(r)) < 1e-9 {
			t.Fatalf("epoch %d, StopExhausted: %d rows after input %d ran out, at weights %v", e, r, i, weights)
		}
	}
	// The shares before any input runs out: draws with probabilities
	// weights[i]/sum, as long as every input of positive weight has rows.
	n := len(items)
	if first >= 0 {
		n = first + 1
	}
	if !allRows || n < 60 {
		return n
	}
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	share := make([]int, k)
	for _, it := range items[:n] {
		share[it.Value/combBase]++
	}
	for i, c := range share {
		p := weights[i] / sum
		if sd := math.Sqrt(float64(n) * p * (1 - p)); math.Abs(float64(c)-float64(n)*p) > 6*sd+2 {
			t.Fatalf("epoch %d: input %d gave %d of the first %d rows, want %.1f ± %.1f (weights %v)", e, i, c, n, float64(n)*p, 6*sd+2, weights)
		}
	}
	return n
}

// splitEpochs splits a run's items by epoch, checking that epochs come in
// order and that there are no more than epochs.
func splitEpochs[T any](t *testing.T, items []flow.Item[T], epochs int64) [][]flow.Item[T] {
	t.Helper()
	out := make([][]flow.Item[T], epochs)
	for j, it := range items {
		e := it.Epoch()
		if e < 0 || e >= epochs || j > 0 && e < items[j-1].Epoch() {
			t.Fatalf("item %d (%+v): epoch %d, after epoch %d, of %d", j, it, e, items[max(j-1, 0)].Epoch(), epochs)
		}
		out[e] = append(out[e], it)
	}
	return out
}

// shuffleCase is a drawn slice for a shuffle: its values and row IDs, and
// the rows a filter before the shuffle keeps.
type shuffleCase struct {
	n, part, chunk int
	filter         bool
	before, after  bool // a parallel Map before and after the shuffle
	epochs         int64
	seed           uint64
}

func drawShuffleCase(r *rand.Rand) shuffleCase {
	pick := func(xs ...int) int { return xs[r.IntN(len(xs))] }
	return shuffleCase{
		n: pick(0, 1, 2, 5, 12, 40, 100, 300), part: pick(1, 3, 16, 64, 1000), chunk: pick(1, 2, 5, 1024),
		filter: r.IntN(3) == 0, before: r.IntN(2) == 0, after: r.IntN(2) == 0,
		epochs: int64(1 + r.IntN(3)), seed: r.Uint64(),
	}
}

func (c shuffleCase) String() string {
	return fmt.Sprintf("Slice(%d, part %d, chunk %d) filter %t, maps %t %t, epochs %d, seed %d", c.n, c.part, c.chunk, c.filter, c.before, c.after, c.epochs, c.seed)
}

// value is row k's value, and row its inverse.
func (shuffleCase) value(k int) int64 { return 5*int64(k) + 2 }
func (shuffleCase) row(v int64) int   { return int((v - 2) / 5) }

// kept reports whether the filter keeps row k.
func (c shuffleCase) kept(k int) bool { return !c.filter || k%3 != 1 }

// stream returns the rows that reach the shuffle, in order.
func (c shuffleCase) stream() []int {
	var rows []int
	for k := range c.n {
		if c.kept(k) {
			rows = append(rows, k)
		}
	}
	return rows
}

// pipeline builds slice → [filter] → [map] → stage → [map].
func (c shuffleCase) pipeline(par int, seed uint64, stage func() flow.Stage) *flow.Pipeline {
	vals := make([]int64, c.n)
	for k := range vals {
		vals[k] = c.value(k)
	}
	p := flow.From(sources.Slice(vals, sources.PartitionItems(c.part), sources.ChunkSize(c.chunk)))
	if c.filter {
		p = p.Via(operators.Filter(func(v int64) bool { return c.kept(c.row(v)) }))
	}
	if c.before {
		p = p.Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par)
	}
	p = p.Via(stage())
	if c.after {
		p = p.Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par)
	}
	return p.Epochs(c.epochs).WithSeed(seed)
}

// checkPermutation checks that items are the rows of stream, each once,
// with the slice's ID for it, and returns each item's row.
func (c shuffleCase) checkPermutation(t *testing.T, e int, items []flow.Item[int64], stream []int) []int {
	t.Helper()
	if len(items) != len(stream) {
		t.Fatalf("epoch %d: %d rows, want %d", e, len(items), len(stream))
	}
	seen := make(map[int]bool, len(items))
	rows := make([]int, len(items))
	for j, it := range items {
		k := c.row(it.Value)
		if c.value(k) != it.Value || k < 0 || k >= c.n || !c.kept(k) || seen[k] {
			t.Fatalf("epoch %d, position %d: value %d is no row of the input, or a row seen before", e, j, it.Value)
		}
		if id := rowid.Ordinal(uint64(k)).Combine(rowid.FromString("slice")); it.ID != id {
			t.Fatalf("epoch %d, position %d: row %d has ID %v, want its own %v", e, j, k, it.ID, id)
		}
		if it.Epoch() != int64(e) {
			t.Fatalf("epoch %d, position %d: partition %d of epoch %d", e, j, it.Part, it.Epoch())
		}
		seen[k], rows[j] = true, k
	}
	return rows
}

// checkOrders checks that the order of epoch 0 differs from epoch 1's and
// from epoch 0's with another seed.
func checkOrders(t *testing.T, byEpoch [][]flow.Item[int64], other []flow.Item[int64], epochs int64) {
	t.Helper()
	same := func(a, b []flow.Item[int64]) bool {
		return slices.EqualFunc(a, b, func(x, y flow.Item[int64]) bool {
			return x.Value == y.Value && epoch.Partition(x.Part) == epoch.Partition(y.Part)
		})
	}
	if len(byEpoch) > 1 && same(byEpoch[0], byEpoch[1]) {
		t.Fatalf("epochs 0 and 1 give the same order")
	}
	if same(byEpoch[0], splitEpochs(t, other, epochs)[0]) {
		t.Fatalf("another seed gives the same order")
	}
}

// checkRuns checks a shuffle case's runs other than the serial one: when
// varied (randomness enough that equal orders mean a fault), that epoch
// 0's order differs from epoch 1's and from epoch 0's under another seed
// (checkOrders); and through matrixResume, that every parallelism and
// resumed run gives the serial run's items.
func checkRuns(t *testing.T, build func(par int, seed uint64) *flow.Pipeline, seed uint64, epochs int64, byEpoch [][]flow.Item[int64], items int, varied bool) {
	t.Helper()
	if varied {
		other, err := matrixCollect[int64](build(1, seed+1))
		if err != nil {
			t.Fatal(err)
		}
		checkOrders(t, byEpoch, other, epochs)
	}
	matrixResume[int64](t, func(par int) *flow.Pipeline { return build(par, seed) },
		matrixOpts{stride: 1 + items/10, stops: 2, chain: 1})
}

func fuzzIndexShuffle(t *testing.T, r *rand.Rand) {
	c := drawShuffleCase(r)
	c.filter, c.before = false, false
	per := []int{0, 1, 3, 64}[r.IntN(4)]
	parallel := r.IntN(2) == 0
	t.Logf("IndexShuffle(%s), part %d, parallel %t", c, per, parallel)
	build := func(par int, seed uint64) *flow.Pipeline {
		vals := make([]int64, c.n)
		for k := range vals {
			vals[k] = c.value(k)
		}
		var opts []operators.Common
		if per > 0 {
			opts = append(opts, operators.PartitionItems(per))
		}
		p := flow.From(operators.IndexShuffle[int64](sources.Slice(vals, sources.PartitionItems(c.part), sources.ChunkSize(c.chunk)), opts...))
		if parallel {
			p = p.Parallel(par)
		}
		if c.after {
			p = p.Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par)
		}
		return p.Epochs(c.epochs).WithSeed(seed)
	}
	if per == 0 {
		per = 4096
	}
	got := testutil.Items[int64](t, build(1, c.seed))
	byEpoch := splitEpochs(t, got, c.epochs)
	for e, items := range byEpoch {
		c.checkPermutation(t, e, items, c.stream())
		for j, it := range items {
			if b := epoch.Partition(it.Part); b != int64(j/per) {
				t.Fatalf("epoch %d, position %d: partition %d, want %d", e, j, b, j/per)
			}
		}
	}
	checkRuns(t, build, c.seed, c.epochs, byEpoch, len(got), c.n >= 12)
}

func fuzzShuffle(t *testing.T, r *rand.Rand) {
	c := drawShuffleCase(r)
	window := []int{1, 2, 3, 10, 50, 1000}[r.IntN(6)]
	per := []int{0, 1, 3, 64}[r.IntN(4)]
	t.Logf("Shuffle(%d, part %d) of %s", window, per, c)
	build := func(par int, seed uint64) *flow.Pipeline {
		return c.pipeline(par, seed, func() flow.Stage {
			if per > 0 {
				return operators.Shuffle[int64](window, operators.PartitionItems(per))
			}
			return operators.Shuffle[int64](window)
		})
	}
	if per == 0 {
		per = 4096
	}
	got := testutil.Items[int64](t, build(1, c.seed))
	byEpoch := splitEpochs(t, got, c.epochs)
	stream := c.stream()
	at := make(map[int]int, len(stream)) // a row's position in the stream
	for i, k := range stream {
		at[k] = i
	}
	for e, items := range byEpoch {
		rows := c.checkPermutation(t, e, items, stream)
		for j, it := range items {
			if b := epoch.Partition(it.Part); b != int64(j/per) {
				t.Fatalf("epoch %d, position %d: partition %d, want %d", e, j, b, j/per)
			}
			// When position j is given out, the buffer has taken in at
			// most the first j+window rows.
			if at[rows[j]] > j+window-1 {
				t.Fatalf("epoch %d, position %d: row %d, the stream's %d-th, is beyond the window of %d", e, j, rows[j], at[rows[j]], window)
			}
		}
		if window == 1 && !slices.Equal(rows, stream) {
			t.Fatalf("epoch %d: window 1 changed the order: %v", e, rows)
		}
	}
	checkRuns(t, build, c.seed, c.epochs, byEpoch, len(got), window >= 2 && len(stream) >= 40)
}

func fuzzBlockShuffle(t *testing.T, r *rand.Rand) {
	c := drawShuffleCase(r)
	k := 1 + r.IntN(4)
	t.Logf("BlockShuffle(%d) of %s", k, c)
	build := func(par int, seed uint64) *flow.Pipeline {
		return c.pipeline(par, seed, func() flow.Stage { return operators.BlockShuffle[int64](k) })
	}
	got := testutil.Items[int64](t, build(1, c.seed))
	byEpoch := splitEpochs(t, got, c.epochs)
	stream := c.stream()
	for e, items := range byEpoch {
		rows := c.checkPermutation(t, e, items, stream)
		for j, it := range items {
			// Input partition q (the slice's partition q, filtered or
			// not) goes to output partitions q to q+k-1.
			q, o := int64(rows[j]/c.part), epoch.Partition(it.Part)
			if o < q || o > q+int64(k)-1 {
				t.Fatalf("epoch %d, position %d: row %d of input partition %d in output partition %d, k = %d", e, j, rows[j], q, o, k)
			}
			if j > 0 && o < epoch.Partition(items[j-1].Part) {
				t.Fatalf("epoch %d, position %d: output partition %d after %d", e, j, o, epoch.Partition(items[j-1].Part))
			}
		}
	}
	// Bits of randomness in an epoch's order: log2(k) for each row's
	// output partition, and with k = 1 the shuffles of the partitions in
	// place.
	bits := float64(len(stream)) * math.Log2(float64(k))
	if k == 1 {
		per := map[int]int{}
		for _, row := range stream {
			per[row/c.part]++
		}
		for _, m := range per {
			lg, _ := math.Lgamma(float64(m + 1))
			bits += lg / math.Ln2
		}
	}
	checkRuns(t, build, c.seed, c.epochs, byEpoch, len(got), bits >= 40)
}
