package flow

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"strings"

	"github.com/rowflow/rowflow/internal/epoch"
	"github.com/rowflow/rowflow/rowid"
)

// # Combining pipelines
//
// [Concat], [Interleave] and [Mix] make one source of several pipelines of
// the same type, each with its own source and stages. Each input runs as a
// run of its own, all of them at once, each bounded as any run is; the
// combination takes their items in serial order, so its output depends
// only on the inputs' data, the seed and the epoch, never on which input
// is faster. Leaving the combination early stops every input's run and
// waits for its goroutines.
//
// Row IDs: the rows of input i get their ID combined with
// rowid.Ordinal(i).Combine(rowid.FromString("rowflow input")), so rows of
// different inputs never share an ID even when the inputs read the same
// data. Partition numbers: the combination numbers its own partitions of
// [PartitionRows] rows, 0, 1, 2, … within each epoch.
//
// Epochs: in the combination's epoch e, input i runs its epochs from
// e·n on, n being its own epoch count (1 unless set with Epochs), so each
// input reshuffles with every epoch of the combination. With
// [CycleExhausted] its c-th restart within epoch e runs from (e+c)·n on.
//
// Resuming needs, besides each input's own position, only counts: for
// Mix, the number of draws made in the epoch (one 32-bit output of its
// stream per row delivered, plus one per draw that found its input run
// out); for Interleave, the slot and the rows taken in the current block;
// and for both, the restarts of each input and which inputs were dropped.

// Exhausted says what a combination does when one of its inputs runs out
// of rows.
type Exhausted int

const (
	// DropExhausted drops the input and goes on with the others; Mix
	// renormalises the weights of those left. The epoch ends when every
	// input has run out, so every row of every input appears once. The
	// default.
	DropExhausted Exhausted = iota
	// StopExhausted ends the combination's epoch when the first input runs
	// out (tf.data's stop_on_empty_dataset).
	StopExhausted
	// CycleExhausted restarts the input in its next epochs; the
	// combination's epoch ends when every input has run out at least once
	// (Hugging Face's "all_exhausted"), so the smaller inputs are
	// repeated. An input that gives no rows at all is dropped.
	CycleExhausted
)

func (e Exhausted) String() string {
	switch e {
	case DropExhausted:
		return "DropExhausted"
	case StopExhausted:
		return "StopExhausted"
	case CycleExhausted:
		return "CycleExhausted"
	}
	return fmt.Sprintf("Exhausted(%d)", int(e))
}

// CombineOption configures [Concat], [Interleave] and [Mix]:
// [OnExhausted] (Interleave and Mix), [PartitionRows].
type CombineOption interface{ combineOption() }

type combineOpt struct {
	name  string
	apply func(*combineConfig) error
}

func (combineOpt) combineOption() {}

type combineConfig struct {
	policy Exhausted
	per    int
}

// OnExhausted sets what happens when an input runs out. The default is
// DropExhausted.
func OnExhausted(e Exhausted) CombineOption {
	return combineOpt{"OnExhausted", func(c *combineConfig) error {
		if e < DropExhausted || e > CycleExhausted {
			return fmt.Errorf("OnExhausted(%v): unknown policy", e)
		}
		c.policy = e
		return nil
	}}
}

// PartitionRows sets how many rows make one of the combination's output
// partitions (default 4096).
func PartitionRows(n int) CombineOption {
	return combineOpt{"PartitionRows", func(c *combineConfig) error {
		if n < 1 {
			return fmt.Errorf("PartitionRows(%d): must be at least 1", n)
		}
		c.per = n
		return nil
	}}
}

// inputID returns the ID that the row IDs of a combination's input i are
// combined with.
func inputID(i int) rowid.ID {
	return rowid.Ordinal(uint64(i)).Combine(rowid.FromString("rowflow input"))
}

// Concat returns a source of the rows of the inputs one after the other:
// all of input 0, then all of input 1, and so on. Each input is a pipeline
// without a sink whose output type is T.
func Concat[T any](inputs ...*Pipeline) Source[T] {
	return newCombined[T]("concat", inputs, nil)
}

// Interleave returns a source that takes rows from cycle inputs at a
// time, block rows from each in turn (tf.data's interleave with
// cycle_length and block_length): rows 0..block-1 of the first open input,
// then of the second, and so on round. When an input runs out, under
// DropExhausted the next input not yet opened takes its place in the
// round; CycleExhausted needs every input open (cycle = len(inputs)).
// cycle < 1 means every input; block < 1 is an error.
func Interleave[T any](inputs []*Pipeline, cycle, block int, opts ...CombineOption) Source[T] {
	c := newCombined[T]("interleave", inputs, opts)
	if cycle < 1 || cycle > len(inputs) {
		cycle = len(inputs)
	}
	c.cycle, c.block = cycle, block
	switch {
	case c.err != nil:
	case block < 1:
		c.err = fmt.Errorf("flow: interleave: block length %d: must be at least 1", block)
	case c.cfg.policy == CycleExhausted && cycle < len(inputs):
		c.err = fmt.Errorf("flow: interleave: CycleExhausted needs every input open, but the cycle is %d of %d", cycle, len(inputs))
	}
	return c
}

// Mix returns a source that draws each row from input i with probability
// weights[i] / sum(weights) (tf.data's sample_from_datasets, Grain's
// mixtures): the draws come from the PCG stream of (seed, epoch), one
// 32-bit output a row, with the weights rounded to multiples of
// sum/2^32. Weights must be finite and not negative, and one at least
// positive; an input of weight 0 is never read.
func Mix[T any](inputs []*Pipeline, weights []float64, opts ...CombineOption) Source[T] {
	c := newCombined[T]("mix", inputs, opts)
	if c.err == nil {
		c.weights, c.err = fixedWeights(weights, len(inputs))
	}
	return c
}

// fixedWeights turns weights into integers summing to about 2^32.
func fixedWeights(weights []float64, n int) ([]uint64, error) {
	if len(weights) != n {
		return nil, fmt.Errorf("flow: mix: %d weights for %d inputs", len(weights), n)
	}
	sum := 0.0
	for i, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("flow: mix: weight %d is %v", i, w)
		}
		sum += w
	}
	if sum == 0 {
		return nil, errors.New("flow: mix: every weight is 0")
	}
	fixed := make([]uint64, n)
	for i, w := range weights {
		if w > 0 {
			fixed[i] = max(uint64(w/sum*(1<<32)), 1)
		}
	}
	return fixed, nil
}

// combined is the source that Concat, Interleave and Mix return.
type combined[T any] struct {
	kind         string
	inputs       []*Pipeline
	weights      []uint64 // mix only
	cycle, block int      // interleave and concat
	cfg          combineConfig
	err          error
}

func newCombined[T any](kind string, inputs []*Pipeline, opts []CombineOption) *combined[T] {
	c := &combined[T]{kind: kind, inputs: inputs, cfg: combineConfig{per: 4096}, cycle: 1, block: math.MaxInt}
	for _, o := range opts {
		co, ok := o.(combineOpt)
		if !ok || co.apply == nil {
			c.err = fmt.Errorf("flow: %s: nil option", kind)
			return c
		}
		if err := co.apply(&c.cfg); err != nil {
			c.err = fmt.Errorf("flow: %s: %w", kind, err)
			return c
		}
	}
	if len(inputs) == 0 {
		c.err = fmt.Errorf("flow: %s of no inputs", kind)
	}
	for i, in := range inputs {
		if c.err != nil {
			break
		}
		if in == nil {
			c.err = fmt.Errorf("flow: %s: input %d is nil", kind, i)
		} else if in.world != 0 {
			c.err = fmt.Errorf("flow: %s: input %d has a rank of its own (WithRank(%d, %d)); say the rank once, on the pipeline that reads the %s", kind, i, in.rank, in.world, kind)
		} else if err := checkIter[T](in); err != nil {
			c.err = fmt.Errorf("%s input %d: %w", kind, i, err)
		}
	}
	return c
}

func (c *combined[T]) Info() Info {
	// Ranked: every input runs as the run's rank and divides its own rows
	// (see runFrom), or its run fails.
	return Info{Name: c.kind, Serial: "it takes its inputs' rows in one sequence", Settings: c.settings(), Ranked: true}
}

// settings is what a fingerprint of a pipeline reading c covers besides
// its name: the options and each input's fingerprint.
func (c *combined[T]) settings() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s policy=%d rows=%d cycle=%d block=%d weights=%v", c.kind, c.cfg.policy, c.cfg.per, c.cycle, c.block, c.weights)
	for _, in := range c.inputs {
		if in != nil {
			fmt.Fprintf(&b, " input=%s", in.env().Fingerprint)
		}
	}
	return b.String()
}

// Err reports a bad input, weight or option.
func (c *combined[T]) Err() error { return c.err }

func (c *combined[T]) Partitions(ctx context.Context, env Env) iter.Seq2[Partition[T], error] {
	return func(yield func(Partition[T], error) bool) {
		if c.err != nil {
			yield(Partition[T]{}, c.err)
			return
		}
		m := newMerger(c, env)
		defer m.close()
		first := int64(0)
		var h *history
		if rc := env.ck; rc != nil {
			m.track = rc.tracker != nil
			if m.track {
				h = rc.tracker.registerSource(c.kind)
			}
			if env.Resume != nil {
				st, err := decodeMergerState(c.kind, env.Resume)
				if err == nil {
					err = m.resume(ctx, st)
				}
				if err != nil {
					yield(Partition[T]{}, err)
					return
				}
				first = epoch.Partition(st.Part)
			}
		}
		for b := first; b < 1<<epoch.Bits; b++ {
			if h != nil {
				st, err := m.snapshot(epoch.Part(env.Epoch, b))
				if err != nil {
					yield(Partition[T]{}, err)
					return
				}
				env.ck.tracker.sourceAt(h, st.Part, st)
			}
			done := make(chan struct{})
			ended := false
			p := Partition[T]{Part: b, Read: func(ctx context.Context, out Emitter[T]) error {
				defer close(done)
				var err error
				ended, err = m.fill(ctx, b, out)
				return err
			}}
			if !yield(p, nil) {
				return
			}
			// Partitions are read one at a time, in order: the next one
			// starts where this one ended.
			select {
			case <-done:
			case <-ctx.Done():
				return
			}
			if ended {
				return
			}
		}
	}
}
