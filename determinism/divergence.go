package determinism

import (
	"fmt"
	"strings"

	"github.com/rowflow/rowflow/rowid"
)

// Divergence is the error [Verify] returns when a run's stream differs
// from the reference run's, at parallelism 1, and [Compare] returns when
// the second pipeline's stream differs from the first's. It describes the
// first position where they differ.
type Divergence struct {
	// Parallelism is the parallelism of the run that differs; 0 for
	// Compare.
	Parallelism int
	// Round is the round of that run, from 1 (see [Runs]); 0 for Compare.
	Round int
	// Position is the index of the first item that differs, from 0.
	Position int64
	// Reference and Candidate are what the reference run and the run that
	// differs have at Position.
	Reference, Candidate Observation
	// Path is where the values first differ, as a Go selector from the
	// value: ".Rows[17].Text", ".Tags.(string)" for the string held in
	// the interface field Tags, "len(.Rows)" when one slice is a prefix
	// of the other. It is empty when the values are equal, when they
	// differ as a whole (a number, a map) or when one run has ended.
	Path string

	valueDiffers bool
	// at is what each value has at Path.
	at fieldDiff
	// ref and cand name the two runs in the message.
	ref, cand string
}

// Observation is what one run has at a position of its stream: an item,
// or nothing because the run has ended.
type Observation struct {
	// Ended says that the run ended before the position; the other fields
	// are then zero.
	Ended bool
	Part  int64
	ID    rowid.ID
	Value any
}

// maxValueText is the most bytes of a value that a Divergence prints.
const maxValueText = 200

func (o Observation) String() string {
	if o.Ended {
		return "ended"
	}
	return fmt.Sprintf("partition %d, row %v, value %s", o.Part, o.ID, cut(fmt.Sprintf("%+v", o.Value)))
}

// Error describes the first difference. When the values differ in a
// part, it ends with the path to that part and what each run has there,
// so that a difference deep in a large value shows even though the
// values are cut to 200 bytes.
func (d *Divergence) Error() string {
	ref, run := d.ref, d.cand
	if ref == "" {
		ref, run = "parallelism 1", fmt.Sprintf("parallelism %d (round %d)", d.Parallelism, d.Round)
	}
	switch {
	case d.Candidate.Ended:
		return fmt.Sprintf("determinism: %s ended early, after %d items; %s has item %d: %v",
			run, d.Position, ref, d.Position, d.Reference)
	case d.Reference.Ended:
		return fmt.Sprintf("determinism: %s has an extra item %d after %s ended with %d items: %v",
			run, d.Position, ref, d.Position, d.Candidate)
	}
	msg := fmt.Sprintf("determinism: item %d differs (%s): %s has %v; %s has %v",
		d.Position, strings.Join(d.differs(), ", "), ref, d.Reference, run, d.Candidate)
	if d.Path != "" {
		msg += fmt.Sprintf("; the values first differ at %s: %s has %s, %s has %s",
			d.Path, ref, d.at.a, run, d.at.b)
	}
	return msg
}

// differs names the fields of the item at Position that differ.
func (d *Divergence) differs() []string {
	var f []string
	r, c := d.Reference, d.Candidate
	if r.Part != c.Part {
		f = append(f, "partition")
	}
	if r.ID != c.ID {
		f = append(f, "row ID")
	}
	if d.valueDiffers {
		f = append(f, "value")
	}
	return f
}
