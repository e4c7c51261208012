package pqcol

import (
	"encoding/binary"
	"io"
)

// The format makes the value of a footer's key-value metadata entry
// optional, but parquet-go's thrift definition requires it: a file with a
// key and no value does not open. Before parquet-go decodes a footer,
// dropValuelessKeys removes such entries, so the file opens and the value
// reads as absent (parquet-go's metadata cannot tell an absent value from
// an empty one, so the key goes too).

// FileMetaData's key_value_metadata field, and KeyValue's value field.
const (
	keyValueMetadataField = 5
	keyValueValueField    = 2
)

// dropValuelessKeys returns the footer (a FileMetaData struct that
// checkThrift accepted) without its key-value entries that have no value,
// or nil if it has none.
func dropValuelessKeys(footer []byte) ([]byte, error) {
	w := thriftWalker{b: footer}
	var id int16
	for {
		fid, t, stop, err := w.field(id)
		if err != nil || stop {
			return nil, err
		}
		id = fid
		if id != keyValueMetadataField || t != 9 {
			if err := w.value(t, 0, false); err != nil {
				return nil, err
			}
			continue
		}
		head := w.i
		n, et, err := w.listHeader()
		if err != nil || et != 12 {
			return nil, err
		}
		var kept [][]byte
		for range n {
			el := w.i
			hasValue, err := w.keyValue()
			if err != nil {
				return nil, err
			}
			if hasValue {
				kept = append(kept, footer[el:w.i])
			}
		}
		if len(kept) == int(n) {
			return nil, nil
		}
		out := append([]byte(nil), footer[:head]...)
		if len(kept) < 15 {
			out = append(out, byte(len(kept))<<4|12)
		} else {
			out = binary.AppendUvarint(append(out, 0xf0|12), uint64(len(kept)))
		}
		for _, k := range kept {
			out = append(out, k...)
		}
		return append(out, footer[w.i:]...), nil
	}
}

// field reads a field header after the field last; stop reports the stop
// byte that ends a struct.
func (w *thriftWalker) field(last int16) (id int16, t byte, stop bool, err error) {
	h, err := w.byte()
	if err != nil || h == 0 {
		return 0, 0, true, err
	}
	if delta := h >> 4; delta != 0 {
		return last + int16(delta), h & 0x0f, false, nil
	}
	u, err := w.uvarint()
	return int16(u>>1) ^ -int16(u&1), h & 0x0f, false, err
}

// listHeader reads a list header: its size and element type.
func (w *thriftWalker) listHeader() (uint64, byte, error) {
	h, err := w.byte()
	if err != nil {
		return 0, 0, err
	}
	n := uint64(h >> 4)
	if n == 15 {
		if n, err = w.uvarint(); err != nil {
			return 0, 0, err
		}
	}
	if n > w.left() {
		return 0, 0, io.ErrUnexpectedEOF
	}
	return n, h & 0x0f, nil
}

// keyValue skips a KeyValue struct and reports whether it has a value.
func (w *thriftWalker) keyValue() (hasValue bool, err error) {
	var id int16
	for {
		fid, t, stop, err := w.field(id)
		if err != nil || stop {
			return hasValue, err
		}
		id = fid
		hasValue = hasValue || id == keyValueValueField
		if err := w.value(t, 1, false); err != nil {
			return false, err
		}
	}
}

// patchedFooter serves a Parquet file whose footer is replaced: the bytes
// before the footer come from r, the rest from tail (the new footer, its
// length and the magic bytes).
type patchedFooter struct {
	r    io.ReaderAt
	at   int64 // where the footer starts
	tail []byte
}

func newPatchedFooter(r io.ReaderAt, at int64, footer []byte) *patchedFooter {
	tail := binary.LittleEndian.AppendUint32(append([]byte(nil), footer...), uint32(len(footer)))
	return &patchedFooter{r: r, at: at, tail: append(tail, "PAR1"...)}
}

func (p *patchedFooter) size() int64 { return p.at + int64(len(p.tail)) }

func (p *patchedFooter) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	if off < p.at {
		k := int(min(int64(len(b)), p.at-off))
		var err error
		if n, err = p.r.ReadAt(b[:k], off); n < k {
			return n, err
		}
	}
	if n < len(b) {
		i := off + int64(n) - p.at
		if i >= int64(len(p.tail)) {
			return n, io.EOF
		}
		n += copy(b[n:], p.tail[i:])
		if n < len(b) {
			return n, io.EOF
		}
	}
	return n, nil
}
