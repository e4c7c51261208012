package operators

import (
	"fmt"
	"strings"

	"github.com/rowflow/rowflow/flow"
)

// The stages that regroup rows take functional options. Each stage has an
// option interface of its own ([BatchOption], [ReduceOption],
// [BucketOption], [PackOption], [TableOption], [PadOption]); an option
// implements the interfaces of the stages that take it, so giving a stage
// an option it does not take fails to compile. Options are checked when
// the stage is built: a bad value is kept by the stage and fails the
// pipeline that uses it, before anything runs.

// BatchOption configures [Batch] and [BucketPool]: [DropRemainder],
// [PadRemainder], [Steps], [PartitionItems], [Named].
type BatchOption interface{ batchOption() }

// ReduceOption configures [ReduceEvery] and [ReduceRuns]:
// [DropRemainder] (ReduceEvery only), [PartitionItems], [Named].
type ReduceOption interface{ reduceOption() }

// BucketOption configures [BucketByLength]: [Buckets], [TokenBudget],
// [DropRemainder], [PadRemainder], [PartitionItems], [Named].
type BucketOption interface{ bucketOption() }

// PackOption configures [Pack] and [PackFields]: [Window],
// [DropOverlong], [PartitionItems], [Named].
type PackOption interface{ packOption() }

// TableOption configures [TableBucket]: [Tables], [DropRemainder],
// [PadRemainder], [PartitionItems], [Named].
type TableOption interface{ tableOption() }

// PadOption configures [Pad], and [Collate] for every slice field whose
// tag does not say otherwise: [PadLeft], [PadMultiple], [PadLength].
type PadOption interface{ padOption() }

// shapeConfig holds every option of the regrouping stages; each stage
// reads the fields its options set.
type shapeConfig struct {
	name      string
	last      remainder
	lastSet   bool
	perPart   int
	bounds    []int // bucket upper bounds, exclusive, increasing
	sizes     []int // batch size per bucket, len(bounds)+1
	budget    int   // tokens per batch, 0 for none
	window    int
	overlong  overlong
	minParts  int
	maxParts  int
	target    int
	padLeft   bool
	padMult   int
	padLength int
	steps     int64 // see Steps; 0: none
	account   *StepAccount
}

// settings returns the text of a stage's Info.Settings: head, the
// stage's own parameters, then every option. Whether a remainder option
// was given does not count, only the policy that holds.
func (c shapeConfig) settings(head string) string {
	c.lastSet = false
	steps := c.steps
	c.steps, c.account = 0, nil
	// steps, the last field, is printed apart and only when set, so that
	// the settings (and the fingerprints) of stages without it read as
	// they did before it existed.
	s := strings.Replace(fmt.Sprintf("%s %+v", head, c), " steps:0 account:<nil>}", "}", 1)
	if steps > 0 {
		s += fmt.Sprintf(" steps=%d", steps)
	}
	return s
}

// option is the one representation of every option; the types below give
// it the marker methods of the stages that take it.
type option struct {
	name  string
	apply func(*shapeConfig) error
}

func (o option) set(c *shapeConfig) error {
	if o.apply == nil {
		return fmt.Errorf("operators: zero option")
	}
	return o.apply(c)
}

// settable is what every option type is underneath.
type settable interface{ set(*shapeConfig) error }

// ownOpt is an option that one family of constructors takes beyond the
// common ones (the shuffles' MaxBytes, the combinations' StopExhausted and
// CycleExhausted): it sets the family's config C.
type ownOpt[C any] struct {
	name  string
	apply func(*C) error
}

func (o ownOpt[C]) setOwn(c *C) error {
	if o.apply == nil {
		return fmt.Errorf("zero option")
	}
	return o.apply(c)
}

// configureOwn applies opts to c, a family's config: its own options, and
// the common ones to shape, c's shapeConfig. It returns the first error.
func configureOwn[C, O any](c *C, shape *shapeConfig, opts []O) error {
	for _, o := range opts {
		var err error
		switch o := any(o).(type) {
		case interface{ setOwn(*C) error }:
			err = o.setOwn(c)
		case settable:
			err = o.set(shape)
		default:
			return fmt.Errorf("operators: %s: nil option", shape.name)
		}
		if err != nil {
			return fmt.Errorf("operators: %s: %w", shape.name, err)
		}
	}
	return nil
}

// configure applies opts to c and returns the first error.
func configure[O any](c *shapeConfig, opts []O) error {
	for _, o := range opts {
		s, ok := any(o).(settable)
		if !ok {
			return fmt.Errorf("operators: %s: nil option", c.name)
		}
		if err := s.set(c); err != nil {
			return fmt.Errorf("operators: %s: %w", c.name, err)
		}
	}
	return nil
}

// remainder is what a stage does with a batch that is not full when the
// stream ends: keep it (the default), [DropRemainder] or [PadRemainder].
type remainder int

const (
	remainderKeep remainder = iota
	remainderDrop
	remainderPad
)

// remainderOpt is taken by Batch, BucketPool, BucketByLength and TableBucket:
// the stages that can pad their last batch.
type remainderOpt struct{ option }

func (remainderOpt) batchOption()  {}
func (remainderOpt) bucketOption() {}
func (remainderOpt) tableOption()  {}

// lastOpt is taken by those and by the reductions.
type lastOpt struct{ remainderOpt }

func (lastOpt) reduceOption() {}

// remainderOption returns the option named name that sets the remainder
// policy r.
func remainderOption(name string, r remainder) lastOpt {
	return lastOpt{remainderOpt{option{name, func(c *shapeConfig) error {
		c.last, c.lastSet = r, true
		return nil
	}}}}
}

// DropRemainder drops the batch (or group, or bucket) that is only partly
// filled when the stream ends: its rows are not delivered. The default
// keeps the partial batch as it is. Of DropRemainder and [PadRemainder],
// the last one given wins. [ReduceRuns], whose last run ends with the
// stream, refuses it: the stage fails the pipeline that uses it.
func DropRemainder() interface {
	BatchOption
	ReduceOption
	BucketOption
	TableOption
} {
	return remainderOption("DropRemainder", remainderDrop)
}

// PadRemainder fills the batch (or bucket) that is only partly filled when
// the stream ends up to its size with padding members: zero values with
// the zero row ID, counted in [Rows.Padding]. The default keeps the
// partial batch as it is. Of [DropRemainder] and PadRemainder, the last
// one given wins. The reductions, which have nothing to pad with, do not
// take it.
func PadRemainder() interface {
	BatchOption
	BucketOption
	TableOption
} {
	// Not a lastOpt: the reductions, which do not take it, cannot be
	// given it even through a type assertion.
	return remainderOption("PadRemainder", remainderPad).remainderOpt
}

// commonOpt is taken by every regrouping stage.
type commonOpt struct{ option }

func (commonOpt) batchOption()   {}
func (commonOpt) reduceOption()  {}
func (commonOpt) bucketOption()  {}
func (commonOpt) packOption()    {}
func (commonOpt) tableOption()   {}
func (commonOpt) shuffleOption() {}
func (commonOpt) combineOption() {}

// Common is an option every regrouping stage takes, and the shuffles and
// the combinations ([Interleave], [Mix]) too.
type Common interface {
	BatchOption
	ReduceOption
	BucketOption
	PackOption
	TableOption
	ShuffleOption
	CombineOption
}

// PartitionItems sets how many output items make one output partition of
// a regrouping stage, a shuffle or a combination (the default is 16 for
// stages that emit batches and packed rows, 1024 for reductions, 4096 for
// the shuffles and the combinations). Output partitions are what a Parallel
// stage after it hands out to its workers.
func PartitionItems(n int) Common {
	return commonOpt{option{"PartitionItems", func(c *shapeConfig) error {
		if n < 1 {
			return fmt.Errorf("PartitionItems(%d): must be at least 1", n)
		}
		c.perPart = n
		return nil
	}}}
}

// Named names the stage in errors and sets the fixed ID from which it
// folds the member IDs of each output item: rowid.FromString(name). Two
// regrouping stages whose outputs are mixed should have different names.
// The default is the stage's kind: "batch", "reduce", "bucket-by-length",
// "pack", "table-bucket". The shuffles and the combinations, whose items
// keep their IDs, take it as a name only (defaults "shuffle",
// "block-shuffle", "index-shuffle", "interleave", "mix").
func Named(name string) Common {
	return commonOpt{option{"Named", func(c *shapeConfig) error {
		if name == "" {
			return fmt.Errorf("Named(\"\"): empty name")
		}
		c.name = name
		return nil
	}}}
}

// overlong is what [Pack] does with a sequence longer than a packed row:
// split it (the default) or [DropOverlong].
type overlong int

const (
	overlongSplit overlong = iota
	overlongDrop
)

// regroupState is what a regrouping stage's processor reports in a
// checkpoint (see flow.Checkpointer) and resumes from (flow.Env.Resume): a
// few integers, never the rows it holds. Fed its input from From on, a
// processor resumed from it gives exactly what the uninterrupted stage gave
// after the checkpoint.
type regroupState struct {
	// Epoch is the epoch being delivered.
	Epoch int64
	// From is where the input restarts, the checkpoint's input mark: the
	// oldest row the stage holds, or the next row to come if it holds
	// none. Rows before it were all given out.
	From flow.Mark
	// Held is, for BucketByLength, each bucket's oldest row (or where the
	// input stood, for an empty bucket): a row before its bucket's mark
	// was given out. From is the oldest of them. For Pack it lists the
	// sequences in the window, in window order.
	Held []flow.Mark `json:",omitempty"`
	// Row lists, for Pack, the sequences of the row being filled, in
	// segment order. Next is where Pack's input stood and Piece how many
	// pieces of the sequence at Next (see [Pack]) were handled:
	// every other sequence before Next was given out.
	Row   []flow.Mark `json:",omitempty"`
	Next  flow.Mark   `json:",omitzero"`
	Piece int         `json:",omitempty"`
	// Output is the index within the epoch of the output partition being
	// delivered and Delivered how many of its items were delivered.
	Output, Delivered int64
	// Group is the number within the epoch of the table (TableBucket) or
	// pool (BucketPool) being filled or given out, and Done how many of
	// its batches were given out.
	Group int64 `json:",omitempty"`
	Done  int64 `json:",omitempty"`
}

// check reports a state no processor reports.
func (s *regroupState) check(name string) error {
	bad := s.Epoch < 0 || s.Output < 0 || s.Delivered < 0 || s.Group < 0 || s.Done < 0 || s.Piece < 0
	for _, m := range append(append([]flow.Mark{s.From, s.Next}, s.Held...), s.Row...) {
		bad = bad || m.Part < 0 || m.Row < 0
	}
	if bad {
		return fmt.Errorf("operators: %s: resume state %+v: negative field", name, *s)
	}
	return nil
}
