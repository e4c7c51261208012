package operators

import (
	"context"
	"fmt"
	"slices"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// BucketByLength returns a stage that batches rows of similar length
// together, as tf.data's bucket_by_sequence_length and fairseq2's
// bucket_by_length do, so that padded batches waste little. length gives
// a row's length (its token count, say).
//
// [Buckets] sets the bucket boundaries and a batch size per bucket: a row
// of length l goes to the first bucket whose boundary exceeds l, or to
// the last bucket. [TokenBudget] caps a batch's padded size instead, or as
// well: a bucket is emitted before a row would make rows × longest row
// exceed the budget (a row longer than the budget makes a batch of its
// own; an empty row counts as one token). One of the two is required. A
// negative length fails the run, naming the row. A bucket is emitted, as one item whose value is a [Rows], as soon as it
// is full, so the output order depends on the serial input order only.
//
// When the stream ends, the partly filled buckets are emitted in the
// order of their oldest rows (the default), dropped ([DropRemainder]) or
// padded to their bucket's batch size ([PadRemainder], with Buckets only;
// with a TokenBudget as well, only as far as the budget allows at the
// batch's longest row). Batch IDs follow [Rows]. The stage
// is serial; its output partitions hold [PartitionItems] batches (default
// 16). Memory is the rows held in the buckets: at most the sum of the
// batch sizes, or the budget per bucket.
//
// To be resumed, the stage needs, per bucket, the [flow.Mark] of its oldest
// row: on replay from the oldest of these marks, a row is in the bucket
// exactly when it is not before its bucket's mark.
func BucketByLength[T any](length func(T) int, opts ...BucketOption) flow.Stage {
	return flow.NewStage[T, Rows[T]](newBucketOp(length, opts))
}

func newBucketOp[T any](length func(T) int, opts []BucketOption) *bucketOp[T] {
	op := &bucketOp[T]{length: length, cfg: shapeConfig{name: "bucket-by-length", perPart: 16}}
	op.err = op.check(configure(&op.cfg, opts))
	if op.err == nil {
		op.err = nilFunc(op.cfg.name, length == nil)
	}
	return op
}

func (b *bucketOp[T]) check(err error) error {
	switch c := &b.cfg; {
	case err != nil:
		return err
	case c.sizes == nil && c.budget == 0:
		return fmt.Errorf("operators: %s: needs Buckets or TokenBudget", c.name)
	case c.last == remainderPad && c.sizes == nil:
		return fmt.Errorf("operators: %s: PadRemainder needs Buckets to know the batch size", c.name)
	}
	return nil
}

// bucketOpt is taken by BucketByLength.
type bucketOpt struct{ option }

func (bucketOpt) bucketOption() {}

// Buckets sets the bucket boundaries, increasing, and the batch size of
// each bucket: len(batchSizes) must be len(boundaries)+1. Bucket i holds
// rows with boundaries[i-1] <= length < boundaries[i]; the last bucket
// holds the longer rows.
func Buckets(boundaries []int, batchSizes []int) BucketOption {
	return bucketOpt{option{"Buckets", func(c *shapeConfig) error {
		if len(batchSizes) != len(boundaries)+1 {
			return fmt.Errorf("Buckets: %d boundaries need %d batch sizes, got %d", len(boundaries), len(boundaries)+1, len(batchSizes))
		}
		for i := 1; i < len(boundaries); i++ {
			if boundaries[i] <= boundaries[i-1] {
				return fmt.Errorf("Buckets: boundaries %v do not increase", boundaries)
			}
		}
		for _, s := range batchSizes {
			if s < 1 {
				return fmt.Errorf("Buckets: batch size %d is less than 1", s)
			}
		}
		c.bounds, c.sizes = slices.Clone(boundaries), slices.Clone(batchSizes)
		return nil
	}}}
}

// TokenBudget caps each batch at tokens padded tokens: its rows times its
// longest row, where a row counts as at least one token, so that a batch
// of empty rows holds at most tokens rows.
func TokenBudget(tokens int) BucketOption {
	return bucketOpt{option{"TokenBudget", func(c *shapeConfig) error {
		if tokens < 1 {
			return fmt.Errorf("TokenBudget(%d): must be at least 1", tokens)
		}
		c.budget = tokens
		return nil
	}}}
}

type bucketOp[T any] struct {
	length func(T) int
	cfg    shapeConfig
	err    error
}

func (b *bucketOp[T]) Info() flow.Info {
	return flow.Info{Name: b.cfg.name, Serial: "it groups rows across partitions", Settings: b.cfg.settings("")}
}

// Err reports a bad option.
func (b *bucketOp[T]) Err() error { return b.err }

func (b *bucketOp[T]) NewProcessor(env flow.Env) flow.Processor[T, Rows[T]] {
	if b.err != nil {
		return failed[T, Rows[T]]{b.err}
	}
	p := &bucketProc[T]{op: b, base: rowid.FromString(b.cfg.name),
		buckets: make([]bucket[T], len(b.cfg.bounds)+1), out: outParts[Rows[T]]{per: b.cfg.perPart, steps: newStepLimit(&b.cfg, env, nil)}}
	r, err := resumeRegroup(b.cfg.name, env, &p.in, &p.out)
	if err == nil && r != nil && len(r.Held) > len(p.buckets) {
		err = fmt.Errorf("operators: %s: resume state with %d buckets, the stage has %d", b.cfg.name, len(r.Held), len(p.buckets))
	}
	if err != nil {
		return failed[T, Rows[T]]{err}
	}
	p.held = heldOf(r, len(p.buckets))
	return p
}

// bucket is one bucket's pending batch.
type bucket[T any] struct {
	rows    Rows[T]
	longest int
	oldest  flow.Mark
}

type bucketProc[T any] struct {
	held    []flow.Mark // per bucket, the resume point: rows before it were delivered
	op      *bucketOp[T]
	base    rowid.ID
	in      inCursor
	buckets []bucket[T]
	out     outParts[Rows[T]]
}

// index returns the bucket of a row of length l.
func (p *bucketProc[T]) index(l int) int {
	i, found := slices.BinarySearch(p.op.cfg.bounds, l) // l+1 would wrap at math.MaxInt
	if found {
		i++ // a bound is exclusive
	}
	return i
}

func (p *bucketProc[T]) Process(ctx context.Context, c flow.Chunk[T], out flow.Emitter[Rows[T]]) (err error) {
	defer c.Release()
	if err := epochStart(ctx, p, &p.out, out, c.Part); err != nil {
		return err
	}
	at := p.in.at(c.Part)
	k := 0
	defer guard(&c, &k, &err)
	for ; k < len(c.Values); k++ {
		v := c.Values[k]
		l := p.op.length(v)
		if l < 0 {
			return negativeLength(&c, k, l)
		}
		i := p.index(l)
		if p.held != nil && before(flow.Mark{Part: at.Part, Row: at.Row + int64(k)}, p.held[i]) {
			continue // delivered before the resume point
		}
		b := &p.buckets[i]
		if budget := p.op.cfg.budget; budget > 0 && len(b.rows.Values) > 0 && overBudget(len(b.rows.Values)+1, max(b.longest, l, 1), budget) {
			p.in.to(at, k)
			if err := p.emit(ctx, out, b); err != nil {
				return err
			}
		}
		if len(b.rows.Values) == 0 {
			b.oldest = flow.Mark{Part: at.Part, Row: at.Row + int64(k)}
		}
		b.rows.Values = append(b.rows.Values, v)
		b.rows.IDs = append(b.rows.IDs, c.IDs.At(k))
		b.longest = max(b.longest, l)
		if p.op.cfg.sizes != nil && len(b.rows.Values) == p.op.cfg.sizes[i] {
			p.in.to(at, k+1)
			if err := p.emit(ctx, out, b); err != nil {
				return err
			}
		}
	}
	p.in.advance(at, len(c.Values), c.End)
	return p.out.sync(ctx, out)
}

// heldOf returns the per-bucket resume marks of s, nil without one.
func heldOf(s *regroupState, buckets int) []flow.Mark {
	if s == nil {
		return nil
	}
	held := slices.Clone(s.Held)
	for len(held) < buckets {
		held = append(held, s.From)
	}
	return held
}

// Checkpoint reports the stage's state after the batches it has pushed:
// each bucket's oldest row, or for an empty bucket the next row to come.
func (p *bucketProc[T]) Checkpoint() (any, flow.Mark) {
	next := p.in.next()
	s := state(&p.out, next)
	s.Held = make([]flow.Mark, len(p.buckets))
	for i, b := range p.buckets {
		s.Held[i] = next
		if len(b.rows.Values) > 0 {
			s.Held[i] = b.oldest
		} else if p.held != nil && before(next, p.held[i]) {
			s.Held[i] = p.held[i]
		}
		if before(s.Held[i], s.From) {
			s.From = s.Held[i]
		}
	}
	return &s, s.From
}

func (p *bucketProc[T]) emit(ctx context.Context, out flow.Emitter[Rows[T]], b *bucket[T]) error {
	r := b.rows
	*b = bucket[T]{}
	return p.out.put(ctx, out, r, fold(p.base, r.IDs[:len(r.IDs)-r.Padding]))
}

func (p *bucketProc[T]) Flush(ctx context.Context, out flow.Emitter[Rows[T]]) error {
	return flush(ctx, p, &p.out, out)
}

func (p *bucketProc[T]) end(ctx context.Context, out flow.Emitter[Rows[T]]) error {
	var left []int
	for i := range p.buckets {
		if len(p.buckets[i].rows.Values) > 0 {
			left = append(left, i)
		}
	}
	slices.SortFunc(left, func(i, j int) int {
		if before(p.buckets[i].oldest, p.buckets[j].oldest) {
			return -1
		}
		return 1
	})
	for _, i := range left {
		b := &p.buckets[i]
		switch p.op.cfg.last {
		case remainderDrop:
			*b = bucket[T]{}
			continue
		case remainderPad:
			n := p.op.cfg.sizes[i]
			if budget := p.op.cfg.budget; budget > 0 {
				n = max(len(b.rows.Values), min(n, budget/max(b.longest, 1)))
			}
			b.rows.padTo(n)
		}
		if err := p.emit(ctx, out, b); err != nil {
			return err
		}
	}
	return nil
}

// overBudget reports whether rows rows of longest tokens each come to more
// than budget tokens, without computing the product, which could wrap:
// for positive integers, rows × longest > budget exactly when longest >
// ⌊budget / rows⌋.
func overBudget(rows, longest, budget int) bool {
	return longest > budget/rows
}

// negativeLength is the error of a row whose length function gave l < 0.
func negativeLength[T any](c *flow.Chunk[T], k, l int) error {
	return flow.ErrorAt(c, k, fmt.Errorf("operators: the length function gave %d, less than 0", l))
}
