package operators

import (
	"context"
	"fmt"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/run/slicepool"
	"github.com/rowflow/rowflow/rowid"
)

// Number is the element type of the token rows that [Pad] and [Pack]
// shape.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint |
		~float32 | ~float64
}

// Padded is a batch of variable-length rows made rectangular, ready for a
// tensor: Data holds Shape[0] rows of Shape[1] values each, row-major.
// Lengths gives each row's real length and Mask marks, in the same layout
// as Data, where a real value lies (true) and where padding does (false).
// IDs are the members' row IDs, the zero ID for padding rows.
type Padded[E Number] struct {
	Data    []E
	Shape   [2]int
	Lengths []int32
	Mask    []bool
	IDs     []rowid.ID
}

// Pad returns a stage that turns each batch of token rows ([Rows] of []E,
// as [Batch] and [BucketByLength] make) into one [Padded] batch. Rows are
// padded with value up to the longest row of the batch, on the right
// unless [PadLeft] is given; [PadMultiple] rounds the width up to a
// multiple of k and [PadLength] fixes it. Padding members of the batch
// ([Rows.Padding]) become rows of length 0.
//
// The item keeps its ID and partition number. Pad works on one batch at a
// time and may run on several workers. A row longer than [PadLength]
// fails the run, naming the partition and the row. Bad options are kept as
// the stage's error.
func Pad[E Number](value E, opts ...PadOption) flow.Stage {
	op := &padOp[E]{value: value, cfg: shapeConfig{name: "pad", padMult: 1}}
	op.err = configure(&op.cfg, opts)
	return flow.NewStage[Rows[[]E], Padded[E]](op)
}

// padOpt is taken by Pad.
type padOpt struct{ option }

func (padOpt) padOption() {}

// PadLeft pads at the start of each row instead of its end.
func PadLeft() PadOption {
	return padOpt{option{"PadLeft", func(c *shapeConfig) error { c.padLeft = true; return nil }}}
}

// PadMultiple rounds the width of each batch up to a multiple of k
// (default 1), as tensor cores like.
func PadMultiple(k int) PadOption {
	return padOpt{option{"PadMultiple", func(c *shapeConfig) error {
		if k < 1 {
			return fmt.Errorf("PadMultiple(%d): must be at least 1", k)
		}
		c.padMult = k
		return nil
	}}}
}

// PadLength makes every batch n wide, whatever its longest row (default:
// as wide as the longest row), or n rounded up to the [PadMultiple]
// given with it. A row longer than n is an error.
func PadLength(n int) PadOption {
	return padOpt{option{"PadLength", func(c *shapeConfig) error {
		if n < 1 {
			return fmt.Errorf("PadLength(%d): must be at least 1", n)
		}
		c.padLength = n
		return nil
	}}}
}

type padOp[E Number] struct {
	value E
	cfg   shapeConfig
	err   error
}

func (p *padOp[E]) Info() flow.Info {
	return flow.Info{Name: p.cfg.name, Settings: p.cfg.settings(fmt.Sprintf("value=%v", p.value))}
}

// Err reports a bad option.
func (p *padOp[E]) Err() error { return p.err }

func (p *padOp[E]) NewProcessor(flow.Env) flow.Processor[Rows[[]E], Padded[E]] {
	if p.err != nil {
		return failed[Rows[[]E], Padded[E]]{p.err}
	}
	return &padProc[E]{op: p}
}

type padProc[E Number] struct {
	op *padOp[E]
	passThrough[Padded[E]]
}

func (p *padProc[E]) Process(ctx context.Context, c flow.Chunk[Rows[[]E]], out flow.Emitter[Padded[E]]) (err error) {
	dst := slicepool.Alloc[Padded[E]](len(c.Values))
	k := 0
	defer guard(&c, &k, &err)
	for ; k < len(c.Values); k++ {
		b, err := p.op.pad(c.Values[k])
		if err != nil {
			slicepool.Recycle(dst)
			return flow.ErrorAt(&c, k, err)
		}
		dst = append(dst, b)
	}
	slicepool.Recycle(c.Values)
	return out.Push(ctx, flow.Chunk[Padded[E]]{Part: c.Part, IDs: c.IDs, Values: dst, End: c.End})
}

// pad makes one batch rectangular.
func (p *padOp[E]) pad(r Rows[[]E]) (Padded[E], error) {
	b, bad := padRows(r.Values, r.Padding, p.value, p.cfg.padLeft, p.cfg.padMult, p.cfg.padLength)
	if bad >= 0 {
		return Padded[E]{}, fmt.Errorf("operators: pad: member %d (row %s) has %d values, more than PadLength(%d)", bad, r.IDs[bad], len(r.Values[bad]), p.cfg.padLength)
	}
	b.IDs = r.IDs
	return b, nil
}

// padRows lays rows out as a [Padded] without IDs, each row padded with
// value on the right (or the left) up to the longest row, or to length if
// it is above 0, rounded up to a multiple of mult; the last padding rows
// count as empty. It returns the index of the first row longer than
// length, or -1.
func padRows[E Number](rows [][]E, padding int, value E, left bool, mult, length int) (Padded[E], int) {
	width := 0
	for _, row := range rows {
		width = max(width, len(row))
	}
	if length > 0 {
		if width > length {
			for i, row := range rows {
				if len(row) > length {
					return Padded[E]{}, i
				}
			}
		}
		width = length
	}
	if width%mult != 0 {
		width += mult - width%mult
	}
	n := len(rows)
	b := Padded[E]{Data: make([]E, n*width), Shape: [2]int{n, width},
		Lengths: make([]int32, n), Mask: make([]bool, n*width)}
	for i, row := range rows {
		if i >= n-padding {
			row = nil
		}
		line, mask := b.Data[i*width:(i+1)*width], b.Mask[i*width:(i+1)*width]
		at := 0
		if left {
			at = width - len(row)
		}
		end := at + copy(line[at:], row)
		fill(line[:at], value)
		fill(line[end:], value)
		fill(mask[at:end], true)
		b.Lengths[i] = int32(len(row))
	}
	return b, -1
}

func fill[E any](s []E, v E) {
	for i := range s {
		s[i] = v
	}
}
