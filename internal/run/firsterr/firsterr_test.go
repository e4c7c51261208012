package firsterr_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/rowflow/rowflow/internal/run/firsterr"
)

func recovered(v any) error { return fmt.Errorf("panic: %v", v) }

// TestFirstErrorWins: the first failure is the group's error and cancels
// its context with it as the cause; later ones are dropped.
func TestFirstErrorWins(t *testing.T) {
	first, second := errors.New("first"), errors.New("second")
	g, ctx := firsterr.New(context.Background(), recovered)
	failed := make(chan struct{})
	g.Go(func() error { defer close(failed); return first })
	g.Go(func() error {
		<-failed
		<-ctx.Done() // cancelled by the first error
		return second
	})
	if err := g.Wait(); err != first {
		t.Fatalf("Wait: %v, want %v", err, first)
	}
	if context.Cause(ctx) != first {
		t.Fatalf("cause %v, want %v", context.Cause(ctx), first)
	}
	select {
	case <-g.Failed():
	default:
		t.Fatal("Failed is not closed")
	}
}

// TestPanicFailsTheGroup: a panic becomes the group's error through the
// recovered function.
func TestPanicFailsTheGroup(t *testing.T) {
	g, _ := firsterr.New(context.Background(), recovered)
	g.Go(func() error { panic("boom") })
	if err := g.Wait(); err == nil || err.Error() != "panic: boom" {
		t.Fatalf("Wait: %v", err)
	}
}

// TestCancelIsNotAFailure: Cancel ends the context without an error; a
// group whose goroutines all succeed returns nil and releases its context.
func TestCancelIsNotAFailure(t *testing.T) {
	stop := errors.New("stop")
	g, ctx := firsterr.New(context.Background(), recovered)
	g.Go(func() error { <-ctx.Done(); return nil })
	g.Cancel(stop)
	if err := g.Wait(); err != nil || g.Err() != nil {
		t.Fatalf("Wait: %v, Err: %v", err, g.Err())
	}
	if context.Cause(ctx) != stop {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	g2, ctx2 := firsterr.New(context.Background(), recovered)
	g2.Go(func() error { return nil })
	g2.Fail(nil)
	if err := g2.Wait(); err != nil || ctx2.Err() == nil {
		t.Fatalf("Wait: %v, context %v", err, ctx2.Err())
	}
}

// TestGoexitFailsTheGroup: a goroutine that ends by runtime.Goexit fails
// the group and cancels the others, which would otherwise wait for ever.
func TestGoexitFailsTheGroup(t *testing.T) {
	g, ctx := firsterr.New(context.Background(), recovered)
	g.Go(func() error { runtime.Goexit(); return nil })
	g.Go(func() error { <-ctx.Done(); return ctx.Err() })
	if err := g.Wait(); !errors.Is(err, firsterr.ErrGoexit) {
		t.Fatalf("Wait: %v, want ErrGoexit", err)
	}
}
