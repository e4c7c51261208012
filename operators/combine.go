package operators

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"iter"
	"math"
	"reflect"
	"strings"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/internal/run/epoch"
	"github.com/rowflow/rowflow/internal/run/strictjson"
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
// [PartitionItems] rows (default 4096), 0, 1, 2, … within each epoch.
//
// Ranks: every input runs as the run's rank (flow.Pipeline.WithRank), so
// each divides its own rows; an input with a rank of its own is refused.
//
// Epochs: in the combination's epoch e, input i runs its epochs from
// e·n on, n being its own epoch count (1 unless set with Epochs), so each
// input reshuffles with every epoch of the combination. With
// [CycleExhausted] its c-th restart within epoch e runs from (e+c)·n on,
// each epoch planned and shuffled as that epoch of a longer run would be.
//
// Checkpoints: a combination keeps state across its partitions (its Info
// is Serial), which it gives with each partition in a followed run
// (flow.Partition.State): each input's own checkpoint, so every input
// resumes from its position through its own stages, and only counts
// besides: for Mix, the number of draws made in the epoch (one 32-bit
// output of its stream per row delivered, plus one per draw that found its
// input run out); for Interleave, the slot and the rows taken in the
// current block; and for both, the restarts of each input and which inputs
// were dropped.

// exhausted is what a combination does when one of its inputs runs out of
// rows: drop the input (the default), [StopExhausted] or [CycleExhausted].
type exhausted int

const (
	exhaustedDrop exhausted = iota
	exhaustedStop
	exhaustedCycle
)

// CombineOption configures [Interleave] and [Mix]: [StopExhausted],
// [CycleExhausted], [PartitionItems] (default 4096 rows), [Named] (a name
// only; the defaults are "interleave" and "mix").
type CombineOption interface{ combineOption() }

// combineConfig holds a combination's options.
type combineConfig struct {
	shapeConfig
	policy exhausted
}

// combineOpt is an option of the combinations only.
type combineOpt struct{ ownOpt[combineConfig] }

func (combineOpt) combineOption() {}

// exhaustedOption returns the option that sets the policy e, named name.
func exhaustedOption(name string, e exhausted) CombineOption {
	return combineOpt{ownOpt[combineConfig]{name, func(c *combineConfig) error {
		c.policy = e
		return nil
	}}}
}

// StopExhausted ends the combination's epoch when the first input runs
// out (tf.data's stop_on_empty_dataset). An input runs out when
// [Interleave]'s turn or [Mix]'s draw finds it without a row left. The
// default drops the input and goes on with the others (Mix renormalises
// the weights of those left), so the epoch ends when every input has run
// out and every row of every input appears once. Of StopExhausted and
// [CycleExhausted], the last one given wins.
func StopExhausted() CombineOption { return exhaustedOption("StopExhausted", exhaustedStop) }

// CycleExhausted restarts an input that runs out in its next epochs; the
// combination's epoch ends when every input has run out at least once
// (Hugging Face's "all_exhausted"), so the smaller inputs are repeated.
// An input that gives no rows at all is dropped. The epoch is as long as
// the input that runs out last needs: with [Mix], an input of n rows and
// weight w among weights summing to W takes about n·W/w draws, so a large
// input with a tiny weight makes a very long epoch, every other input
// repeated all through it. The default drops an input that runs out and
// goes on with the others, every row of every input appearing once. Of
// [StopExhausted] and CycleExhausted, the last one given wins.
func CycleExhausted() CombineOption { return exhaustedOption("CycleExhausted", exhaustedCycle) }

// inputID returns the ID that the row IDs of a combination's input i are
// combined with.
func inputID(i int) rowid.ID {
	return rowid.Ordinal(uint64(i)).Combine(rowid.FromString("rowflow input"))
}

// Concat returns a source of the rows of the inputs one after the other:
// all of input 0, then all of input 1, and so on. Each input is a pipeline
// without a sink whose output type is T.
func Concat[T any](inputs ...*flow.Pipeline) flow.Source[T] {
	return newCombined[T]("concat", inputs, nil)
}

// Interleave returns a source that takes rows from cycle inputs at a
// time, block rows from each in turn (tf.data's interleave with
// cycle_length and block_length): rows 0..block-1 of the first open input,
// then of the second, and so on round. An input runs out when its turn
// finds no row left, so one whose last row ends a block runs out at its
// next turn. By default that turn ends, and the next input not
// yet opened takes its place in the round, its first block coming when the
// round is back at the slot, as in tf.data (inputs of 1, 3 and 3 rows,
// cycle 2, block 1: a0 b0 b1 c0 b2 c1 c2); once every input has been
// opened, the slot leaves the round. Under [CycleExhausted] the input's
// next run goes on with the turn, the rows the turn took before counting
// towards its block; CycleExhausted needs every input open (cycle =
// len(inputs)). cycle < 1, or more than the inputs, means every input;
// block < 1 is an error.
func Interleave[T any](inputs []*flow.Pipeline, cycle, block int, opts ...CombineOption) flow.Source[T] {
	c := newCombined[T]("interleave", inputs, opts)
	if cycle < 1 || cycle > len(inputs) {
		cycle = len(inputs)
	}
	c.cycle, c.block = cycle, block
	switch {
	case c.err != nil:
	case block < 1:
		c.err = fmt.Errorf("operators: %s: block length %d: must be at least 1", c.cfg.name, block)
	case c.cfg.policy == exhaustedCycle && cycle < len(inputs):
		c.err = fmt.Errorf("operators: %s: CycleExhausted needs every input open, but the cycle is %d of %d", c.cfg.name, cycle, len(inputs))
	}
	return c
}

// Mix returns a source that draws each row from input i with probability
// weights[i] / sum(weights) (tf.data's sample_from_datasets, Grain's
// mixtures): the draws come from the PCG stream of (seed, epoch), one
// 32-bit output a draw (a row, or a draw that finds its input run out),
// with the weights rounded to multiples of sum/2^32. Weights must be
// finite and not negative, and one at least positive; an input of weight
// 0 is never read.
func Mix[T any](inputs []*flow.Pipeline, weights []float64, opts ...CombineOption) flow.Source[T] {
	c := newCombined[T]("mix", inputs, opts)
	if c.err == nil {
		c.weights, c.err = fixedWeights(c.cfg.name, weights, len(inputs))
	}
	return c
}

// fixedWeights turns weights into integers summing to about 2^32.
func fixedWeights(name string, weights []float64, n int) ([]uint64, error) {
	if len(weights) != n {
		return nil, fmt.Errorf("operators: %s: %d weights for %d inputs", name, len(weights), n)
	}
	sum := 0.0
	for i, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("operators: %s: weight %d is %v", name, i, w)
		}
		sum += w
	}
	if sum == 0 {
		return nil, fmt.Errorf("operators: %s: every weight is 0", name)
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
	inputs       []*flow.Pipeline
	weights      []uint64 // mix only
	cycle, block int      // interleave and concat
	cfg          combineConfig
	err          error
}

func newCombined[T any](kind string, inputs []*flow.Pipeline, opts []CombineOption) *combined[T] {
	c := &combined[T]{kind: kind, inputs: inputs, cfg: combineConfig{shapeConfig: shapeConfig{name: kind, perPart: 4096}}, cycle: 1, block: math.MaxInt}
	if c.err = configureOwn(&c.cfg, &c.cfg.shapeConfig, opts); c.err != nil {
		return c
	}
	if len(inputs) == 0 {
		c.err = fmt.Errorf("operators: %s of no inputs", c.cfg.name)
	}
	for i, in := range inputs {
		if c.err != nil {
			break
		}
		c.err = c.checkInput(i, in)
	}
	return c
}

// checkInput reports why input i cannot be read by the combination.
func (c *combined[T]) checkInput(i int, in *flow.Pipeline) error {
	name := c.cfg.name
	if in == nil {
		return fmt.Errorf("operators: %s: input %d is nil", name, i)
	}
	if err := in.Err(); err != nil {
		return fmt.Errorf("%s input %d: %w", name, i, err)
	}
	// The rank is said once: an input runs as the run's rank (see
	// runFrom), so one with a rank of its own is refused.
	if err := in.WithRank(0, 1).Err(); err != nil {
		return fmt.Errorf("operators: %s: input %d has a rank of its own; say the rank once, on the pipeline that reads the %s (%w)", name, i, name, err)
	}
	if got, want := linkage.OutType(in), reflect.TypeFor[T](); got != want {
		return fmt.Errorf("operators: %s input %d: the pipeline produces %v but the %s takes %v", name, i, got, name, want)
	}
	return nil
}

func (c *combined[T]) Info() flow.Info {
	// Ranked: every input runs as the run's rank and divides its own rows
	// (see runFrom), or its run fails.
	return flow.Info{Name: c.cfg.name, Serial: "it takes its inputs' rows in one sequence", Settings: c.settings(), Ranked: true}
}

// settings is what a fingerprint of a pipeline reading c covers besides
// its name: the options and each input's fingerprint.
func (c *combined[T]) settings() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s policy=%d rows=%d cycle=%d block=%d weights=%v", c.kind, c.cfg.policy, c.cfg.perPart, c.cycle, c.block, c.weights)
	for _, in := range c.inputs {
		if in != nil {
			fmt.Fprintf(&b, " input=%s", in.Fingerprint())
		}
	}
	return b.String()
}

// Err reports a bad input, weight or option.
func (c *combined[T]) Err() error { return c.err }

// DataFingerprint fingerprints the inputs' data (see
// flow.DataFingerprinter): "" if none of them reports any.
func (c *combined[T]) DataFingerprint(ctx context.Context, env flow.Env) (string, error) {
	if c.err != nil {
		return "", c.err
	}
	h := sha256.New()
	known := false
	for i, in := range c.inputs {
		fp, err := in.DataFingerprint(ctx)
		if err != nil {
			return "", fmt.Errorf("operators: %s input %d: %w", c.cfg.name, i, err)
		}
		known = known || fp != ""
		fmt.Fprintf(h, "input %d %q\n", i, fp)
	}
	if !known {
		return "", nil
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// Partitions yields the epoch's output partitions one at a time: each
// starts where the one before it ended. In a followed run each carries
// the merger's state at its start; a resumed run starts at the partition
// its state names.
func (c *combined[T]) Partitions(ctx context.Context, env flow.Env) iter.Seq2[flow.Partition[T], error] {
	return func(yield func(flow.Partition[T], error) bool) {
		if c.err != nil {
			yield(flow.Partition[T]{}, c.err)
			return
		}
		m := newMerger(c, env)
		defer m.close()
		first := int64(0)
		m.track = env.Followed
		if env.Resume != nil {
			var st mergerState
			err := strictjson.Decode(env.Resume, &st)
			if err != nil {
				err = fmt.Errorf("operators: %s: resuming: %w", c.cfg.name, err)
			} else {
				err = m.resume(ctx, st)
			}
			if err != nil {
				yield(flow.Partition[T]{}, err)
				return
			}
			first = epoch.Partition(st.Part)
		}
		for b := first; b < 1<<epoch.Bits; b++ {
			p := flow.Partition[T]{Part: b}
			if m.track {
				st, err := m.snapshot(epoch.Part(env.Epoch, b))
				if err != nil {
					yield(flow.Partition[T]{}, err)
					return
				}
				p.State = st
			}
			done := make(chan struct{})
			ended := false
			p.Read = func(ctx context.Context, out flow.Emitter[T]) error {
				defer close(done)
				var err error
				ended, err = m.fill(ctx, b, out)
				return err
			}
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
