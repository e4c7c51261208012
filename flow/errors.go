package flow

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/rowflow/rowflow/internal/api/linkage"
	"github.com/rowflow/rowflow/rowid"
)

// StageError is how a run reports the failure of one stage: which stage,
// and where known the partition and the row ID being processed.
type StageError struct {
	Stage string
	Part  int64 // valid if HasPart
	ID    rowid.ID
	// HasPart and HasID say whether Part and ID are known.
	HasPart, HasID bool
	// Where is where the row lies in the input (a file and a row or byte
	// in it), when the source could tell (see RowLocator).
	Where string
	Err   error
}

func (e *StageError) Error() string {
	switch {
	case e.HasID && e.Where != "":
		return fmt.Sprintf("flow: stage %q, partition %d, row %s (%s): %v", e.Stage, e.Part, e.ID, e.Where, e.Err)
	case e.HasID:
		return fmt.Sprintf("flow: stage %q, partition %d, row %s: %v", e.Stage, e.Part, e.ID, e.Err)
	case e.HasPart:
		return fmt.Sprintf("flow: stage %q, partition %d: %v", e.Stage, e.Part, e.Err)
	}
	return fmt.Sprintf("flow: stage %q: %v", e.Stage, e.Err)
}

func (e *StageError) Unwrap() error { return e.Err }

// ErrorAt returns err attached to the k-th row of c, so that the run's
// [StageError] names that row's partition and ID. It returns nil if err
// is nil and err itself if err is [ErrStop].
func ErrorAt[T any](c *Chunk[T], k int, err error) error {
	if err == nil || err == ErrStop {
		return err
	}
	return &linkage.RowError{Part: c.Part, ID: c.IDs.At(k), Err: err}
}

// PanicError is a panic in a stage or a user function, turned into an
// error. Its message is one line, "panic: " and the panic value; the stack
// of the goroutine that panicked is kept in Stack for those who want it:
//
//	var pe *flow.PanicError
//	if errors.As(err, &pe) {
//		log.Printf("%v\n%s", err, pe.Stack)
//	}
type PanicError struct {
	Value any    // the value given to panic
	Stack []byte // the goroutine's stack where it was recovered, as [debug.Stack] formats it
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value if it is an error (a runtime error, or an
// error a function panicked with), so that [errors.Is] and [errors.As] see
// it, and nil otherwise.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// recovered turns a recovered panic value into a *PanicError with the
// current stack.
func recovered(r any) error {
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// stageError wraps err, which stage produced while handling batch (if
// hasBatch), unless it is nil, ErrStop or already a StageError.
func stageError(stage string, batch int64, hasBatch bool, err error) error {
	if err == nil || err == ErrStop {
		return err
	}
	var se *StageError
	if errors.As(err, &se) {
		return err
	}
	e := &StageError{Stage: stage, Part: batch, HasPart: hasBatch, Err: err}
	var re *linkage.RowError
	if errors.As(err, &re) {
		e.Part, e.ID, e.HasPart, e.HasID, e.Err = re.Part, re.ID, true, true, re.Err
	}
	return e
}
