package sinks

import (
	"context"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
)

// Digest returns a sink that computes the digest of the stream (see
// package [determinism]: the row IDs and values, in order, not the partition
// numbers) and stores it in *dst when the run succeeds.
//
// If T has no encoding (see [determinism.Encodable]), the run fails with
// that error. A value that holds, in an interface, a value that cannot be
// encoded fails the run too.
func Digest[T any](dst *determinism.Sum) flow.Sink {
	return flow.NewSink[T](digestSink[T]{dst: dst})
}

var _ flow.SinkStage[int] = digestSink[int]{}

type digestSink[T any] struct{ dst *determinism.Sum }

func (digestSink[T]) Info() flow.Info { return flow.Info{Name: "digest"} }

func (s digestSink[T]) NewConsumer(flow.Env) flow.Consumer[T] {
	if err := determinism.Encodable[T](); err != nil {
		return &digestConsumer[T]{dst: s.dst, err: err}
	}
	return &digestConsumer[T]{dst: s.dst, h: determinism.NewHasher[T]()}
}

type digestConsumer[T any] struct {
	dst *determinism.Sum
	h   *determinism.Hasher[T]
	err error // T has no encoding
}

func (c *digestConsumer[T]) Consume(_ context.Context, ch flow.Chunk[T]) error {
	defer ch.Release()
	if c.err == nil {
		c.err = c.h.AddChunk(&ch)
	}
	return c.err
}

func (c *digestConsumer[T]) Close(err error) error {
	switch {
	case err != nil:
		return nil
	case c.err != nil:
		return c.err
	}
	*c.dst = c.h.Sum()
	return nil
}
