package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
)

// # Equal steps
//
// A data-parallel training job takes one step per batch on every rank at
// once, so its ranks must see the same number of batches in an epoch: a
// rank with one batch more waits forever at the epoch's end for the
// others. The stages that emit batches can guarantee it.
//
// [Batch] and [BucketPool], whose counts follow from their rows alone, do
// it by themselves in a run of several ranks when they can count every
// rank's rows before reading (see flow.Env.RankRows: the source counts
// them from its plan, as the Parquet sources, slices and generators do,
// and only one-to-one stages such as Map stand between): every rank then
// stops each epoch at the count of batches the smallest rank gives, and
// drops the rest. With the dataset sources' even split, ranks differ by
// at most one row, so at most one batch is dropped, on the ranks with one
// row more. Where the counts cannot be known (a text source, a Filter
// before the stage) nothing is dropped.
//
// [BucketByLength], [TableBucket] and [Pack] give counts that depend on
// the rows' lengths, which no rank knows of the others: give them
// [Steps], as training loops give a steps-per-epoch.

// stepsOpt is taken by the stages that emit batches.
type stepsOpt struct{ option }

func (stepsOpt) batchOption()  {}
func (stepsOpt) bucketOption() {}
func (stepsOpt) tableOption()  {}
func (stepsOpt) packOption()   {}

// StepAccount reports what a stage given [Steps] did about equal steps:
// the items it gives an epoch (0 while no limit is known), and the items
// and rows it dropped over the run because they came after the limit.
type StepAccount struct {
	PerEpoch int64
	Dropped  int64 // items (batches, packed rows)
	Rows     int64 // their rows, padding left out, for a stage whose items are Rows
}

// Steps makes a stage that emits batches (or packed rows) give exactly n
// of them in every epoch: those after the n-th are dropped with their
// rows, and an epoch that ends with fewer fails the run, naming the epoch
// and both counts, rather than let a data-parallel job hang. n = 0 keeps
// the stage's own limit: Batch and BucketPool give every rank the same
// count by themselves where they can (see "Equal steps" in the package
// documentation), and the other stages give what the rows make. If
// account is not nil, it is set as the run goes; runs that go on at the
// same time should not share one. n must not be negative.
func Steps(n int64, account *StepAccount) interface {
	BatchOption
	BucketOption
	TableOption
	PackOption
} {
	return stepsOpt{option{"Steps", func(c *shapeConfig) error {
		if n < 0 {
			return fmt.Errorf("Steps(%d): must not be negative", n)
		}
		c.steps, c.account = n, account
		return nil
	}}}
}

// stepLimit is how many items an epoch of a stage gives.
type stepLimit struct {
	name   string
	n      int64 // the items of an epoch, when has
	has    bool
	strict bool // Steps: an epoch with fewer is an error
	acct   *StepAccount
	// count, when the limit is not known yet, gives it from the rows of
	// every rank (Batch and BucketPool without Steps).
	count func(rows int64) int64
	env   flow.Env
	asked bool
}

// newStepLimit returns the limit of a stage with config c in env; count
// gives the items of an epoch of so many rows, for stages whose count
// follows from their rows, or is nil.
func newStepLimit(c *shapeConfig, env flow.Env, count func(rows int64) int64) stepLimit {
	if c.steps > 0 {
		return stepLimit{name: c.name, n: c.steps, has: true, strict: true, acct: c.account}
	}
	if count == nil || env.World <= 1 {
		return stepLimit{acct: c.account}
	}
	return stepLimit{name: c.name, count: count, env: env, acct: c.account}
}

// limit returns the number of items of an epoch, and whether there is a
// limit, counting every rank's rows on first use.
func (l *stepLimit) limit(ctx context.Context) (int64, bool, error) {
	if l.count != nil && !l.asked {
		l.asked = true
		rows, ok, err := l.env.RankRows(ctx)
		if err != nil {
			return 0, false, err
		}
		for i, r := range rows {
			if c := l.count(r); ok && (i == 0 || c < l.n) {
				l.n, l.has = c, true
			}
		}
	}
	if l.acct != nil && l.has {
		l.acct.PerEpoch = l.n
	}
	return l.n, l.has, nil
}

// drop accounts for an item dropped past the limit.
func (l *stepLimit) drop(v any) {
	if l.acct == nil {
		return
	}
	l.acct.Dropped++
	if r, ok := v.(interface{ rows() int }); ok {
		l.acct.Rows += int64(r.rows())
	}
}

// check reports an epoch that ended with fewer items than Steps asks.
func (l *stepLimit) check(epoch, items int64) error {
	if l.strict && l.has && items < l.n {
		return fmt.Errorf("operators: %s: epoch %d gave %d items, fewer than Steps(%d)", l.name, epoch, items, l.n)
	}
	return nil
}

// batches returns the number of batches of size n that rows rows make
// under remainder policy last.
func batches(rows, n int64, last remainder) int64 {
	if last == remainderDrop {
		return rows / n
	}
	return (rows + n - 1) / n
}
