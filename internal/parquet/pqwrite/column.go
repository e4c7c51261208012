package pqwrite

import (
	"fmt"
	"math"

	"github.com/parquet-go/parquet-go"
)

// Column is the typed buffer of one leaf column of one row group: what
// [Writer.WriteRowGroup] encodes into a column chunk. The caller fills it
// by appending to its slices, with no per-value allocation once they have
// grown, and reuses it for the next row group after [Column.Reset].
//
// Values are dense, as in pqcol.Column: only non-null values are stored, in
// order, in the one slice that matches the leaf's physical type; the
// others stay empty.
//
//   - BOOLEAN, INT32, INT64, FLOAT, DOUBLE: one element per value.
//   - BYTE_ARRAY: value i is Bytes[Offsets[i]:Offsets[i+1]]; Offsets has
//     one element more than there are values and starts at 0.
//     [Column.AppendBytes] and [Column.AppendString] keep it so.
//   - FIXED_LEN_BYTE_ARRAY and INT96: value i is Bytes[i*w:(i+1)*w], w
//     the leaf's Width (12 for INT96, its three little-endian 32-bit
//     words, least significant first); Offsets stays empty.
//
// DefLevels holds one definition level per level entry when the leaf's
// MaxDefinitionLevel is above 0 and RepLevels one repetition level per
// entry when its MaxRepetitionLevel is; otherwise they stay empty. An entry
// holds a value exactly when its definition level is the maximum; a row
// starts at each entry whose repetition level is 0.
//
// The zero Column is ready to use.
type Column struct {
	Boolean []bool
	Int32   []int32
	Int64   []int64
	Float   []float32
	Double  []float64
	Bytes   []byte
	Offsets []uint32

	DefLevels []byte
	RepLevels []byte
}

// AppendBytes appends one BYTE_ARRAY value (a copy of b).
func (c *Column) AppendBytes(b []byte) {
	if len(c.Offsets) == 0 {
		c.Offsets = append(c.Offsets, 0)
	}
	c.Bytes = append(c.Bytes, b...)
	c.Offsets = append(c.Offsets, uint32(len(c.Bytes)))
}

// AppendValue appends one value, not null, to the slice of its physical
// type (v.Kind()): the value only, not its levels.
func (c *Column) AppendValue(v parquet.Value) {
	switch v.Kind() {
	case parquet.Boolean:
		c.Boolean = append(c.Boolean, v.Boolean())
	case parquet.Int32:
		c.Int32 = append(c.Int32, v.Int32())
	case parquet.Int64:
		c.Int64 = append(c.Int64, v.Int64())
	case parquet.Float:
		c.Float = append(c.Float, v.Float())
	case parquet.Double:
		c.Double = append(c.Double, v.Double())
	case parquet.ByteArray:
		c.AppendBytes(v.ByteArray())
	case parquet.FixedLenByteArray, parquet.Int96:
		c.Bytes = v.AppendBytes(c.Bytes) // INT96: its words, little-endian
	}
}

// AppendString appends one BYTE_ARRAY value.
func (c *Column) AppendString(s string) {
	if len(c.Offsets) == 0 {
		c.Offsets = append(c.Offsets, 0)
	}
	c.Bytes = append(c.Bytes, s...)
	c.Offsets = append(c.Offsets, uint32(len(c.Bytes)))
}

// Mark is the lengths of a Column's slices: a point that [Column.Undo]
// takes the column back to.
type Mark [9]int

// Mark returns the column's lengths now.
func (c *Column) Mark() Mark {
	return Mark{len(c.Boolean), len(c.Int32), len(c.Int64), len(c.Float), len(c.Double),
		len(c.Bytes), len(c.Offsets), len(c.DefLevels), len(c.RepLevels)}
}

// Undo drops what was appended since m, a Mark of the column taken
// since its last Reset.
func (c *Column) Undo(m Mark) {
	c.Boolean, c.Int32, c.Int64, c.Float, c.Double = c.Boolean[:m[0]], c.Int32[:m[1]], c.Int64[:m[2]], c.Float[:m[3]], c.Double[:m[4]]
	c.Bytes, c.Offsets, c.DefLevels, c.RepLevels = c.Bytes[:m[5]], c.Offsets[:m[6]], c.DefLevels[:m[7]], c.RepLevels[:m[8]]
}

// Reset empties the column and keeps its memory.
func (c *Column) Reset() {
	c.Boolean, c.Int32, c.Int64 = c.Boolean[:0], c.Int32[:0], c.Int64[:0]
	c.Float, c.Double = c.Float[:0], c.Double[:0]
	c.Bytes, c.Offsets = c.Bytes[:0], c.Offsets[:0]
	c.DefLevels, c.RepLevels = c.DefLevels[:0], c.RepLevels[:0]
}

// numValues returns the number of values held for a physical type.
func (c *Column) numValues(l *Leaf) int {
	switch l.Kind {
	case parquet.Boolean:
		return len(c.Boolean)
	case parquet.Int32:
		return len(c.Int32)
	case parquet.Int64:
		return len(c.Int64)
	case parquet.Float:
		return len(c.Float)
	case parquet.Double:
		return len(c.Double)
	case parquet.ByteArray:
		return max(len(c.Offsets)-1, 0)
	case parquet.FixedLenByteArray, parquet.Int96:
		return len(c.Bytes) / l.Width
	}
	return 0
}

// numEntries returns the number of level entries: values and nulls.
func (c *Column) numEntries(l *Leaf) int {
	if l.MaxDefinitionLevel > 0 {
		return len(c.DefLevels)
	}
	return c.numValues(l)
}

// numRows returns the number of rows held.
func (c *Column) numRows(l *Leaf) int64 {
	if l.MaxRepetitionLevel == 0 {
		return int64(c.numEntries(l))
	}
	n := int64(0)
	for _, r := range c.RepLevels {
		if r == 0 {
			n++
		}
	}
	return n
}

// check reports the first way in which c does not hold a well-formed
// column chunk of leaf l.
func (c *Column) check(l *Leaf) error {
	if k := c.strayKind(l.Kind); k >= 0 {
		return fmt.Errorf("%v values in a column of physical type %v", k, l.Kind)
	}
	switch l.Kind {
	case parquet.ByteArray:
		if err := c.checkOffsets(); err != nil {
			return err
		}
	case parquet.FixedLenByteArray, parquet.Int96:
		if len(c.Offsets) > 0 || len(c.Bytes)%l.Width != 0 {
			return fmt.Errorf("%d bytes and %d offsets for values of %d bytes", len(c.Bytes), len(c.Offsets), l.Width)
		}
	}
	n := c.numValues(l)
	if l.MaxDefinitionLevel == 0 && len(c.DefLevels) > 0 {
		return fmt.Errorf("%d definition levels in a required column", len(c.DefLevels))
	}
	if l.MaxRepetitionLevel == 0 && len(c.RepLevels) > 0 {
		return fmt.Errorf("%d repetition levels in a column that does not repeat", len(c.RepLevels))
	}
	if l.MaxRepetitionLevel > 0 && len(c.RepLevels) != len(c.DefLevels) {
		return fmt.Errorf("%d repetition levels for %d definition levels", len(c.RepLevels), len(c.DefLevels))
	}
	if len(c.RepLevels) > 0 && c.RepLevels[0] != 0 {
		return fmt.Errorf("the first repetition level is %d, not 0", c.RepLevels[0])
	}
	if len(c.DefLevels) > math.MaxInt32 {
		return fmt.Errorf("%d level entries, more than a column chunk holds", len(c.DefLevels))
	}
	if l.MaxDefinitionLevel > 0 {
		defined := 0
		for i, d := range c.DefLevels {
			if int(d) > l.MaxDefinitionLevel {
				return fmt.Errorf("entry %d: definition level %d above the maximum %d", i, d, l.MaxDefinitionLevel)
			}
			if int(d) == l.MaxDefinitionLevel {
				defined++
			}
		}
		if defined != n {
			return fmt.Errorf("%d entries at the maximum definition level for %d values", defined, n)
		}
	}
	for i, r := range c.RepLevels {
		if int(r) > l.MaxRepetitionLevel {
			return fmt.Errorf("entry %d: repetition level %d above the maximum %d", i, r, l.MaxRepetitionLevel)
		}
	}
	return nil
}

// strayKind returns a physical type other than k for which c holds
// values, or -1.
func (c *Column) strayKind(k parquet.Kind) parquet.Kind {
	held := [...]struct {
		kind parquet.Kind
		n    int
	}{
		{parquet.Boolean, len(c.Boolean)}, {parquet.Int32, len(c.Int32)},
		{parquet.Int64, len(c.Int64)}, {parquet.Float, len(c.Float)},
		{parquet.Double, len(c.Double)}, {parquet.ByteArray, len(c.Bytes) + len(c.Offsets)},
	}
	bytesKind := k == parquet.ByteArray || k == parquet.FixedLenByteArray || k == parquet.Int96
	for _, h := range held {
		if h.kind != k && h.n > 0 && !(h.kind == parquet.ByteArray && bytesKind) {
			return h.kind
		}
	}
	return -1
}

// checkOffsets checks the offsets of BYTE_ARRAY values into Bytes.
func (c *Column) checkOffsets() error {
	if len(c.Offsets) == 0 {
		if len(c.Bytes) > 0 {
			return fmt.Errorf("%d bytes without offsets", len(c.Bytes))
		}
		return nil
	}
	if c.Offsets[0] != 0 {
		return fmt.Errorf("offsets start at %d, not 0", c.Offsets[0])
	}
	for i := 1; i < len(c.Offsets); i++ {
		if c.Offsets[i] < c.Offsets[i-1] {
			return fmt.Errorf("offset %d (%d) below the one before (%d)", i, c.Offsets[i], c.Offsets[i-1])
		}
	}
	if last := c.Offsets[len(c.Offsets)-1]; int(last) != len(c.Bytes) {
		return fmt.Errorf("the last offset is %d, for %d bytes", last, len(c.Bytes))
	}
	return nil
}
