package pqcol

import (
	"encoding/binary"

	"github.com/parquet-go/bitpack"
)

// DELTA_BINARY_PACKED integers are decoded here rather than by parquet-go,
// whose INT32 decoder unpacks every mini-block into 32-bit integers: a
// mini-block of bit width 33 or more, which writers that compute INT32
// deltas in 64 bits emit (DuckDB does, for values spanning more than
// 2^31), decodes to wrong numbers without an error, and a first value
// outside the int32 range (a UINT_32 above 2^31) is refused. Both widths
// are decoded in 64-bit arithmetic that wraps around, as the format
// specifies for INT64; an INT32 value is the low 32 bits of the sum, as
// arrow-go and DuckDB read it. (Sums modulo 2^32 do not depend on the
// higher bits, so this is also right for INT32 streams written in 32-bit
// arithmetic.)

// deltaHeader is the header of a DELTA_BINARY_PACKED stream.
type deltaHeader struct {
	blockSize  uint64 // values per block, a multiple of 128
	miniBlocks uint64 // mini-blocks per block; each holds a multiple of 32 values
	total      uint64 // values in the stream
	first      int64  // the first value
}

// maxDeltaBlock bounds the block size a stream may declare, so that a
// mini-block's values fit the decoder's scratch without a large
// allocation. Writers use 128 (parquet-mr, Arrow, parquet-go) to 2048
// (DuckDB).
const maxDeltaBlock = 1 << 16

// parseDeltaHeader reads the header at the start of src and returns it with
// the bytes it takes.
func parseDeltaHeader(src []byte) (h deltaHeader, size int, err error) {
	var u [3]uint64
	for j := range u {
		v, k := binary.Uvarint(src[size:])
		if k <= 0 {
			return h, 0, corruptf("malformed DELTA_BINARY_PACKED header")
		}
		u[j], size = v, size+k
	}
	first, k := binary.Varint(src[size:])
	if k <= 0 {
		return h, 0, corruptf("malformed DELTA_BINARY_PACKED first value")
	}
	h = deltaHeader{blockSize: u[0], miniBlocks: u[1], total: u[2], first: first}
	if h.miniBlocks == 0 || h.blockSize == 0 || h.blockSize%128 != 0 || h.blockSize > maxDeltaBlock ||
		h.blockSize%h.miniBlocks != 0 || (h.blockSize/h.miniBlocks)%32 != 0 {
		return h, 0, corruptf("DELTA_BINARY_PACKED blocks of %d values in %d mini-blocks", h.blockSize, h.miniBlocks)
	}
	return h, size + k, nil
}

// deltaScratch holds the buffers decodeDelta borrows: one mini-block's
// deltas, and a copy of the stream's last bytes followed by the zero
// padding that bitpack.Unpack reads past its input.
type deltaScratch struct {
	deltas []int64
	padded []byte
}

// decodeDelta appends the first n values of the DELTA_BINARY_PACKED stream
// src to dst, truncating each to T. The stream may hold more than n values;
// it must hold at least n. Memory use is proportional to n whatever the
// stream declares.
func decodeDelta[T int32 | int64](dst []T, src []byte, n int, tmp *deltaScratch) ([]T, error) {
	if n == 0 {
		return dst, nil
	}
	h, i, err := parseDeltaHeader(src)
	if err != nil {
		return dst, err
	}
	if h.total < uint64(n) {
		return dst, corruptf("DELTA_BINARY_PACKED stream holds %d values, the page %d", h.total, n)
	}
	perMini := int(h.blockSize / h.miniBlocks)
	if cap(tmp.deltas) < perMini {
		tmp.deltas = make([]int64, perMini)
	}
	deltas := tmp.deltas[:perMini]
	v := h.first
	dst = append(dst, T(v))
	for need := n - 1; need > 0; {
		minDelta, k := binary.Varint(src[i:])
		if k <= 0 {
			return dst, corruptf("malformed DELTA_BINARY_PACKED block header at byte %d", i)
		}
		i += k
		if uint64(len(src)-i) < h.miniBlocks {
			return dst, corruptf("DELTA_BINARY_PACKED block header at byte %d is truncated", i)
		}
		widths := src[i : i+int(h.miniBlocks)]
		i += len(widths)
		// The widths of mini-blocks after the last value are arbitrary and
		// their bodies absent.
		for _, w := range widths {
			if need == 0 {
				break
			}
			m := min(perMini, need)
			if i, err = unpackMiniBlock(deltas[:m], src, i, perMini, w, &tmp.padded); err != nil {
				return dst, err
			}
			for _, d := range deltas[:m] {
				v += minDelta + d // wraps around, as the format specifies
				dst = append(dst, T(v))
			}
			need -= m
		}
	}
	return dst, nil
}

// unpackMiniBlock unpacks len(dst) values of bit width w from the
// mini-block of perMini values at src[i:] and returns the offset after it.
// A last mini-block cut short after the bytes its values need is accepted.
func unpackMiniBlock(dst []int64, src []byte, i, perMini int, w byte, padded *[]byte) (int, error) {
	if w > 64 {
		return i, corruptf("DELTA_BINARY_PACKED bit width %d", w)
	}
	if w == 0 {
		clear(dst)
		return i, nil
	}
	size := perMini * int(w) / 8
	used := (len(dst)*int(w) + 7) / 8
	rest := src[i:]
	if len(rest) < used {
		return i, corruptf("DELTA_BINARY_PACKED mini-block at byte %d needs %d bytes, %d are left", i, used, len(rest))
	}
	// bitpack reads up to PaddingInt64 bytes past the values: near the end
	// of the stream, unpack from a zero-padded copy.
	if len(rest) < used+bitpack.PaddingInt64 {
		if cap(*padded) < used+bitpack.PaddingInt64 {
			*padded = make([]byte, used+bitpack.PaddingInt64)
		}
		buf := (*padded)[:used+bitpack.PaddingInt64]
		clear(buf[copy(buf, rest[:used]):])
		rest = buf
	}
	bitpack.Unpack(dst, rest, uint(w))
	return i + min(size, len(src)-i), nil
}
