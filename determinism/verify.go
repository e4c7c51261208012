package determinism

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
)

// Option configures [Verify]. A bad option makes Verify return an error
// before it runs anything.
type Option func(*config) error

type config struct {
	parallelisms []int
	runs         int
}

// Parallelisms sets the parallelisms that Verify compares with parallelism
// 1, in the order it reports them (default 2, 3, 4, 8). Each must be at
// least 1; giving 1 compares serial runs with each other.
func Parallelisms(ns ...int) Option {
	return func(c *config) error {
		if len(ns) == 0 {
			return errors.New("determinism: Parallelisms() needs at least one parallelism")
		}
		for _, n := range ns {
			if n < 1 {
				return fmt.Errorf("determinism: Parallelisms(%v): %d is less than 1", ns, n)
			}
		}
		c.parallelisms = append([]int(nil), ns...)
		return nil
	}
}

// Runs sets how many rounds Verify runs (default 1). Each round runs the
// pipeline once at parallelism 1 and once at each parallelism; more rounds
// give scheduling more chances to expose a dependence on timing.
func Runs(k int) Option {
	return func(c *config) error {
		if k < 1 {
			return fmt.Errorf("determinism: Runs(%d): must be at least 1", k)
		}
		c.runs = k
		return nil
	}
}

// Verify checks that the pipeline that build returns gives the same stream
// at every parallelism: the same items (batch number, row ID and value),
// in the same order. build(n) must return a pipeline with no sink whose
// output type is T, using n as its parallelism wherever it sees fit.
//
// Each round (see [Runs]) starts the pipeline at parallelism 1, the
// reference, and at each of the [Parallelisms], all at once, and compares
// every run's items with the reference's, one by one, as they come: memory
// stays that of the runs in flight, whatever the length of the stream.
// build is called from Verify's goroutine, but the pipelines it returns
// run at the same time: they must not share mutable state (a counter, a
// channel), or they interfere.
//
// Values are compared by their encoding (see the package documentation),
// so NaNs with the same bits are equal, and a nil slice equals an empty
// one.
//
// Verify returns nil if every run matches the reference. At the first item
// where a run differs, ends early or goes on after the reference ended, it
// stops all runs and returns a [*Divergence]. If a run fails, it returns
// that run's error, wrapped with the parallelism. If T has no encoding
// (see [Encodable]) or an option is bad, it returns an error without
// running anything.
func Verify[T any](ctx context.Context, build func(parallelism int) *flow.Pipeline, opts ...Option) error {
	cfg := config{parallelisms: []int{2, 3, 4, 8}, runs: 1}
	for _, o := range opts {
		if o == nil {
			return errors.New("determinism: nil Option")
		}
		if err := o(&cfg); err != nil {
			return err
		}
	}
	if err := Encodable[T](); err != nil {
		return err
	}
	for run := 1; run <= cfg.runs; run++ {
		if err := verifyRound[T](ctx, build, cfg.parallelisms, run); err != nil {
			return err
		}
	}
	return nil
}

// verifyRound runs one round of Verify.
func verifyRound[T any](ctx context.Context, build func(int) *flow.Pipeline, ps []int, run int) error {
	c := mustCodec[T]()
	ref := openCursor[T](ctx, build, 1)
	defer ref.stop()
	runs := make([]*cursor[T], len(ps))
	for i, n := range ps {
		runs[i] = openCursor[T](ctx, build, n)
		defer runs[i].stop()
	}
	var want, got state
	for pos := int64(0); ; pos++ {
		refOK := ref.step()
		if ref.err != nil {
			return fmt.Errorf("determinism: parallelism 1 (round %d): %w", run, ref.err)
		}
		if refOK {
			if err := encodeValue(c, &want, ref.value()); err != nil {
				return err
			}
		}
		for i, r := range runs {
			ok := r.step()
			if r.err != nil {
				return fmt.Errorf("determinism: parallelism %d (round %d): %w", ps[i], run, r.err)
			}
			if ok != refOK {
				return diverge(ps[i], run, pos, ref, r, false)
			}
			if !ok {
				continue
			}
			if err := encodeValue(c, &got, r.value()); err != nil {
				return err
			}
			valueDiffers := !bytes.Equal(got.b, want.b)
			if valueDiffers || r.batch() != ref.batch() || r.id() != ref.id() {
				return diverge(ps[i], run, pos, ref, r, valueDiffers)
			}
		}
		if !refOK {
			return nil
		}
	}
}

func diverge[T any](n, run int, pos int64, ref, r *cursor[T], valueDiffers bool) *Divergence {
	return &Divergence{Parallelism: n, Round: run, Position: pos,
		Reference: ref.observe(), Candidate: r.observe(), valueDiffers: valueDiffers}
}

// encodeValue sets s.b to the encoding of the value at p. It returns the
// error that encoding panics with when the value cannot be encoded.
func encodeValue(c *codec, s *state, p unsafe.Pointer) error {
	return catchEncoding(func() {
		s.b, s.depth = s.b[:0], 0
		c.enc(s, p)
	})
}
