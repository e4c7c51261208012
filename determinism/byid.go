package determinism

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// RowDifference is the error [CompareByID] returns: the first row ID, in
// ID order, whose rows differ between the two pipelines.
type RowDifference struct {
	// ID is the row ID.
	ID rowid.ID
	// First and Second are what each pipeline has under ID; Ended is set
	// on the side that has no row with that ID.
	First, Second Observation
	// Duplicate says that one side has the ID more than once (its
	// Observation is then the second occurrence). The other side has the
	// ID too, but its row is not read: Ended is set on it to say which
	// side is reported.
	Duplicate bool
	// Path is where the values first differ, as in [Divergence].
	Path string
	at   fieldDiff
}

func (d *RowDifference) Error() string {
	switch {
	case d.Duplicate && !d.First.Ended:
		return fmt.Sprintf("determinism: row %v appears twice in the first pipeline: %v", d.ID, d.First)
	case d.Duplicate:
		return fmt.Sprintf("determinism: row %v appears twice in the second pipeline: %v", d.ID, d.Second)
	case d.Second.Ended:
		return fmt.Sprintf("determinism: row %v is only in the first pipeline: %v", d.ID, d.First)
	case d.First.Ended:
		return fmt.Sprintf("determinism: row %v is only in the second pipeline: %v", d.ID, d.Second)
	}
	msg := fmt.Sprintf("determinism: row %v differs: the first pipeline has %v; the second has %v", d.ID, d.First, d.Second)
	if d.Path != "" {
		msg += fmt.Sprintf("; the values first differ at %s: the first has %s, the second has %s", d.Path, d.at.a, d.at.b)
	}
	return msg
}

// rowDigest is one row of a stream: its ID and a digest of its value.
type rowDigest struct {
	id     rowid.ID
	digest [16]byte
}

// CompareByID runs a and b, which must have no sink and produce values of
// type T, and compares them as sets of rows keyed by row ID: the same IDs
// with the same values, whatever the order and the partitioning. Use it
// to check two outputs of a job that wrote them differently (other shard
// sizes, another number of writers or ranks) by reading each back with
// its row-ID column as the source's IDs, or a pipeline against a changed
// version of itself when only the order may change.
//
// It returns nil if they hold the same rows, a [*RowDifference] for the
// smallest row ID that differs (missing on one side, twice on one side,
// or with another value), or the error of a run, naming the run. It keeps
// a 32-byte digest per row, and reads each pipeline a second time to show
// the values of the row that differs.
func CompareByID[T any](ctx context.Context, a, b *flow.Pipeline) error {
	if a == nil || b == nil {
		return errors.New("determinism: CompareByID of a nil pipeline")
	}
	if err := encodable[T](); err != nil {
		return err
	}
	ra, err := digestRows[T](ctx, a, "the first pipeline")
	if err != nil {
		return err
	}
	rb, err := digestRows[T](ctx, b, "the second pipeline")
	if err != nil {
		return err
	}
	d := firstRowDifference(ra, rb)
	if d == nil {
		return nil
	}
	if err := observe[T](ctx, a, d.ID, d.Duplicate && !d.First.Ended, &d.First, "the first pipeline"); err != nil {
		return err
	}
	if err := observe[T](ctx, b, d.ID, d.Duplicate && d.First.Ended, &d.Second, "the second pipeline"); err != nil {
		return err
	}
	if !d.Duplicate && !d.First.Ended && !d.Second.Ended {
		va, vb := d.First.Value.(T), d.Second.Value.(T)
		if at, ok := firstDiff(reflect.TypeFor[T](), unsafe.Pointer(&va), unsafe.Pointer(&vb)); ok {
			d.Path, d.at = at.path, at
		}
	}
	return d
}

// digestRows reads p and returns its rows sorted by ID.
func digestRows[T any](ctx context.Context, p *flow.Pipeline, name string) ([]rowDigest, error) {
	c := mustCodec[T]()
	var s state
	var rows []rowDigest
	for it, err := range flow.Items[T](ctx, p) {
		if err != nil {
			return nil, fmt.Errorf("determinism: %s: %w", name, err)
		}
		if err := encodeValue(c, &s, unsafe.Pointer(&it.Value)); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(s.b)
		rows = append(rows, rowDigest{id: it.ID, digest: [16]byte(sum[:16])})
	}
	slices.SortStableFunc(rows, func(x, y rowDigest) int { return x.id.Compare(y.id) })
	return rows, nil
}

// firstRowDifference walks two ID-sorted row lists together and returns
// the first ID at which they differ, with Ended set on a missing side. At
// each step it takes the smaller of the two current IDs, so that a row
// missing on one side is reported before a duplicate with a larger ID; an
// ID on both sides is a duplicate if either side has it twice (the first
// side's if both do).
func firstRowDifference(a, b []rowDigest) *RowDifference {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].id.Compare(b[j].id) < 0:
			return &RowDifference{ID: a[i].id, Second: Observation{Ended: true}}
		case i == len(a) || b[j].id.Compare(a[i].id) < 0:
			return &RowDifference{ID: b[j].id, First: Observation{Ended: true}}
		case i+1 < len(a) && a[i].id == a[i+1].id:
			return &RowDifference{ID: a[i].id, Duplicate: true, Second: Observation{Ended: true}}
		case j+1 < len(b) && b[j].id == b[j+1].id:
			return &RowDifference{ID: b[j].id, Duplicate: true, First: Observation{Ended: true}}
		case a[i].digest != b[j].digest:
			return &RowDifference{ID: a[i].id}
		}
		i, j = i+1, j+1
	}
	return nil
}

// observe reads p again for the row with the given ID (its second
// occurrence if second) and sets o to it.
func observe[T any](ctx context.Context, p *flow.Pipeline, id rowid.ID, second bool, o *Observation, name string) error {
	if o.Ended {
		return nil
	}
	seen := false
	for it, err := range flow.Items[T](ctx, p) {
		if err != nil {
			return fmt.Errorf("determinism: %s: %w", name, err)
		}
		if it.ID != id {
			continue
		}
		if second && !seen {
			seen = true
			continue
		}
		*o = Observation{Part: it.Part, ID: it.ID, Value: it.Value}
		return nil
	}
	return fmt.Errorf("determinism: %s gave another stream on its second reading: row %v is gone", name, id)
}
