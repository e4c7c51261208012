package operators

import (
	"fmt"
	"reflect"
)

// ShuffleOption configures [Shuffle] and [BlockShuffle]: [PartitionItems]
// (Shuffle only), [MaxBytes] (Shuffle only), [Named], [Resume].
type ShuffleOption interface{ shuffleOption() }

// IndexOption configures [IndexShuffle]: [PartitionItems], [Named].
type IndexOption interface{ indexOption() }

// orderConfig holds the options of the shuffles that go beyond the common
// ones.
type orderConfig struct {
	shapeConfig
	maxBytes int64
	size     any // func(T) int for the stage's T
	resume   *OrderState
}

// orderOpt is an option of the shuffles only.
type orderOpt struct {
	name  string
	apply func(*orderConfig) error
}

func (orderOpt) shuffleOption() {}

// configureOrder applies the common options and the shuffles' own.
func configureOrder[O any](c *orderConfig, opts []O) error {
	for _, o := range opts {
		var err error
		switch o := any(o).(type) {
		case orderOpt:
			if o.apply == nil {
				err = fmt.Errorf("zero option")
			} else {
				err = o.apply(c)
			}
		case settable:
			err = o.set(&c.shapeConfig)
		default:
			return fmt.Errorf("operators: %s: nil option", c.name)
		}
		if err != nil {
			return fmt.Errorf("operators: %s: %w", c.name, err)
		}
	}
	return nil
}

// MaxBytes bounds a [Shuffle]'s buffer by bytes as well as by rows: size
// tells the bytes a value holds, and while the buffered values hold more
// than n bytes the buffer gives out rows as if it were full. size's
// argument type must be the stage's element type; a mismatch is kept as
// the stage's error. The default is no byte bound.
//
// With a byte bound, what the buffer holds depends on the sizes of rows
// it gave out long ago, so a resumed Shuffle restarts from its epoch's
// first partition (see [OrderState]).
func MaxBytes[T any](n int64, size func(T) int) ShuffleOption {
	return orderOpt{"MaxBytes", func(c *orderConfig) error {
		switch {
		case n < 1:
			return fmt.Errorf("MaxBytes(%d): must be at least 1", n)
		case size == nil:
			return fmt.Errorf("MaxBytes: nil size function")
		}
		c.maxBytes, c.size = n, size
		return nil
	}}
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

// Resume starts a shuffle where the [OrderState] s says. Its input must
// begin at input partition s.Partition of epoch s.Epoch; the stage then
// gives exactly what the uninterrupted stage gave after the s.Delivered-th
// item of its output partition s.Output.
func Resume(s OrderState) ShuffleOption {
	return orderOpt{"Resume", func(c *orderConfig) error {
		if s.Epoch < 0 || s.Partition < 0 || s.Index < 0 || s.Output < 0 || s.Delivered < 0 {
			return fmt.Errorf("Resume(%+v): negative field", s)
		}
		c.resume = &s
		return nil
	}}
}

// OrderState is what a shuffle needs to be resumed exactly (see [Resume]):
// a few integers, never the rows it holds. Its input restarts at the
// oldest input partition whose rows it still holds; it then discards what
// it had already delivered. The processors of [Shuffle] and
// [BlockShuffle] report it, after the chunks they have pushed, with a
// method State() OrderState.
type OrderState struct {
	// Epoch is the epoch being delivered.
	Epoch int64
	// Partition is the partition number of the input partition to restart
	// from: the oldest of which the stage still holds rows, or the next
	// one if it holds none. The input restarts at the first partition of
	// epoch Epoch whose partition number is at least Partition, or at the next
	// epoch's start if there is none.
	Partition int64
	// Index places that partition in the epoch's input: for [Shuffle],
	// the ordinal of its first row among the epoch's rows; for
	// [BlockShuffle], its ordinal among the epoch's partitions.
	Index int64
	// Output is the index within the epoch (flow.PartitionOf) of the
	// output partition being delivered, and Delivered how many of its
	// items were delivered.
	Output, Delivered int64
}
