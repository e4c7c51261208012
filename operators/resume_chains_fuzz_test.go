package operators_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// FuzzResumeChains checks the resume promise on chains of one to three
// stateful stages drawn at random, at the places a resume is most likely
// to go wrong. A seed draws the source (a slice, a generator, an index
// shuffle, EvenRanks of a slice at a rank, a memory Cache of a filtered
// slice, or Concat, Interleave or Mix of slices with each exhaustion
// policy), an optional Filter in front that empties whole partitions, the
// stateful stages (Shuffle, BlockShuffle, Batch, BucketByLength,
// BucketPool, TableBucket with every remainder policy, Pack and
// PackFields with a window, ReduceEvery, ReduceRuns, Take; a batcher
// sometimes with Steps), each turned back into int64s by a Map that may
// run in parallel, the epochs and the seed.
//
// Checked against the uninterrupted run at parallelism 1 (its items:
// values, row IDs, partitions, order): the runs at parallelism 2 and 3
// give it; a checkpoint the run took (JSON-encoded and decoded) after the
// first item, the last item, the last item of each epoch, the first item
// of each epoch and at most 40 others resumes, at parallelism 1 to 3, read
// with Items and with a cursor set of 1 to 3 cursors through
// Consolidate, to exactly the rest of the run; At(e, k) at the first,
// last and one-past-the-last item of each epoch gives the rest of the run
// from there; and a cursor set of n cursors stopped at random quotas
// takes a checkpoint whose resume with m cursors hands out the items not
// handed out before, each once, and a chain of such sets, each resumed
// from the checkpoint of the one before, hands out the run: the items of
// all sets, stable-sorted by partition, are the run.
func FuzzResumeChains(f *testing.F) {
	for i := range testutil.FuzzSeeds(12) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 3)
	}
	// Chains of two or three stateful stages, drawn from the seeds above.
	for _, seed := range []uint64{
		1906020184575502134,  // IndexShuffle → Filter → PackFields → PackFields
		7924047624999685065,  // Interleave, cycling → Pack → ReduceRuns
		15062771745125364481, // Interleave → Pack → PackFields
		7866759047390173081,  // EvenRanks → TableBucket → Pack
		17696826856965360274, // IndexShuffle → Filter → Shuffle → Pack → ReduceEvery
		18424861784229853936, // IndexShuffle → Pack → ReduceRuns → TableBucket
		11378832529843500805, // Concat → Pack → Shuffle → Take
		11250731375974360219, // Concat → Filter → BucketPool → BucketByLength
		5325398801289503573,  // Mix, cycling → TableBucket → TableBucket
		92694865739326288,    // Concat → Filter → ReduceEvery → Shuffle → BucketPool
		6746062367688676596,  // IndexShuffle → Filter → BucketPool → Shuffle → PackFields
		8802065995613016996,  // Mix, stopping → Filter → BucketPool
		15698111806650531858, // Generate → Filter → BlockShuffle → BucketPool → Shuffle
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		c := newResumeChain(seed)
		t.Logf("pipeline: %s", c)
		checkResumeChain(t, c, seed)
	})
}

// resumeChain is a drawn pipeline of int64s: build makes it at a
// parallelism.
type resumeChain struct {
	desc  []string
	build func(par int) *flow.Pipeline
}

func (c *resumeChain) String() string { return strings.Join(c.desc, " → ") }

// foldInts folds xs into one int64 that differs for different lists.
func foldInts[E int32 | int64](acc int64, xs []E) int64 {
	acc = acc*1_000_003 + int64(len(xs))
	for _, x := range xs {
		acc = acc*31 + int64(x)
	}
	return acc
}

// chainFields is what PackFields packs: tokens and labels cut together.
type chainFields struct {
	Tokens []int32 `collate:"tokens,tokens"`
	Labels []int64 `collate:"labels,pad=-7"`
}

// newResumeChain draws a pipeline from seed.
func newResumeChain(seed uint64) *resumeChain {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	pick := func(xs ...int) int { return xs[r.IntN(len(xs))] }
	c := &resumeChain{}
	n := pick(0, 9, 40, 90, 90, 150)
	sliceOpts := func() []sources.SliceOption {
		return []sources.SliceOption{sources.PartitionItems(pick(1, 4, 8, 16)), sources.ChunkSize(pick(1, 3, 1024))}
	}
	var src func(par int) flow.Source[int64]
	srcParallel := true
	rank, world := 0, 1
	switch r.IntN(8) {
	case 0:
		opts := sliceOpts()
		src = func(int) flow.Source[int64] { return sources.Slice(matrixInts(n), opts...) }
		c.desc = append(c.desc, fmt.Sprintf("Slice(%d)", n))
	case 1:
		opts := sliceOpts()
		src = func(int) flow.Source[int64] {
			return sources.Generate(int64(n), func(i int64) (int64, error) { return i*7 + 1, nil }, opts...)
		}
		c.desc = append(c.desc, fmt.Sprintf("Generate(%d)", n))
	case 2:
		opts, part := sliceOpts(), pick(1, 6, 32)
		src = func(int) flow.Source[int64] {
			return operators.IndexShuffle(sources.Slice(matrixInts(n), opts...), operators.PartitionItems(part))
		}
		c.desc = append(c.desc, fmt.Sprintf("IndexShuffle(Slice(%d), %d)", n, part))
		srcParallel = false
	case 3:
		opts, pol := sliceOpts(), []uneven{dropUneven, padUneven, allowUneven}[r.IntN(3)]
		rank, world = r.IntN(3), 3
		src = func(int) flow.Source[int64] {
			return operators.EvenRanks(sources.Slice(matrixInts(n), opts...), nil, evenOptions(pol)...)
		}
		c.desc = append(c.desc, fmt.Sprintf("EvenRanks(Slice(%d), %v, rank %d of 3)", n, pol, rank))
		srcParallel = false
	case 4:
		opts := sliceOpts()
		src = func(par int) flow.Source[int64] {
			inner := flow.From(sources.Slice(matrixInts(n), opts...)).
				Via(operators.Filter(func(v int64) bool { return v%5 != 2 })).Parallel(par)
			return operators.Cache[int64](inner)
		}
		c.desc = append(c.desc, fmt.Sprintf("Cache(Slice(%d).Filter)", n))
		srcParallel = false
	default:
		k := 2 + r.IntN(2)
		sizes := make([]int, k)
		opts := make([][]sources.SliceOption, k)
		for i := range sizes {
			sizes[i], opts[i] = pick(0, 2, 11, 30, 60), sliceOpts()
		}
		inputs := func() []*flow.Pipeline {
			ins := make([]*flow.Pipeline, k)
			for i := range ins {
				base := int64(i) * 10000
				ins[i] = flow.From(sources.Slice(matrixInts(sizes[i]), opts[i]...)).
					Via(operators.Map(func(v int64) (int64, error) { return v + base, nil }))
			}
			return ins
		}
		ex := []exhausted{dropExhausted, stopExhausted, cycleExhausted}[r.IntN(3)]
		part := pick(1, 5, 20)
		switch r.IntN(3) {
		case 0:
			src = func(int) flow.Source[int64] { return operators.Concat[int64](inputs()...) }
			c.desc = append(c.desc, fmt.Sprintf("Concat%v", sizes))
		case 1:
			cycle, block := pick(0, 1, 2), pick(1, 3)
			if ex == cycleExhausted {
				cycle = 0
			}
			src = func(int) flow.Source[int64] {
				return operators.Interleave[int64](inputs(), cycle, block, withExhausted(ex, operators.PartitionItems(part))...)
			}
			c.desc = append(c.desc, fmt.Sprintf("Interleave%v(cycle %d, block %d, %v, part %d)", sizes, cycle, block, ex, part))
		default:
			weights := make([]float64, k)
			for i := range weights {
				weights[i] = float64(1 + r.IntN(3))
			}
			src = func(int) flow.Source[int64] {
				return operators.Mix[int64](inputs(), weights, withExhausted(ex, operators.PartitionItems(part))...)
			}
			c.desc = append(c.desc, fmt.Sprintf("Mix%v(%v, %v, part %d)", sizes, weights, ex, part))
		}
		srcParallel = false
	}
	parSrc := srcParallel && r.IntN(2) == 0
	if parSrc {
		c.desc[0] += ".Parallel"
	}
	// A filter that drops runs of 8 consecutive values, so whole
	// partitions of up to 8 items, and sometimes everything.
	filter := pick(0, 0, 0, 1, 1, 1, 2)
	switch filter {
	case 1:
		c.desc = append(c.desc, "Filter(drops v/8%3 == 1).Parallel")
	case 2:
		c.desc = append(c.desc, "Filter(drops all).Parallel")
	}

	type stage struct {
		name string
		add  func(p *flow.Pipeline, par int) *flow.Pipeline
	}
	// back turns a stage's output into int64s, on par workers or one.
	back := func(parallel bool) func(p *flow.Pipeline, par int) *flow.Pipeline {
		return func(p *flow.Pipeline, par int) *flow.Pipeline {
			if parallel {
				return p.Parallel(par)
			}
			return p
		}
	}
	length := func(v int64) int { return int((v%7 + 7) % 7) }
	seqOf := func(v int64) []int32 {
		s := make([]int32, length(v)+int((v/7%3+3)%3))
		for i := range s {
			s[i] = int32(v*10) + int32(i)
		}
		return s
	}
	var stages []stage
	for range 1 + r.IntN(3) {
		par := r.IntN(2) == 0
		rem := []remainder{keepRemainder, dropRemainder, padRemainder}[r.IntN(3)]
		part := pick(0, 1, 3)
		withPart := func(name string) string {
			if part > 0 {
				name += fmt.Sprintf(", part %d", part)
			}
			if par {
				name += " → Map.Parallel"
			}
			return name
		}
		steps := int64(0)
		if r.IntN(5) == 0 {
			steps = int64(pick(1, 2))
		}
		stepName := func(name string) string {
			if steps > 0 {
				name += fmt.Sprintf(", Steps(%d)", steps)
			}
			return name
		}
		rowsBack := func(p *flow.Pipeline, par2 int) *flow.Pipeline {
			p = p.Via(operators.Map(func(b operators.Rows[int64]) (int64, error) {
				return foldInts(int64(b.Padding), b.Values), nil
			}))
			return back(par)(p, par2)
		}
		switch r.IntN(12) {
		case 0:
			w := pick(1, 3, 20)
			stages = append(stages, stage{withPart(fmt.Sprintf("Shuffle(%d)", w)), func(p *flow.Pipeline, _ int) *flow.Pipeline {
				if part > 0 {
					return p.Via(operators.Shuffle[int64](w, operators.PartitionItems(part)))
				}
				return p.Via(operators.Shuffle[int64](w))
			}})
		case 1:
			k := pick(1, 2, 3)
			stages = append(stages, stage{fmt.Sprintf("BlockShuffle(%d)", k), func(p *flow.Pipeline, _ int) *flow.Pipeline {
				return p.Via(operators.BlockShuffle[int64](k))
			}})
		case 2:
			size := pick(1, 3, 5)
			stages = append(stages, stage{withPart(stepName(fmt.Sprintf("Batch(%d, %v)", size, rem))), func(p *flow.Pipeline, par2 int) *flow.Pipeline {
				opts := withRemainder[operators.BatchOption](rem)
				if part > 0 {
					opts = append(opts, operators.PartitionItems(part))
				}
				if steps > 0 {
					opts = append(opts, operators.Steps(steps, nil))
				}
				return rowsBack(p.Via(operators.Batch[int64](size, opts...)), par2)
			}})
		case 3:
			budget := pick(0, 12)
			bucketRem := rem
			if budget > 0 && rem == padRemainder {
				bucketRem = keepRemainder
			}
			stages = append(stages, stage{withPart(stepName(fmt.Sprintf("BucketByLength(budget %d, %v)", budget, bucketRem))), func(p *flow.Pipeline, par2 int) *flow.Pipeline {
				opts := withRemainder(bucketRem, operators.Buckets([]int{2, 5}, []int{3, 2, 2}))
				if budget > 0 {
					opts = append(opts, operators.TokenBudget(budget))
				}
				if part > 0 {
					opts = append(opts, operators.PartitionItems(part))
				}
				if steps > 0 {
					opts = append(opts, operators.Steps(steps, nil))
				}
				return rowsBack(p.Via(operators.BucketByLength(length, opts...)), par2)
			}})
		case 4:
			size, pool := pick(1, 3), pick(1, 3)
			stages = append(stages, stage{withPart(stepName(fmt.Sprintf("BucketPool(%d, %d, %v)", size, pool, rem))), func(p *flow.Pipeline, par2 int) *flow.Pipeline {
				opts := withRemainder[operators.BatchOption](rem)
				if part > 0 {
					opts = append(opts, operators.PartitionItems(part))
				}
				if steps > 0 {
					opts = append(opts, operators.Steps(steps, nil))
				}
				return rowsBack(p.Via(operators.BucketPool(size, pool, length, opts...)), par2)
			}})
		case 5:
			size, lo, hi, target := pick(2, 3), 1+r.IntN(2), 2+r.IntN(3), pick(0, 8)
			stages = append(stages, stage{withPart(stepName(fmt.Sprintf("TableBucket(%d, Tables(%d, %d, %d), %v)", size, lo, max(lo, hi), target, rem))), func(p *flow.Pipeline, par2 int) *flow.Pipeline {
				opts := withRemainder(rem, operators.Tables(lo, max(lo, hi), target))
				if part > 0 {
					opts = append(opts, operators.PartitionItems(part))
				}
				if steps > 0 {
					opts = append(opts, operators.Steps(steps, nil))
				}
				return rowsBack(p.Via(operators.TableBucket[int64](size, opts...)), par2)
			}})
		case 6, 7:
			L, w, ov := pick(3, 8), pick(1, 2, 4), []overlong{splitOverlong, dropOverlong}[r.IntN(2)]
			fields := r.IntN(2) == 0
			name := "Pack"
			if fields {
				name = "PackFields"
			}
			stages = append(stages, stage{withPart(stepName(fmt.Sprintf("%s(%d, window %d, %v)", name, L, w, ov))), func(p *flow.Pipeline, par2 int) *flow.Pipeline {
				opts := withOverlong(ov, operators.Window(w))
				if part > 0 {
					opts = append(opts, operators.PartitionItems(part))
				}
				if steps > 0 {
					opts = append(opts, operators.Steps(steps, nil))
				}
				if !fields {
					p = p.Via(operators.Map(func(v int64) ([]int32, error) { return seqOf(v), nil })).
						Via(operators.Pack[int32](L, -1, opts...)).
						Via(operators.Map(func(b operators.Packed[int32]) (int64, error) {
							return foldInts(foldInts(foldInts(0, b.Tokens), b.Segments), b.Positions), nil
						}))
					return back(par)(p, par2)
				}
				p = p.Via(operators.Map(func(v int64) (chainFields, error) {
					s := seqOf(v)
					l := make([]int64, len(s))
					for i := range l {
						l[i] = v + int64(i)
					}
					return chainFields{Tokens: s, Labels: l}, nil
				})).
					Via(operators.PackFields[chainFields](L, opts...)).
					Via(operators.Map(func(b operators.PackedColumns) (int64, error) {
						acc := foldInts(foldInts(0, b.Segments), b.Offsets)
						for _, col := range b.Columns {
							switch d := col.Data.(type) {
							case []int32:
								acc = foldInts(acc, d)
							case []int64:
								acc = foldInts(acc, d)
							}
						}
						return acc, nil
					}))
				return back(par)(p, par2)
			}})
		case 8:
			k := pick(1, 2, 4)
			stages = append(stages, stage{withPart(fmt.Sprintf("ReduceEvery(%d, %v)", k, min(rem, dropRemainder))), func(p *flow.Pipeline, par2 int) *flow.Pipeline {
				opts := withRemainder[operators.ReduceOption](min(rem, dropRemainder))
				if part > 0 {
					opts = append(opts, operators.PartitionItems(part))
				}
				return back(par)(p.Via(operators.ReduceEvery(k, func(acc, v int64) (int64, error) { return acc*37 + v, nil }, opts...)).
					Via(operators.Map(func(v int64) (int64, error) { return v, nil })), par2)
			}})
		case 9:
			k := int64(pick(2, 5))
			stages = append(stages, stage{withPart(fmt.Sprintf("ReduceRuns(/%d)", k)), func(p *flow.Pipeline, par2 int) *flow.Pipeline {
				var opts []operators.ReduceOption
				if part > 0 {
					opts = append(opts, operators.PartitionItems(part))
				}
				return back(par)(p.Via(operators.ReduceRuns(func(v int64) int64 { return v / k }, func(acc, v int64) (int64, error) { return acc*37 + v, nil }, opts...)).
					Via(operators.Map(func(v int64) (int64, error) { return v, nil })), par2)
			}})
		default:
			k := int64(pick(0, 7, 50, 300))
			stages = append(stages, stage{fmt.Sprintf("Take(%d)", k), func(p *flow.Pipeline, _ int) *flow.Pipeline {
				return p.Via(operators.Take[int64](k))
			}})
		}
	}
	for _, s := range stages {
		c.desc = append(c.desc, s.name)
	}
	epochs, wseed := int64(1+r.IntN(3)), r.Uint64()
	c.desc = append(c.desc, fmt.Sprintf("Epochs(%d).WithSeed(%d)", epochs, wseed))
	c.build = func(par int) *flow.Pipeline {
		p := flow.From(src(par))
		if parSrc {
			p = p.Parallel(par)
		}
		switch filter {
		case 1:
			p = p.Via(operators.Filter(func(v int64) bool { return v/8%3 != 1 })).Parallel(par)
		case 2:
			p = p.Via(operators.Filter(func(int64) bool { return false })).Parallel(par)
		}
		for _, s := range stages {
			p = s.add(p, par)
		}
		p = p.Epochs(epochs).WithSeed(wseed)
		if world > 1 {
			p = p.WithRank(rank, world)
		}
		return p
	}
	return c
}

// trackedChain reads p with a tracker and returns its items, the
// checkpoint after each (JSON-encoded and decoded), and the run's error.
func trackedChain(t *testing.T, p *flow.Pipeline) ([]flow.Item[int64], []flow.Checkpoint, error) {
	t.Helper()
	tr := new(flow.Tracker)
	var items []flow.Item[int64]
	var cks []flow.Checkpoint
	for it, err := range flow.Items[int64](context.Background(), p.Checkpoints(tr)) {
		if err != nil {
			return items, cks, err
		}
		items = append(items, it)
		ck, err := tr.Checkpoint()
		if err != nil {
			t.Fatalf("checkpoint after item %d: %v", len(items)-1, err)
		}
		b, err := json.Marshal(ck)
		if err != nil {
			t.Fatal(err)
		}
		var back flow.Checkpoint
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		cks = append(cks, back)
	}
	return items, cks, nil
}

// chainItems reads p with Items; a run that fails gives the error.
func chainItems(p *flow.Pipeline) ([]flow.Item[int64], error) {
	return matrixCollect[int64](p)
}

// chainConsolidated reads p with a cursor set of n cursors through
// Consolidate.
func chainConsolidated(p *flow.Pipeline, n int) ([]flow.Item[int64], error) {
	s, err := flow.Cursors[int64](context.Background(), p, n)
	if err != nil {
		return nil, err
	}
	var got []flow.Item[int64]
	for it, err := range s.Consolidate() {
		if err != nil {
			s.Close()
			return got, err
		}
		got = append(got, it)
	}
	return got, s.Close()
}

func checkResumeChain(t *testing.T, c *resumeChain, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 77))
	want, cks, wantErr := trackedChain(t, c.build(1))
	if wantErr != nil && !strings.Contains(wantErr.Error(), "fewer than Steps") {
		t.Fatalf("uninterrupted run: %v", wantErr)
	}
	// same fails the test unless got and err are want[from:] and a
	// failure where the uninterrupted run failed.
	same := func(what string, got []flow.Item[int64], err error, from int) {
		t.Helper()
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%s: error %v, want %v", what, err, wantErr)
		}
		if !itemsEqual(got, want[from:]) {
			t.Fatalf("%s: %s", what, firstDiff(got, want[from:]))
		}
	}
	for _, par := range []int{2, 3} {
		got, err := chainItems(c.build(par))
		same(fmt.Sprintf("parallelism %d", par), got, err, 0)
	}
	// The positions: first, last, around each epoch's boundaries, and a few
	// at random.
	pos := map[int]bool{}
	if len(want) > 0 {
		pos[0], pos[len(want)-1] = true, true
		for i := 1; i < len(want); i++ {
			if want[i].Epoch() != want[i-1].Epoch() {
				pos[i-1], pos[i] = true, true
			}
		}
		stride := 1 + len(want)/40
		for k := r.IntN(stride); k < len(want); k += stride {
			pos[k] = true
		}
	}
	ks := make([]int, 0, len(pos))
	for k := range pos {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	for _, k := range ks {
		b, _ := json.Marshal(cks[k])
		par, n := 1+r.IntN(3), 1+r.IntN(3)
		got, err := chainItems(c.build(par).Resume(cks[k]))
		same(fmt.Sprintf("resumed after item %d of %d at parallelism %d from %s", k, len(want), par, b), got, err, k+1)
		got, err = chainConsolidated(c.build(par).Resume(cks[k]), n)
		if err != nil && n > 1 && len(got) <= len(want)-k-1 {
			// Several cursors fail the run at once on a failure upstream
			// of the last parallel stage: the items before it may not all
			// come.
			got = append(got, want[k+1+len(got):]...)
		}
		same(fmt.Sprintf("resumed after item %d of %d with %d cursors at parallelism %d from %s", k, len(want), n, par, b), got, err, k+1)
	}
	// At(e, k) at each epoch's first, last and one-past-the-last item.
	first := map[int64]int{}
	count := map[int64]int{}
	for i, it := range want {
		if _, ok := first[it.Epoch()]; !ok {
			first[it.Epoch()] = i
		}
		count[it.Epoch()]++
	}
	for e, f := range first {
		for _, k := range []int{0, count[e] - 1, count[e]} {
			from := f + k
			if k == count[e] {
				from = len(want)
			}
			par := 1 + r.IntN(3)
			got, err := chainItems(c.build(par).Resume(flow.At(e, int64(k))))
			if k == count[e] {
				// Documented: an epoch without item k gives no items.
				if len(got) != 0 || err != nil && wantErr == nil {
					t.Fatalf("At(%d, %d) past the epoch's end at parallelism %d: %d items, %v", e, k, par, len(got), err)
				}
				continue
			}
			same(fmt.Sprintf("At(%d, %d) at parallelism %d", e, k, par), got, err, from)
		}
	}
	// Cursor sets of 1 to 3 cursors, each stopped at random quotas and
	// resumed from its checkpoint by the next, the last read to the end.
	for range 2 {
		if wantErr != nil {
			break
		}
		quotas := make([][]int, 1+r.IntN(3))
		for j := range quotas {
			n := 1 + r.IntN(3)
			quotas[j] = make([]int, n)
			for i := range n {
				quotas[j][i] = r.IntN(len(want)/n + 2)
				if j == len(quotas)-1 {
					quotas[j][i] = -1
				}
			}
		}
		checkCursorChain(t, c, want, r.IntN(3), quotas)
	}
}

// checkCursorChain reads c with a chain of cursor sets: set j has
// len(quotas[j]) cursors, cursor i stopping after quotas[j][i] items (at
// the end if below 0) or where it waits for good; then the set's
// checkpoint is taken, and set j+1 resumes from it. The last set reads to
// the end. The items of all sets, stable-sorted by partition, must be
// want.
func checkCursorChain(t *testing.T, c *resumeChain, want []flow.Item[int64], par int, quotas [][]int) {
	t.Helper()
	var read [][]flow.Item[int64]
	var cks []string
	var failed error
	synctest.Test(t, func(t *testing.T) {
		var from *flow.Checkpoint
		for j, quota := range quotas {
			p := c.build((par+j)%3 + 1)
			if from != nil {
				p = p.Resume(*from)
			}
			tr := new(flow.Tracker)
			s, err := flow.Cursors[int64](context.Background(), p.Checkpoints(tr), len(quota))
			if err != nil {
				failed = err
				return
			}
			release := make(chan struct{})
			read = append(read, readCursors(s, quota, release)...)
			ck, err := tr.Checkpoint()
			close(release)
			cerr := s.Close()
			synctest.Wait()
			if err != nil {
				failed = fmt.Errorf("set %d: checkpoint: %w", j, err)
				return
			}
			if cerr != nil {
				failed = fmt.Errorf("set %d: %w", j, cerr)
				return
			}
			b, _ := json.Marshal(ck)
			cks = append(cks, string(b))
			var back flow.Checkpoint
			if err := json.Unmarshal(b, &back); err != nil {
				failed = err
				return
			}
			from = &back
		}
	})
	if failed != nil {
		t.Fatalf("cursor sets at quotas %v: %v\ncheckpoints %s", quotas, failed, strings.Join(cks, "\n"))
	}
	var union []flow.Item[int64]
	for _, items := range read {
		union = append(union, items...)
	}
	slices.SortStableFunc(union, func(a, b flow.Item[int64]) int {
		switch {
		case a.Part < b.Part:
			return -1
		case a.Part > b.Part:
			return 1
		}
		return 0
	})
	if !itemsEqual(union, want) {
		t.Fatalf("cursor sets at quotas %v handed out, sorted by partition, %s\ncheckpoints %s",
			quotas, firstDiff(union, want), strings.Join(cks, "\n"))
	}
}

// readCursors reads cursor i of s on a goroutine of its own until it has
// handed out quota[i] items (all, if below 0) or ends, and returns once
// every cursor has stopped or waits for good (s runs in a synctest
// bubble). A cursor that stops at its quota stays open until release is
// closed.
func readCursors(s *flow.CursorSet[int64], quota []int, release <-chan struct{}) [][]flow.Item[int64] {
	cs := s.Cursors()
	got := make([][]flow.Item[int64], len(cs))
	var mu sync.Mutex
	for i, cur := range cs {
		next, stop := iter.Pull2(cur.All())
		go func() {
			defer stop()
			for quota[i] < 0 || len(got[i]) < quota[i] {
				it, err, ok := next()
				if !ok || err != nil {
					return
				}
				mu.Lock()
				got[i] = append(got[i], it)
				mu.Unlock()
			}
			if release != nil {
				<-release // hold the cursor where it stopped
			}
		}()
	}
	synctest.Wait()
	mu.Lock()
	defer mu.Unlock()
	out := make([][]flow.Item[int64], len(got))
	for i := range got {
		out[i] = slices.Clone(got[i])
	}
	return out
}
