// Package firsterr runs goroutines that share one fate, in the manner of
// errgroup: the first failure (an error, or a panic turned into one)
// cancels the group's context with that error as its cause, and Wait
// returns it once every goroutine has returned. It is the one such
// mechanism of rowflow: a pipeline run (package flow) and the writers of a
// shard sink (package shards) both use it.
package firsterr

import (
	"context"
	"errors"
	"sync"
)

// Group is a set of goroutines and the first error among them. Make one
// with [New]; a Group is used for one run.
type Group struct {
	cancel    context.CancelCauseFunc
	recovered func(any) error
	wg        sync.WaitGroup
	mu        sync.Mutex
	err       error
	failed    chan struct{} // closed by the first Fail
}

// New returns a group and its context, derived from parent. recovered
// turns the value of a panic in a goroutine of the group into the error
// that fails it.
func New(parent context.Context, recovered func(any) error) (*Group, context.Context) {
	ctx, cancel := context.WithCancelCause(parent)
	return &Group{cancel: cancel, recovered: recovered, failed: make(chan struct{})}, ctx
}

// Go runs f in a new goroutine of the group. An error f returns, a panic
// in f, or runtime.Goexit called in f (as testing's FailNow does) fails
// the group.
func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		returned := false
		defer func() {
			if !returned {
				g.Fail(ErrGoexit) // neither a return nor a panic: Goexit
			}
			g.wg.Done()
		}()
		err := g.run(f)
		returned = true
		g.Fail(err)
	}()
}

// ErrGoexit is the error of a goroutine of a group that ended by
// runtime.Goexit instead of returning.
var ErrGoexit = errors.New("a goroutine of the run ended by runtime.Goexit, not by returning: a function it called exited the goroutine (testing's t.FailNow and t.Fatal do)")

func (g *Group) run(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = g.recovered(p)
		}
	}()
	return f()
}

// Fail makes err the group's error if it is the first, and cancels the
// group's context with it as the cause. A nil err is ignored.
func (g *Group) Fail(err error) {
	if err == nil {
		return
	}
	g.mu.Lock()
	first := g.err == nil
	if first {
		g.err = err
	}
	g.mu.Unlock()
	if first {
		close(g.failed)
	}
	g.cancel(err)
}

// Cancel cancels the group's context with cause, without failing the
// group: for an end that is not an error.
func (g *Group) Cancel(cause error) { g.cancel(cause) }

// Failed returns a channel that is closed when the group fails.
func (g *Group) Failed() <-chan struct{} { return g.failed }

// Err returns the group's first error, or nil.
func (g *Group) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// Wait waits for every goroutine of the group, releases its context and
// returns the first error.
func (g *Group) Wait() error {
	g.wg.Wait()
	g.cancel(nil)
	return g.Err()
}
