package determinism

import (
	"fmt"
	"strings"

	"github.com/rowflow/rowflow/rowid"
)

// Divergence is the error [Verify] returns when a run's stream differs
// from the reference run's, at parallelism 1. It describes the first
// position where they differ.
type Divergence struct {
	// Parallelism is the parallelism of the run that differs.
	Parallelism int
	// Round is the round of that run, from 1 (see [Runs]).
	Round int
	// Position is the index of the first item that differs, from 0.
	Position int64
	// Reference and Candidate are what the reference run and the run that
	// differs have at Position.
	Reference, Candidate Observation

	valueDiffers bool
}

// Observation is what one run has at a position of its stream: an item,
// or nothing because the run has ended.
type Observation struct {
	// Ended says that the run ended before the position; the other fields
	// are then zero.
	Ended bool
	Batch int64
	ID    rowid.ID
	Value any
}

// maxValueText is the most bytes of a value that a Divergence prints.
const maxValueText = 200

func (o Observation) String() string {
	if o.Ended {
		return "ended"
	}
	v := fmt.Sprintf("%v", o.Value)
	if len(v) > maxValueText {
		v = v[:maxValueText] + "…"
	}
	return fmt.Sprintf("batch %d, row %v, value %s", o.Batch, o.ID, v)
}

func (d *Divergence) Error() string {
	run := fmt.Sprintf("parallelism %d (round %d)", d.Parallelism, d.Round)
	switch {
	case d.Candidate.Ended:
		return fmt.Sprintf("determinism: %s ended early, after %d items; parallelism 1 has item %d: %v",
			run, d.Position, d.Position, d.Reference)
	case d.Reference.Ended:
		return fmt.Sprintf("determinism: %s has an extra item %d after parallelism 1 ended with %d items: %v",
			run, d.Position, d.Position, d.Candidate)
	}
	return fmt.Sprintf("determinism: item %d differs (%s): parallelism 1 has %v; %s has %v",
		d.Position, strings.Join(d.differs(), ", "), d.Reference, run, d.Candidate)
}

// differs names the fields of the item at Position that differ.
func (d *Divergence) differs() []string {
	var f []string
	r, c := d.Reference, d.Candidate
	if r.Batch != c.Batch {
		f = append(f, "batch")
	}
	if r.ID != c.ID {
		f = append(f, "row ID")
	}
	if d.valueDiffers {
		f = append(f, "value")
	}
	return f
}
