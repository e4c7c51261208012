package pqcol

import (
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
)

// Column holds the decoded values of one leaf column over a range of rows of
// one row group. Read methods of [Reader] fill it; reading again reuses its
// memory (values and levels), so a Column that is read repeatedly stops
// allocating once its buffers have grown to the largest range read. The
// buffers a read needs only while it decodes (the pages, their levels,
// the dictionary) are not kept in the Column: the Reader's reads share
// them.
//
// Values are dense: only non-null values are stored, in order, in the one
// slice that matches Leaf.Kind; the other slices are empty.
//
//   - Boolean, Int32, Int64, Int96, Float, Double: one element per value.
//   - BYTE_ARRAY: value i is Bytes[Offsets[i]:Offsets[i+1]]; Offsets has
//     Len()+1 elements and starts at 0.
//   - FIXED_LEN_BYTE_ARRAY: value i is Bytes[i*w:(i+1)*w] with
//     w = Leaf.TypeLength; Offsets is empty.
//
// DefLevels holds one definition level per level entry when
// Leaf.MaxDefinitionLevel > 0 and RepLevels one repetition level per entry
// when Leaf.MaxRepetitionLevel > 0; otherwise they are empty. A level entry
// is a value or a null (or an empty or null list at some depth); an entry
// holds a value exactly when its definition level equals the maximum. With
// repetition, a row starts at each entry whose repetition level is 0.
//
// The zero Column is ready to use. A Column must not be used by two reads at
// once. Slices obtained from it are overwritten by the next read.
type Column struct {
	Leaf     Leaf  // the leaf column that was read
	RowGroup int   // the row group it was read from
	FirstRow int64 // index within the row group of the first row held
	NumRows  int64 // number of rows held

	// Charged is the memory, in bytes, that the other columns of the same
	// read already take. The [MaxReadSize] limit covers them and this
	// column together, so that a caller reading several columns of one
	// fragment bounds the whole fragment: it sets Charged before each read
	// to the [Column.Size] of the columns read before. Reads leave it as
	// it is.
	Charged int64

	Boolean []bool
	Int32   []int32
	Int64   []int64
	Int96   []deprecated.Int96
	Float   []float32
	Double  []float64
	Bytes   []byte
	Offsets []uint32

	DefLevels []byte
	RepLevels []byte
}

// Len returns the number of (non-null) values held.
func (c *Column) Len() int {
	switch c.Leaf.Kind {
	case parquet.Boolean:
		return len(c.Boolean)
	case parquet.Int32:
		return len(c.Int32)
	case parquet.Int64:
		return len(c.Int64)
	case parquet.Int96:
		return len(c.Int96)
	case parquet.Float:
		return len(c.Float)
	case parquet.Double:
		return len(c.Double)
	case parquet.ByteArray:
		return max(len(c.Offsets)-1, 0)
	case parquet.FixedLenByteArray:
		if c.Leaf.TypeLength > 0 {
			return len(c.Bytes) / c.Leaf.TypeLength
		}
	}
	return 0
}

// NumLevels returns the number of level entries: values plus nulls (and, for
// repeated leaves, empty lists). For a required, non-repeated leaf it equals
// both Len and NumRows.
func (c *Column) NumLevels() int {
	switch {
	case c.Leaf.MaxRepetitionLevel > 0:
		return len(c.RepLevels)
	case c.Leaf.MaxDefinitionLevel > 0:
		return len(c.DefLevels)
	}
	return c.Len()
}

// ByteArray returns BYTE_ARRAY value i. The slice aliases c.Bytes.
func (c *Column) ByteArray(i int) []byte {
	return c.Bytes[c.Offsets[i]:c.Offsets[i+1]:c.Offsets[i+1]]
}

// FixedLenByteArray returns FIXED_LEN_BYTE_ARRAY value i. The slice aliases
// c.Bytes.
func (c *Column) FixedLenByteArray(i int) []byte {
	w := c.Leaf.TypeLength
	return c.Bytes[i*w : (i+1)*w : (i+1)*w]
}

// reset empties the column for a read of leaf in rowGroup starting at row
// firstRow, keeping every buffer's capacity.
func (c *Column) reset(leaf *Leaf, rowGroup int, firstRow int64) {
	c.Leaf = *leaf
	c.RowGroup = rowGroup
	c.FirstRow = firstRow
	c.NumRows = 0
	c.Boolean = c.Boolean[:0]
	c.Int32 = c.Int32[:0]
	c.Int64 = c.Int64[:0]
	c.Int96 = c.Int96[:0]
	c.Float = c.Float[:0]
	c.Double = c.Double[:0]
	c.Bytes = c.Bytes[:0]
	c.Offsets = c.Offsets[:0]
	if leaf.Kind == parquet.ByteArray {
		c.Offsets = append(c.Offsets, 0)
	}
	c.DefLevels = c.DefLevels[:0]
	c.RepLevels = c.RepLevels[:0]
}
