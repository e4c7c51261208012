package determinism

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
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
// at every parallelism: the same items (partition number, row ID and value),
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
// (see the package documentation) or an option is bad, it returns an
// error without running anything.
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
	if err := encodable[T](); err != nil {
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
	ref := lane[T]{c: openCursor[T](ctx, build, 1), name: fmt.Sprintf("parallelism 1 (round %d)", run)}
	defer ref.c.stop()
	runs := make([]lane[T], len(ps))
	for i, n := range ps {
		runs[i] = lane[T]{c: openCursor[T](ctx, build, n), n: n, round: run,
			name: fmt.Sprintf("parallelism %d (round %d)", n, run)}
		defer runs[i].c.stop()
	}
	return compareLanes(ref, runs)
}

// Compare runs the pipelines a and b, which must have no sink and produce
// values of type T, at the same time, and compares their items one by one
// as [Verify] does: partition number, row ID and value, in order. Use it to
// compare a pipeline with another version of itself (before and after a
// change to a stage, or with another source holding the same rows).
//
// It returns nil if the streams are equal, a [*Divergence] (with
// Parallelism and Round 0) at the first item where they differ, or the
// error of a run that fails, naming the run. If T has no encoding, it
// returns that error without running anything.
func Compare[T any](ctx context.Context, a, b *flow.Pipeline) error {
	if a == nil || b == nil {
		return errors.New("determinism: Compare of a nil pipeline")
	}
	if err := encodable[T](); err != nil {
		return err
	}
	of := func(p *flow.Pipeline) func(int) *flow.Pipeline { return func(int) *flow.Pipeline { return p } }
	ref := lane[T]{c: openCursor[T](ctx, of(a), 0), name: "the first pipeline"}
	defer ref.c.stop()
	cand := lane[T]{c: openCursor[T](ctx, of(b), 0), name: "the second pipeline"}
	defer cand.c.stop()
	return compareLanes(ref, []lane[T]{cand})
}

// lane is one run being compared: its cursor, its name in errors, and its
// parallelism and round for a Divergence (0 outside Verify).
type lane[T any] struct {
	c        *cursor[T]
	name     string
	n, round int
}

// compareLanes steps ref and runs together, item by item, until one
// differs from ref, fails, or all end.
func compareLanes[T any](ref lane[T], runs []lane[T]) error {
	c := mustCodec[T]()
	var want, got state
	for pos := int64(0); ; pos++ {
		refOK := ref.c.step()
		if ref.c.err != nil {
			return fmt.Errorf("determinism: %s: %w", ref.name, ref.c.err)
		}
		if refOK {
			if err := encodeValue(c, &want, ref.c.value()); err != nil {
				return err
			}
		}
		for _, r := range runs {
			ok := r.c.step()
			if r.c.err != nil {
				return fmt.Errorf("determinism: %s: %w", r.name, r.c.err)
			}
			if ok != refOK {
				return diverge(pos, ref, r, false)
			}
			if !ok {
				continue
			}
			if err := encodeValue(c, &got, r.c.value()); err != nil {
				return err
			}
			valueDiffers := !bytes.Equal(got.b, want.b)
			if valueDiffers || r.c.batch() != ref.c.batch() || r.c.id() != ref.c.id() {
				return diverge(pos, ref, r, valueDiffers)
			}
		}
		if !refOK {
			return nil
		}
	}
}

func diverge[T any](pos int64, ref, r lane[T], valueDiffers bool) *Divergence {
	d := &Divergence{Parallelism: r.n, Round: r.round, Position: pos,
		Reference: ref.c.observe(), Candidate: r.c.observe(), valueDiffers: valueDiffers}
	if r.n == 0 {
		d.ref, d.cand = ref.name, r.name
	}
	if valueDiffers {
		if at, ok := firstDiff(reflect.TypeFor[T](), ref.c.value(), r.c.value()); ok {
			d.Path, d.at = at.path, at
		}
	}
	return d
}

// encodeValue sets s.b to the encoding of the value at p. It returns the
// error that encoding panics with when the value cannot be encoded.
func encodeValue(c *codec, s *state, p unsafe.Pointer) error {
	return catchEncoding(func() {
		s.b, s.depth = s.b[:0], 0
		c.enc(s, p)
	})
}
