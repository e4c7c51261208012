package flow_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
)

// explode is the user function of TestPanicErrorIsOneLine; its name must
// appear in the kept stack.
func explode(v int64) (int64, error) {
	if v == 42 {
		panic("boom")
	}
	return v, nil
}

// TestPanicErrorIsOneLine: a panic in a user function fails the run with a
// one-line message naming the stage, partition, row and panic value, while the
// stack stays on the *PanicError.
func TestPanicErrorIsOneLine(t *testing.T) {
	for _, n := range []int{1, 3} {
		err := flow.From(sources.Slice(ints(100), sources.PartitionItems(10))).
			Via(operators.Map(explode)).Parallel(n).
			To(sinks.ForEach(func(flow.Item[int64]) error { return nil })).Run(context.Background())
		var pe *flow.PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("parallelism %d: Run = %v, want a *PanicError", n, err)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, `flow: stage "map", partition 4, row `) || !strings.HasSuffix(msg, ": panic: boom") {
			t.Fatalf("parallelism %d: message %q, want one line naming the stage, partition, row and panic", n, msg)
		}
		if pe.Error() != "panic: boom" {
			t.Fatalf("parallelism %d: PanicError.Error() = %q", n, pe.Error())
		}
		if stack := string(pe.Stack); !strings.Contains(stack, "flow_test.explode") || !strings.Contains(stack, "goroutine ") {
			t.Fatalf("parallelism %d: the kept stack does not show the panicking function:\n%s", n, stack)
		}
	}
}

// TestPanicErrorUnwrapsErrorValues: a function that panics with an error
// fails the run with an error that errors.Is finds.
func TestPanicErrorUnwrapsErrorValues(t *testing.T) {
	err := flow.From(sources.Slice(ints(10))).
		Via(operators.Map(func(v int64) (int64, error) { panic(io.ErrUnexpectedEOF) })).
		To(sinks.ForEach(func(flow.Item[int64]) error { return nil })).Run(context.Background())
	var pe *flow.PanicError
	if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &pe) || pe.Value != io.ErrUnexpectedEOF {
		t.Fatalf("Run = %v, want the panic's error in the chain", err)
	}
	if errors.Unwrap(&flow.PanicError{Value: "text"}) != nil {
		t.Fatal("a panic value that is not an error unwraps to something")
	}
}

// badOp is an operator that was given a bad argument: it keeps the error
// and reports it through Err, as sources and sinks do.
type badOp struct{ err error }

func (badOp) Info() flow.Info { return flow.Info{Name: "bad"} }
func (o badOp) Err() error    { return o.err }
func (badOp) NewProcessor(flow.Env) flow.Processor[int64, int64] {
	panic("NewProcessor of an operator that reported a build error")
}

// TestViaKeepsAStageBuildError: Via keeps the error of a stage whose Err
// reports one, the first mistake wins, and nothing runs.
func TestViaKeepsAStageBuildError(t *testing.T) {
	bad := errors.New("bad: the argument is out of range")
	p := flow.From(sources.Slice(ints(10))).Via(flow.NewStage[int64, int64](badOp{bad}))
	if !errors.Is(p.Err(), bad) {
		t.Fatalf("Err() = %v, want the stage's error", p.Err())
	}
	later := p.Via(flow.NewStage[int64, int64](badOp{errors.New("second")})).Parallel(0)
	var n int64
	if err := later.To(sinks.Count[int64](&n)).Run(context.Background()); !errors.Is(err, bad) || n != 0 {
		t.Fatalf("Run = %v with %d values, want the first stage's error and none", err, n)
	}
	ok := flow.From(sources.Slice(ints(10))).Via(flow.NewStage[int64, int64](badOp{}))
	if ok.Err() != nil {
		t.Fatalf("a stage whose Err returns nil: %v", ok.Err())
	}
}
