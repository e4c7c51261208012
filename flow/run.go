package flow

import (
	"context"
	"errors"
	"sync"

	"github.com/rowflow/rowflow/internal/run/firsterr"
)

// errStopped is the cancellation cause of the stages upstream of a stage
// that ended the stream with ErrStop. Their context errors are not errors
// of the run.
var errStopped = errors.New("flow: stopped by a downstream stage")

// runner owns every goroutine of one run, in a firsterr.Group: the
// first error cancels the run; wait returns it once all goroutines have
// returned.
type runner struct {
	g     *firsterr.Group
	mu    sync.Mutex // guards atEnd
	atEnd []func()
	stats *runStats // nil unless a Monitor observes the run
	watch *watch
}

type runnerKey struct{}

func newRunner(parent context.Context) (*runner, context.Context) {
	r := &runner{}
	var ctx context.Context
	r.g, ctx = firsterr.New(context.WithValue(parent, runnerKey{}, r), recovered)
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
	r.g.Go(func() error {
		if err := f(); !r.expected(ctx, err) {
			return err
		}
		return nil
	})
}

// guard runs f, which builds and starts the run, in the caller's
// goroutine; a panic in it (in a stage's NewProcessor, say) fails the run
// like any error, so that the goroutines already started are cancelled.
func (r *runner) guard(ctx context.Context, name string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			r.fail(ctx, stageError(name, 0, false, recovered(p)))
		}
	}()
	f()
}

func (r *runner) fail(ctx context.Context, err error) {
	if !r.expected(ctx, err) {
		r.g.Fail(err)
	}
}

// expected reports whether err, returned under ctx, is not a failure of
// the run: nil, ErrStop, or any error of a stage upstream of one that
// stopped the stream (with ErrStop, or by taking a failure in band):
// the stream ends where that stage stopped, so what happens upstream
// after it, a context error or a failure of a later partition, is past
// its end, as in the serial run.
func (r *runner) expected(ctx context.Context, err error) bool {
	return err == nil || err == ErrStop ||
		ctx.Err() != nil && context.Cause(ctx) == errStopped
}

// wait waits for every goroutine and returns the run's first error. If the
// parent context was cancelled, its error is returned as it is.
func (r *runner) wait(parent context.Context) error {
	err := r.g.Wait()
	for i := len(r.atEnd) - 1; i >= 0; i-- {
		r.atEnd[i]()
	}
	r.atEnd = nil
	if err != nil && isContextErr(err) && parent.Err() != nil {
		err = context.Cause(parent)
	}
	r.endObserved(err)
	return err
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// recv receives from ch unless ctx is done first. A value already
// waiting is taken without a select on ctx: a non-blocking receive costs
// a fraction of a two-case select, which chunks pay at every hop.
func recv[T any](ctx context.Context, ch <-chan T) (v T, ok bool, err error) {
	select {
	case v, ok = <-ch:
		return v, ok, nil
	default:
	}
	select {
	case v, ok = <-ch:
		return v, ok, nil
	case <-ctx.Done():
		return v, false, ctx.Err()
	}
}

// send sends v on ch unless ctx is done first; where ch has room, without
// a select on ctx (see recv).
func send[T any](ctx context.Context, ch chan<- T, v T) error {
	select {
	case ch <- v:
		return nil
	default:
	}
	select {
	case ch <- v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// inBand is a downstream that can take a failure of the stream in band:
// the stage reading from it fails the run with the error where it meets
// it, after everything pushed before, as the serial run fails there. A
// goroutine whose chain ends in one hands it its error rather than
// failing the run at once, so that a failure met upstream at a later
// partition does not pre-empt one that a stage further down, on other
// goroutines, has yet to meet at an earlier partition. failInBand reports
// whether it took err; the error it returns is its own (a cancelled run).
type inBand interface {
	failInBand(ctx context.Context, err error) (bool, error)
}

// handOn hands err, the failure of a goroutine's stream, to term, the
// downstream its chain ends in, if term takes it in band (see inBand);
// it reports whether it did, and what the goroutine then returns. A
// cancelled run, ErrStop and a term that does not take failures leave err
// as it is.
func handOn(ctx context.Context, term any, err error) (bool, error) {
	if err == nil || err == ErrStop || ctx.Err() != nil {
		return false, err
	}
	f, ok := term.(inBand)
	if !ok {
		return false, err
	}
	if took, ferr := f.failInBand(ctx, err); took {
		return true, ferr
	}
	return false, err
}

// settle is what a goroutine that reads from upstream stages and feeds a
// chain ending in term returns for err, its stream's error. When it will
// take no more input (the chain stopped the stream with ErrStop, or term
// took err in band) it stops its upstream with errStopped.
func settle(ctx context.Context, term any, err error, stopUp context.CancelCauseFunc) error {
	took, err := handOn(ctx, term, err)
	if took || err == ErrStop {
		stopUp(errStopped)
	}
	if err == ErrStop {
		return nil
	}
	return err
}
