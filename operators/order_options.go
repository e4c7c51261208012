package operators

import (
	"fmt"
	"reflect"

	"github.com/rowflow/rowflow/flow"
)

// ShuffleOption configures [Shuffle] and [BlockShuffle]: [PartitionItems]
// (Shuffle only), [MaxBytes] (Shuffle only), [Named].
type ShuffleOption interface{ shuffleOption() }

// orderConfig holds the options of the shuffles that go beyond the common
// ones.
type orderConfig struct {
	shapeConfig
	maxBytes int64
	size     any // func(T) int for the stage's T
}

// settings returns the text of a shuffle's Info.Settings.
func (c orderConfig) settings(head string) string {
	return c.shapeConfig.settings(fmt.Sprintf("%s maxBytes=%d sized=%t", head, c.maxBytes, c.size != nil))
}

// orderOpt is an option of the shuffles only.
type orderOpt struct{ ownOpt[orderConfig] }

func (orderOpt) shuffleOption() {}

// MaxBytes bounds a [Shuffle]'s buffer by bytes as well as by rows: size
// tells the bytes a value holds, and while the buffered values hold more
// than n bytes the buffer gives out rows as if it were full. size's
// argument type must be the stage's element type; a mismatch is kept as
// the stage's error. The default is no byte bound.
//
// With a byte bound, what the buffer holds depends on the sizes of rows
// it gave out long ago, so a resumed Shuffle restarts from its epoch's
// first partition.
func MaxBytes[T any](n int64, size func(T) int) ShuffleOption {
	return orderOpt{ownOpt[orderConfig]{"MaxBytes", func(c *orderConfig) error {
		switch {
		case n < 1:
			return fmt.Errorf("MaxBytes(%d): must be at least 1", n)
		case size == nil:
			return fmt.Errorf("MaxBytes: nil size function")
		}
		c.maxBytes, c.size = n, size
		return nil
	}}}
}

// sizeFunc returns the size function of c for element type T.
func sizeFunc[T any](c *orderConfig) (func(T) int, error) {
	if c.size == nil {
		return nil, nil
	}
	f, ok := c.size.(func(T) int)
	if !ok {
		return nil, fmt.Errorf("operators: %s: MaxBytes size function takes %v, the stage's elements are %v",
			c.name, reflect.TypeOf(c.size).In(0), reflect.TypeFor[T]())
	}
	return f, nil
}

// orderState is what a shuffle's processor reports in a checkpoint (see
// flow.Checkpointer) and resumes from (flow.Env.Resume): a few integers,
// never the rows it holds. Its input restarts at From, at or before the
// oldest row it still holds; the rows given out since then are drawn
// again and discarded.
type orderState struct {
	// Epoch is the epoch being delivered.
	Epoch int64
	// From is where the input restarts, the checkpoint's input mark.
	From flow.Mark
	// Index places From in the epoch's input: for [Shuffle], the ordinal
	// of row From among the epoch's rows; for [BlockShuffle], the ordinal
	// of partition From.Part among the epoch's partitions.
	Index int64
	// Output is the index within the epoch (its partition number without the epoch) of the
	// output partition being delivered, and Delivered how many of its
	// items were delivered.
	Output, Delivered int64
}

// check reports a state no processor reports.
func (s *orderState) check(name string) error {
	if s.Epoch < 0 || s.From.Part < 0 || s.From.Row < 0 || s.Index < 0 || s.Output < 0 || s.Delivered < 0 {
		return fmt.Errorf("operators: %s: resume state %+v: negative field", name, *s)
	}
	return nil
}

// resumeAt returns the state a shuffle applies when it begins epoch e, and
// the epoch it begins: at its first begin, the state it resumes from, if
// any, and the state's epoch (an earlier one if the state's input had
// ended: its end is then given out); afterwards none, and e.
func resumeAt(name string, r *orderState, started bool, e int64) (*orderState, int64, error) {
	switch {
	case started || r == nil:
		return nil, e, nil
	case r.Epoch > e:
		return nil, 0, fmt.Errorf("operators: %s: resuming in epoch %d, but the input starts in epoch %d", name, r.Epoch, e)
	}
	return r, r.Epoch, nil
}
