package sinks

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
)

// Collect returns a sink that stores the stream's items, in order, in *dst
// when the run succeeds.
func Collect[T any](dst *[]flow.Item[T]) flow.Sink {
	return flow.NewSink[T](result[T, []flow.Item[T]]{name: "collect", dst: dst,
		add: func(acc *[]flow.Item[T], c flow.Chunk[T]) error {
			for k := range c.Values {
				*acc = append(*acc, c.Item(k))
			}
			return nil
		}})
}

// CollectValues returns a sink that stores the stream's values, in order,
// in *dst when the run succeeds.
func CollectValues[T any](dst *[]T) flow.Sink {
	return flow.NewSink[T](result[T, []T]{name: "collect-values", dst: dst,
		add: func(acc *[]T, c flow.Chunk[T]) error {
			*acc = append(*acc, c.Values...)
			return nil
		}})
}

// Count returns a sink that stores the number of values in the stream in
// *dst when the run succeeds.
func Count[T any](dst *int64) flow.Sink {
	return flow.NewSink[T](result[T, int64]{name: "count", dst: dst,
		add: func(acc *int64, c flow.Chunk[T]) error {
			*acc += int64(len(c.Values))
			return nil
		}})
}

// ForEach returns a sink that calls f for every item, in order. An error
// from f fails the run; f may return flow.ErrStop to end it early and
// successfully, as a loop over [flow.Items] breaks: the item f returned
// it for counts as delivered, so that a checkpoint taken after the run
// (flow.Tracker) resumes after it.
func ForEach[T any](f func(flow.Item[T]) error) flow.Sink {
	return flow.NewSink[T](result[T, struct{}]{name: "for-each", dst: new(struct{}), nilFunc: f == nil,
		add: func(_ *struct{}, c flow.Chunk[T]) error {
			for k := range c.Values {
				if err := f(c.Item(k)); err == flow.ErrStop {
					return flow.StopAfter(k + 1)
				} else if err != nil {
					return flow.ErrorAt(&c, k, err)
				}
			}
			return nil
		}})
}

// result is a sink that folds chunks into an accumulator of type R and
// stores it in *dst on success.
type result[T, R any] struct {
	name    string
	dst     *R
	add     func(acc *R, c flow.Chunk[T]) error
	nilFunc bool // the user's function is nil
}

func (r result[T, R]) Info() flow.Info { return flow.Info{Name: r.name} }

// Err reports a nil destination or function.
func (r result[T, R]) Err() error {
	switch {
	case r.dst == nil:
		return fmt.Errorf("sinks: %s: nil destination", r.name)
	case r.nilFunc:
		return fmt.Errorf("sinks: %s: nil function", r.name)
	}
	return nil
}

func (r result[T, R]) NewConsumer(flow.Env) flow.Consumer[T] {
	return &resultConsumer[T, R]{r: r}
}

type resultConsumer[T, R any] struct {
	r   result[T, R]
	acc R
}

func (c *resultConsumer[T, R]) Consume(_ context.Context, ch flow.Chunk[T]) error {
	err := c.r.add(&c.acc, ch)
	ch.Release()
	return err
}

func (c *resultConsumer[T, R]) Close(err error) error {
	if err == nil {
		*c.r.dst = c.acc
	}
	return nil
}
