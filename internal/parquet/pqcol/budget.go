package pqcol

import (
	"fmt"

	"github.com/parquet-go/parquet-go"
)

// The MaxReadSize limit is charged page by page, before a page's levels
// and values are appended to the Column: the bytes the Column holds plus
// those the page would add may not pass it.

// Size returns the bytes that the values and levels c holds take.
func (c *Column) Size() int64 {
	return int64(len(c.Boolean)) + 4*int64(len(c.Int32)) + 8*int64(len(c.Int64)) + 12*int64(len(c.Int96)) +
		4*int64(len(c.Float)) + 8*int64(len(c.Double)) + int64(len(c.Bytes)) + 4*int64(len(c.Offsets)) +
		int64(len(c.DefLevels)) + int64(len(c.RepLevels))
}

// charge fails if adding extra bytes to col would pass the MaxReadSize
// limit.
func (d *decoder) charge(col *Column, extra int64) error {
	have := col.Size()
	if col.Charged+have+extra <= d.cfg.maxReadSize {
		return nil
	}
	if col.Charged > 0 {
		return fmt.Errorf("%w: the other columns of this read take %d bytes, the %d rows of this one read so far take %d and the next page would add %d; "+
			"the limit is %d bytes (see pqcol.MaxReadSize): read fewer rows at once",
			ErrReadTooLarge, col.Charged, col.NumRows, have, extra, d.cfg.maxReadSize)
	}
	return fmt.Errorf("%w: the %d rows read so far take %d bytes and the next page would add %d; "+
		"the limit is %d bytes (see pqcol.MaxReadSize): read fewer rows at once",
		ErrReadTooLarge, col.NumRows, have, extra, d.cfg.maxReadSize)
}

// valueBytes bounds the bytes that keep values decoded from the encoded
// values data take: exact for fixed-size values; for BYTE_ARRAY, the
// offsets and at most the encoded bytes (PLAIN and DELTA_LENGTH_BYTE_ARRAY
// values are copied from data; DELTA_BYTE_ARRAY values, whose shared
// prefixes make them longer, are bounded by MaxPageSize as they decode).
func (d *decoder) valueBytes(keep int, data []byte) int64 {
	switch d.leaf.Kind {
	case parquet.ByteArray:
		return 4*int64(keep) + int64(len(data))
	case parquet.FixedLenByteArray:
		return int64(keep) * int64(d.leaf.TypeLength)
	}
	return int64(keep) * int64(d.valueFootprint())
}

// gatherBytes returns the bytes that gathering the dictionary values at
// idx adds to a Column. Indexes out of range count nothing here; gathering
// refuses them.
func (d *dictionary) gatherBytes(leaf *Leaf, idx []int32, footprint int) int64 {
	switch leaf.Kind {
	case parquet.ByteArray:
		offs := d.offsets
		n := uint32(len(offs) - 1)
		size := 4 * int64(len(idx))
		for _, k := range idx {
			if uint32(k) < n {
				size += int64(offs[k+1] - offs[k])
			}
		}
		return size
	case parquet.FixedLenByteArray:
		return int64(len(idx)) * int64(leaf.TypeLength)
	}
	return int64(len(idx)) * int64(footprint)
}
