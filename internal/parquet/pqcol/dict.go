package pqcol

import (
	"math"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// dictionary holds the decoded dictionary page of a column chunk, in the
// same typed layout as a Column's values.
type dictionary struct {
	loaded bool
	values
}

func (d *dictionary) reset() {
	d.loaded = false
	d.values.reset()
}

// load decodes a dictionary page's n PLAIN values.
func (d *dictionary) load(leaf *Leaf, enc format.Encoding, data []byte, n int, scratch *scratch) error {
	//lint:ignore SA1019 PLAIN_DICTIONARY is deprecated for writers; readers must still decode the files that use it.
	if enc != format.Plain && enc != format.PlainDictionary {
		return unsupportedf("dictionary page encoding %s", enc)
	}
	d.reset()
	if err := decodeValues(leaf, format.Plain, data, n, d.sink(), scratch); err != nil {
		return err
	}
	d.loaded = true
	return nil
}

// gather appends the dictionary values at the indexes idx to s. Each index
// is checked against the dictionary's size; the loops are typed, with no
// call per value.
func (d *dictionary) gather(leaf *Leaf, idx []int32, s sink) error {
	switch leaf.Kind {
	case parquet.Boolean:
		return gatherFixed(s.boolean, d.boolean, idx)
	case parquet.Int32:
		return gatherFixed(s.int32, d.int32, idx)
	case parquet.Int64:
		return gatherFixed(s.int64, d.int64, idx)
	case parquet.Int96:
		return gatherFixed(s.int96, d.int96, idx)
	case parquet.Float:
		return gatherFixed(s.float, d.float, idx)
	case parquet.Double:
		return gatherFixed(s.double, d.double, idx)
	case parquet.FixedLenByteArray:
		return d.gatherFixedLen(leaf.TypeLength, idx, s.bytes)
	case parquet.ByteArray:
		return d.gatherByteArrays(idx, s)
	}
	return nil
}

func gatherFixed[T any](dst *[]T, dict []T, idx []int32) error {
	base := len(*dst)
	out := slices.Grow(*dst, len(idx))[:base+len(idx)]
	vals := out[base:]
	n := uint32(len(dict))
	for i, k := range idx {
		if uint32(k) >= n {
			return badIndex(k, len(dict))
		}
		vals[i] = dict[k]
	}
	*dst = out
	return nil
}

func (d *dictionary) gatherFixedLen(w int, idx []int32, dst *[]byte) error {
	n := uint32(len(d.bytes) / w)
	base := len(*dst)
	out := slices.Grow(*dst, len(idx)*w)[:base+len(idx)*w]
	vals := out[base:]
	for i, k := range idx {
		if uint32(k) >= n {
			return badIndex(k, int(n))
		}
		copy(vals[i*w:(i+1)*w], d.bytes[int(k)*w:])
	}
	*dst = out
	return nil
}

func (d *dictionary) gatherByteArrays(idx []int32, s sink) error {
	offs := d.offsets
	n := uint32(len(offs) - 1)
	var size int64
	for _, k := range idx {
		if uint32(k) >= n {
			return badIndex(k, int(n))
		}
		size += int64(offs[k+1] - offs[k])
	}
	base := len(*s.bytes)
	if int64(base)+size > math.MaxUint32 {
		return ErrTooLarge
	}
	data := slices.Grow(*s.bytes, int(size))
	o := slices.Grow(*s.offsets, len(idx))
	for _, k := range idx {
		data = append(data, d.bytes[offs[k]:offs[k+1]]...)
		o = append(o, uint32(len(data)))
	}
	*s.bytes, *s.offsets = data, o
	return nil
}

func badIndex(k int32, n int) error {
	return corruptf("dictionary index %d out of range: the dictionary has %d values", k, n)
}
