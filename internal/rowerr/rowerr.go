// Package rowerr holds the error that attaches a row's position to an
// error, so that a run's flow.StageError names the row that failed. flow's
// ErrorAt makes one from a chunk; the sources, stages and sinks of
// rowflow's own packages that know a row's partition and ID without a
// chunk make one directly. Users never see it: flow takes the position out
// of it into the StageError and keeps only the error it wraps.
package rowerr

import (
	"fmt"

	"github.com/rowflow/rowflow/rowid"
)

// Error is err, which happened at the row ID of partition Part.
type Error struct {
	Part int64
	ID   rowid.ID
	Err  error
}

func (e *Error) Error() string {
	return fmt.Sprintf("partition %d, row %s: %v", e.Part, e.ID, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
