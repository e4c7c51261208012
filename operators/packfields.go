package operators

import (
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
)

// PackedColumns is one fixed-length row of packed structs (see
// [PackFields]): a [Column] per field of the struct, and the row's
// layout as in [Packed]. Segments gives per position the number (from 1)
// of the struct it comes from within the row, 0 for padding; Positions
// its position within that struct's sequence; per segment, Members gives
// the struct's row ID and Offsets where the segment starts in its
// sequence.
type PackedColumns struct {
	Columns   []Column
	Segments  []int32
	Positions []int32
	Members   []rowid.ID
	Offsets   []int32
}

// PackFields returns a stage that packs structs T whose slice fields
// travel together, such as a training example's input ids, labels and
// loss mask, into rows of exactly length values per field, each row one
// item whose value is a [PackedColumns].
//
// One slice field holds the tokens: the one whose `collate` tag has the
// option tokens, or else the first slice field. The tokens decide the
// packing exactly as [Pack] packs them, with the same options: the same
// rows, segments, positions, members and offsets, and the same row IDs
// but for the fixed ID they fold from, "packfields" by default (under
// Named("pack"), Pack's IDs). Every other
// slice field of a struct must have as many values as its tokens and is
// cut at the same points, each row's column padded on the right with the
// field's own pad value. A struct whose field has another length fails
// the run, naming the field, the partition and the row.
//
// Fields are chosen and named by their `collate` tags as [Collate]
// chooses them; pad=V is the only padding option that applies, with
// tokens:
//
//	InputIDs []int32 `collate:"input_ids,tokens"`
//	Labels   []int64 `collate:"labels,pad=-100"`
//	Weight   float32 `collate:"weight"`
//
// A slice field's column has Shape [length] and Data a slice of its
// kind, as in [Collated]; Lengths and Mask are nil, as Segments marks the
// padding. A number or bool field's column has one value per segment,
// Shape [len(Members)], taken from the struct the segment comes from.
//
// PackFields is serial, keeps the structs of its window as values, and
// resumes from a checkpoint as Pack does.
func PackFields[T any](length int, opts ...PackOption) flow.Stage {
	return flow.NewStage[T, PackedColumns](newPackFieldsOp[T](length, opts))
}

func newPackFieldsOp[T any](length int, opts []PackOption) *packOp[T, PackedColumns] {
	op := newPacker[T, PackedColumns]("packfields", "PackFields", length, opts)
	if op.err != nil {
		return op
	}
	fields, tokens, err := packFields(reflect.TypeFor[T](), op.cfg)
	if err != nil {
		op.err = err
		return op
	}
	cols := make([]string, len(fields))
	for i := range fields {
		cols[i] = fields[i].String()
	}
	op.settings = fmt.Sprintf("length=%d tokens=%s columns=[%s]", length, fields[tokens].name, strings.Join(cols, ", "))
	tok := fields[tokens]
	op.size = func(v T) (int, error) {
		p := unsafe.Pointer(&v)
		n := sliceLen(p, tok.off)
		for i := range fields {
			if f := &fields[i]; f.list && i != tokens {
				if m := sliceLen(p, f.off); m != n {
					return 0, fmt.Errorf("operators: packfields: column %s has %d values, its tokens (%s) %d", f.name, m, tok.name, n)
				}
			}
		}
		return n, nil
	}
	op.build = func(segs []seq[T], l packLayout) PackedColumns {
		vals := make([]T, len(segs))
		pieces := make([]packPiece, len(segs))
		for i := range segs {
			vals[i] = segs[i].val
			pieces[i] = packPiece{row: unsafe.Pointer(&vals[i]), off: int(segs[i].offset), n: int(segs[i].n)}
		}
		r := PackedColumns{Columns: make([]Column, len(fields)), Segments: l.Segments, Positions: l.Positions, Members: l.Members, Offsets: l.Offsets}
		var zero T
		for i := range fields {
			f := &fields[i]
			var c Column
			if f.list {
				c = f.pack(pieces, length)
			} else {
				// A vector of one value per segment; it has no padding
				// members and so cannot fail.
				c, _ = f.put(unsafe.Pointer(unsafe.SliceData(vals)), unsafe.Sizeof(zero), len(vals), 0, l.Members)
			}
			c.Name = f.name
			r.Columns[i] = c
		}
		return r
	}
	return op
}

// packFields reads the fields of t that PackFields packs, and which of
// them holds the tokens.
func packFields(t reflect.Type, cfg shapeConfig) ([]collateField, int, error) {
	cfg.name, cfg.padLeft, cfg.padMult, cfg.padLength = "packfields", false, 1, 0
	fields, err := collateFields(t, cfg)
	if err != nil {
		return nil, 0, err
	}
	tokens := -1
	for i := range fields {
		f := &fields[i]
		switch {
		case f.list && (f.left || f.mult != 1 || f.length != 0):
			return nil, 0, fmt.Errorf("operators: packfields: column %s of %v: a packed field is padded to the row's length on the right; of the padding options only pad= applies", f.name, t)
		case f.tokens && tokens >= 0:
			return nil, 0, fmt.Errorf("operators: packfields: columns %s and %s of %v are both tagged as the tokens", fields[tokens].name, f.name, t)
		case f.tokens:
			tokens = i
		}
	}
	for i := range fields {
		if tokens < 0 && fields[i].list {
			tokens = i
		}
	}
	if tokens < 0 {
		return nil, 0, fmt.Errorf("operators: packfields: %v has no field of a slice of numbers to pack", t)
	}
	return fields, tokens, nil
}

// sliceLen is the length of the slice at offset off of the struct at p;
// every slice has the same header.
func sliceLen(p unsafe.Pointer, off uintptr) int {
	return len(*(*[]byte)(unsafe.Add(p, off)))
}

// packPiece is a segment of a packed row: values off to off+n of a slice
// field of the struct at row.
type packPiece struct {
	row    unsafe.Pointer
	off, n int
}

// packFunc makes a slice field's column of a packed row of length values
// from its segments.
type packFunc func(pieces []packPiece, length int) Column

// packColumn packs the slice field at offset off, padded with pad.
func packColumn[E Number](off uintptr, pad E) packFunc {
	return func(pieces []packPiece, length int) Column {
		data := make([]E, 0, length)
		for _, p := range pieces {
			s := *(*[]E)(unsafe.Add(p.row, off))
			data = append(data, s[p.off:p.off+p.n]...)
		}
		n := len(data)
		data = data[:length]
		fill(data[n:], pad)
		return Column{Shape: []int{length}, Data: data}
	}
}
