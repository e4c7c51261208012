package pqcol

import (
	"encoding/binary"
	"io"
)

// The format makes the value of a key-value metadata entry optional, but
// parquet-go's thrift definition requires it: a file with a key and no
// value, in the footer's own metadata or in a column chunk's, does not
// open. Before parquet-go decodes a footer, dropValuelessKeys removes such
// entries, so the file opens and the value reads as absent (parquet-go's
// metadata cannot tell an absent value from an empty one, so the key goes
// too).

// The thrift field IDs on the way to the key-value lists: FileMetaData's
// row_groups and key_value_metadata, RowGroup's columns, ColumnChunk's
// meta_data, ColumnMetaData's key_value_metadata, and KeyValue's value.
const (
	fileRowGroupsField       = 4
	keyValueMetadataField    = 5
	rowGroupColumnsField     = 1
	columnChunkMetaField     = 3
	columnKeyValueMetaField  = 8
	keyValueValueField       = 2
	thriftList, thriftStruct = 9, 12
)

// dropValuelessKeys returns the footer (a FileMetaData struct that
// checkThrift accepted) without its key-value entries that have no value,
// the file's and its column chunks', or nil if it has none.
func dropValuelessKeys(footer []byte) ([]byte, error) {
	p := kvPatcher{w: thriftWalker{b: footer}}
	err := p.fields(func(id int16, t byte) (bool, error) {
		switch {
		case id == keyValueMetadataField && t == thriftList:
			return true, p.keyValues()
		case id == fileRowGroupsField && t == thriftList:
			return true, p.structs(p.rowGroup)
		}
		return false, nil
	})
	if err != nil || !p.changed {
		return nil, err
	}
	return append(p.out, footer[p.from:]...), nil
}

// kvPatcher copies a footer, leaving out the key-value entries without a
// value: out holds the copy of the footer up to from.
type kvPatcher struct {
	w       thriftWalker
	out     []byte
	from    int
	changed bool
}

// fields walks the fields of a struct up to its stop byte, handing each
// to handle, and skips those handle does not take.
func (p *kvPatcher) fields(handle func(id int16, t byte) (bool, error)) error {
	var id int16
	for {
		fid, t, stop, err := p.w.field(id)
		if err != nil || stop {
			return err
		}
		id = fid
		took, err := handle(id, t)
		if err != nil {
			return err
		}
		if !took {
			if err := p.w.value(t, 1, false); err != nil {
				return err
			}
		}
	}
}

// structs walks a list of structs, walking each with walk; a list of
// another type is skipped.
func (p *kvPatcher) structs(walk func() error) error {
	n, et, err := p.w.listHeader()
	if err != nil {
		return err
	}
	for range n {
		if et != thriftStruct {
			err = p.w.value(et, 1, true)
		} else {
			err = walk()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *kvPatcher) rowGroup() error {
	return p.fields(func(id int16, t byte) (bool, error) {
		if id == rowGroupColumnsField && t == thriftList {
			return true, p.structs(p.columnChunk)
		}
		return false, nil
	})
}

func (p *kvPatcher) columnChunk() error {
	return p.fields(func(id int16, t byte) (bool, error) {
		if id == columnChunkMetaField && t == thriftStruct {
			return true, p.fields(func(id int16, t byte) (bool, error) {
				if id == columnKeyValueMetaField && t == thriftList {
					return true, p.keyValues()
				}
				return false, nil
			})
		}
		return false, nil
	})
}

// keyValues walks a list of KeyValue structs and leaves out of the copy
// those without a value. A list of another type is skipped as it is
// (parquet-go refuses it).
func (p *kvPatcher) keyValues() error {
	footer := p.w.b
	head := p.w.i
	n, et, err := p.w.listHeader()
	if err != nil {
		return err
	}
	var kept [][]byte
	for range n {
		el := p.w.i
		if et != thriftStruct {
			if err := p.w.value(et, 1, true); err != nil {
				return err
			}
			continue
		}
		hasValue, err := p.w.keyValue()
		if err != nil {
			return err
		}
		if hasValue {
			kept = append(kept, footer[el:p.w.i])
		}
	}
	if et != thriftStruct || len(kept) == int(n) {
		return nil
	}
	p.out = append(p.out, footer[p.from:head]...)
	if len(kept) < 15 {
		p.out = append(p.out, byte(len(kept))<<4|thriftStruct)
	} else {
		p.out = binary.AppendUvarint(append(p.out, 0xf0|thriftStruct), uint64(len(kept)))
	}
	for _, k := range kept {
		p.out = append(p.out, k...)
	}
	p.from, p.changed = p.w.i, true
	return nil
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
