package pqcol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// parquet-go's thrift decoder allocates a list's elements before reading
// them, for whatever count the list header states: a footer of a few dozen
// bytes that claims 2^27 schema elements makes it allocate gigabytes. So
// before parquet-go decodes a footer or a page index, checkThrift walks the
// compact-protocol bytes and checks that every length and element count
// fits in the bytes that remain. Decoding then allocates at most a small
// multiple of the input's size.

const maxThriftDepth = 64

// checkThrift checks the compact-protocol struct at the start of b.
func checkThrift(b []byte) error {
	w := thriftWalker{b: b}
	if err := w.structure(0); err != nil {
		return fmt.Errorf("at byte %d: %w", w.i, err)
	}
	return nil
}

type thriftWalker struct {
	b []byte
	i int
}

func (w *thriftWalker) left() uint64 { return uint64(len(w.b) - w.i) }

func (w *thriftWalker) byte() (byte, error) {
	if w.i >= len(w.b) {
		return 0, io.ErrUnexpectedEOF
	}
	w.i++
	return w.b[w.i-1], nil
}

func (w *thriftWalker) uvarint() (uint64, error) {
	v, k := binary.Uvarint(w.b[w.i:])
	if k <= 0 {
		return 0, fmt.Errorf("malformed varint")
	}
	w.i += k
	return v, nil
}

func (w *thriftWalker) skip(n uint64) error {
	if n > w.left() {
		return fmt.Errorf("%d bytes declared, %d left", n, w.left())
	}
	w.i += int(n)
	return nil
}

func (w *thriftWalker) structure(depth int) error {
	if depth > maxThriftDepth {
		return fmt.Errorf("structs nested deeper than %d", maxThriftDepth)
	}
	for {
		h, err := w.byte()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil // stop field
		}
		if h>>4 == 0 { // the field id follows as a varint
			if _, err := w.uvarint(); err != nil {
				return err
			}
		}
		if err := w.value(h&0x0f, depth, false); err != nil {
			return err
		}
	}
}

// value skips a value of compact type t. A boolean field carries its value
// in the field header; a boolean list element takes a byte.
func (w *thriftWalker) value(t byte, depth int, element bool) error {
	switch t {
	case 1, 2: // boolean
		if element {
			_, err := w.byte()
			return err
		}
		return nil
	case 3: // byte
		_, err := w.byte()
		return err
	case 4, 5, 6: // i16, i32, i64 (zigzag varints)
		_, err := w.uvarint()
		return err
	case 7: // double
		return w.skip(8)
	case 8: // binary
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		return w.skip(n)
	case 9, 10: // list, set
		h, err := w.byte()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = w.uvarint(); err != nil {
				return err
			}
		}
		return w.elements(n, h&0x0f, 0, depth)
	case 11: // map
		n, err := w.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := w.byte()
		if err != nil {
			return err
		}
		return w.elements(n, kv>>4, kv&0x0f, depth)
	case 12: // struct
		return w.structure(depth + 1)
	}
	return fmt.Errorf("unknown thrift type %d", t)
}

// elements skips n list elements of type t, or n map entries of key type t
// and value type v. Every element takes at least a byte, so n may not
// exceed the bytes left.
func (w *thriftWalker) elements(n uint64, t, v byte, depth int) error {
	if n > w.left() {
		return fmt.Errorf("%d elements declared, %d bytes left", n, w.left())
	}
	for range n {
		if err := w.value(t, depth+1, true); err != nil {
			return err
		}
		if v != 0 {
			if err := w.value(v, depth+1, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkFooter reads the footer of the Parquet file of the given size and
// checks it with checkThrift before parquet-go decodes it. It returns the
// file as parquet-go should read it: r itself, or, if key-value entries
// without a value had to be dropped (see dropValuelessKeys), a view of r
// with the footer patched, and its size.
func checkFooter(r io.ReaderAt, size int64) (io.ReaderAt, int64, error) {
	if size < 12 {
		return nil, 0, corruptf("%d bytes is too short for a Parquet file", size)
	}
	var tail [8]byte
	if err := readAt(r, tail[:], size-8); err != nil {
		return nil, 0, fmt.Errorf("reading the footer: %w", err)
	}
	switch string(tail[4:]) {
	case "PAR1":
	case "PARE":
		return nil, 0, unsupportedf("encrypted footer")
	default:
		return nil, 0, corruptf("the file does not end with the Parquet magic bytes")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return nil, 0, corruptf("the footer length %d exceeds the file's %d bytes", n, size)
	}
	footer := make([]byte, n)
	if err := readAt(r, footer, size-8-n); err != nil {
		return nil, 0, fmt.Errorf("reading the footer: %w", err)
	}
	if err := checkThrift(footer); err != nil {
		return nil, 0, corruptf("file metadata: %v", err)
	}
	patched, err := dropValuelessKeys(footer)
	if err != nil {
		return nil, 0, corruptf("file metadata: %v", err)
	}
	if patched != nil {
		p := newPatchedFooter(r, size-8-n, patched)
		r, size, footer = p, p.size(), patched
	}
	var md format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), footer, &md); err != nil {
		return nil, 0, corruptf("file metadata: %v", err)
	}
	return r, size, checkSchema(md.Schema)
}

// checkSchema checks that the flattened schema is a tree: every group's
// children exist, and all elements belong to the root. (parquet-go panics
// on some schemas that are not.)
func checkSchema(schema []format.SchemaElement) error {
	if len(schema) == 0 {
		return corruptf("the schema is empty")
	}
	var walk func(i, depth int) (int, error)
	walk = func(i, depth int) (int, error) {
		if depth > maxThriftDepth {
			return 0, corruptf("the schema nests deeper than %d levels", maxThriftDepth)
		}
		if i >= len(schema) {
			return 0, corruptf("a schema group declares more children than the schema holds")
		}
		e := &schema[i]
		i++
		if !e.NumChildren.Valid || e.NumChildren.V == 0 {
			return i, nil
		}
		if e.NumChildren.V < 0 || int(e.NumChildren.V) > len(schema)-i {
			return 0, corruptf("schema element %q declares %d children", e.Name, e.NumChildren.V)
		}
		for range e.NumChildren.V {
			var err error
			if i, err = walk(i, depth+1); err != nil {
				return 0, err
			}
		}
		return i, nil
	}
	end, err := walk(0, 0)
	if err != nil {
		return err
	}
	if end != len(schema) {
		return corruptf("%d schema elements are outside the schema tree", len(schema)-end)
	}
	return nil
}

// readAt fills b from r at off. Unlike a bare ReadAt, it accepts io.EOF
// with a full buffer and reports a short read as io.ErrUnexpectedEOF.
func readAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}
