package flow_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"testing"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sources"
)

// partFailOp fails partition now at once and partition late once its
// context is done: late's work ends after the run stopped the stage's
// goroutines, and its data is bad (no context error).
type partFailOp struct{ now, late int64 }

func (partFailOp) Info() flow.Info { return flow.Info{Name: "part-fail"} }
func (o partFailOp) NewProcessor(flow.Env) flow.Processor[int64, int64] {
	return partFailProc(o)
}

type partFailProc partFailOp

func (p partFailProc) Process(ctx context.Context, c flow.Chunk[int64], out flow.Emitter[int64]) error {
	switch c.Part {
	case p.now:
		c.Release()
		return fmt.Errorf("bad partition %d", p.now)
	case p.late:
		c.Release()
		<-ctx.Done()
		return fmt.Errorf("bad partition %d", p.late)
	}
	return out.Push(ctx, c)
}
func (partFailProc) Flush(context.Context, flow.Emitter[int64]) error { return nil }

// slowSink waits, at its first chunk, until the run fails or a minute
// (of the bubble's fake time) passes: a slow consumer.
type slowSink struct{ got *[]int64 }

func (slowSink) Info() flow.Info                             { return flow.Info{Name: "slow"} }
func (s slowSink) NewConsumer(flow.Env) flow.Consumer[int64] { return &slowConsumer{got: s.got} }

type slowConsumer struct {
	got    *[]int64
	waited bool
}

func (s *slowConsumer) Consume(ctx context.Context, c flow.Chunk[int64]) error {
	if !s.waited {
		s.waited = true
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute):
		}
	}
	*s.got = append(*s.got, c.Values...)
	c.Release()
	return nil
}
func (s *slowConsumer) Close(error) error { return nil }

// A parallel group that hands its partition-3 failure in band to the
// next group stops its own workers with errStopped; a worker that then
// fails at partition 5, past the point where the stream ends, must not
// pre-empt partition 3's error, which the serial run returns.
func TestStoppedUpstreamErrorsDoNotFailTheRun(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		run := func(par int) error {
			var got []int64
			return flow.From(sources.Generate(1000, func(i int64) (int64, error) { return i, nil },
				sources.PartitionItems(100), sources.ChunkSize(100))).
				Via(flow.NewStage[int64, int64](partFailOp{now: 3, late: 5})).Parallel(par).
				Via(operators.Map(func(v int64) (int64, error) { return v, nil })).
				Via(operators.Map(func(v int64) (int64, error) { return v, nil })).Parallel(par).
				To(flow.NewSink[int64](slowSink{&got})).Run(context.Background())
		}
		want := run(1)
		var se *flow.StageError
		if !errors.As(want, &se) || se.Part != 3 {
			t.Fatalf("serial run: %v, want partition 3's error", want)
		}
		for _, par := range []int{2, 3} {
			if err := run(par); err == nil || err.Error() != want.Error() {
				t.Errorf("parallel %d: %v, want the serial run's %v", par, err, want)
			}
		}
	})
}

// With several cursors, a failure upstream of the last group fails the
// run at once: handed in band, it went to the partition a cursor held,
// which dropped it on Close, and the other cursor then took the cut
// stream for a clean end.
func TestSeveralCursorsFailAtOnceOnUpstreamFailure(t *testing.T) {
	testutil.Synctest(t, func(t *testing.T) {
		ident := func(v int64) (int64, error) { return v, nil }
		for _, par := range []int{2, 3} {
			p := flow.From(sources.Generate(1000, func(i int64) (int64, error) { return i, nil },
				sources.PartitionItems(100), sources.ChunkSize(10))).
				Via(operators.Map(func(v int64) (int64, error) {
					if v == 150 {
						return 0, errors.New("row 150")
					}
					return v, nil
				})).
				Via(operators.Map(ident)).Parallel(par)
			s, err := flow.Cursors[int64](context.Background(), p, 2)
			if err != nil {
				t.Fatal(err)
			}
			c0, c1 := s.Cursors()[0], s.Cursors()[1]
			next0, stop0 := iter.Pull2(c0.All())
			next1, stop1 := iter.Pull2(c1.All())
			next0() // takes partition 0
			next1() // takes partition 1, which fails at row 150
			c1.Close()
			stop1()
			n := 1
			var cerr error
			for {
				_, err, ok := next0()
				if !ok || err != nil {
					cerr = err
					break
				}
				n++
			}
			stop0()
			serr := s.Close()
			if cerr == nil && serr == nil {
				t.Errorf("last stage on %d workers: cursor 0 read %d items and ended cleanly, set Close = nil; the source failed at row 150 and partitions 2..9 never came", par, n)
			}
		}
	})
}
