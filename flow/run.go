package flow

import (
	"context"
	"errors"
	"sync"
)

// errStopped is the cancellation cause of the stages upstream of a stage
// that ended the stream with ErrStop. Their context errors are not errors
// of the run.
var errStopped = errors.New("flow: stopped by a downstream stage")

// runner owns every goroutine of one run. The first error cancels the run;
// wait returns it once all goroutines have returned.
type runner struct {
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
	atEnd  []func()
	stats  *runStats // nil unless a Monitor observes the run
	watch  *watch
}

type runnerKey struct{}

func newRunner(parent context.Context) (*runner, context.Context) {
	r := &runner{}
	ctx, cancel := context.WithCancelCause(context.WithValue(parent, runnerKey{}, r))
	r.cancel = cancel
	return r, ctx
}

// AtEnd registers f to be called once when the run that ctx belongs to
// ends, after all its goroutines have returned and before Run returns or
// the iterator's loop ends, whether the run succeeded or not. Sources and
// stages use it to release what they hold for the whole run, such as open
// files. Functions run in the reverse order of registration. AtEnd
// reports false, and does not keep f, if ctx is not the context of a run.
func AtEnd(ctx context.Context, f func()) bool {
	r, ok := ctx.Value(runnerKey{}).(*runner)
	if !ok {
		return false
	}
	r.mu.Lock()
	r.atEnd = append(r.atEnd, f)
	r.mu.Unlock()
	return true
}

// goroutine runs f in a new goroutine. ctx is the context f runs under: if
// it was cancelled because a downstream stage stopped the stream, the
// context error f returns is expected and dropped.
func (r *runner) goroutine(ctx context.Context, f func() error) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		var err error
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = Recovered(p)
				}
			}()
			err = f()
		}()
		r.fail(ctx, err)
	}()
}

// guard runs f, which builds and starts the run, in the caller's
// goroutine; a panic in it (in a stage's NewProcessor, say) fails the run
// like any error, so that the goroutines already started are cancelled.
func (r *runner) guard(ctx context.Context, name string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			r.fail(ctx, stageError(name, 0, false, Recovered(p)))
		}
	}()
	f()
}

func (r *runner) fail(ctx context.Context, err error) {
	if err == nil || err == ErrStop {
		return
	}
	if ctx.Err() != nil && context.Cause(ctx) == errStopped && isContextErr(err) {
		return
	}
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.cancel(err)
}

// wait waits for every goroutine and returns the run's first error. If the
// parent context was cancelled, its error is returned as it is.
func (r *runner) wait(parent context.Context) error {
	r.wg.Wait()
	r.cancel(nil)
	for i := len(r.atEnd) - 1; i >= 0; i-- {
		r.atEnd[i]()
	}
	r.atEnd = nil
	err := r.err
	if err != nil && isContextErr(err) && parent.Err() != nil {
		err = context.Cause(parent)
	}
	r.endObserved(err)
	return err
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// recv receives from ch unless ctx is done first.
func recv[T any](ctx context.Context, ch <-chan T) (v T, ok bool, err error) {
	select {
	case v, ok = <-ch:
		return v, ok, nil
	case <-ctx.Done():
		return v, false, ctx.Err()
	}
}

// send sends v on ch unless ctx is done first.
func send[T any](ctx context.Context, ch chan<- T, v T) error {
	select {
	case ch <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
