package pqcol

import (
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// parquet-go's decoders trust the counts written inside encoded streams: an
// RLE run header of a few bytes may ask for two billion values, and a delta
// header for as many, and the decoders allocate for them before finding
// that the data is not there. The walkers here (and rlePrefix, for RLE
// runs) read only those headers, before parquet-go decodes, so that the
// memory a page's values take stays proportional to the value count its
// header declares (which MaxPageSize bounds). They follow parquet-go's
// parsing of the same streams.

// slackValues bounds how many values a DELTA_LENGTH_BYTE_ARRAY or
// DELTA_BYTE_ARRAY stream's length header may declare beyond those needed
// (parquet-go decodes them all): encoders pad to a few values, and a reader
// can afford some generosity, but not billions.
func slackValues(n int) uint64 { return 2*uint64(n) + 8 }

// checkDelta checks the value counts in the headers of a DELTA_* stream
// meant to hold n values.
func checkDelta(enc format.Encoding, src []byte, n int) error {
	switch enc {
	case format.DeltaBinaryPacked, format.DeltaLengthByteArray:
		_, _, err := deltaStream(src, n)
		return err
	case format.DeltaByteArray:
		_, size, err := deltaStream(src, n) // prefix lengths
		if err != nil {
			return err
		}
		_, _, err = deltaStream(src[size:], n) // suffix lengths
		return err
	}
	return nil
}

// deltaStream walks a DELTA_BINARY_PACKED stream's header and block
// headers, returning its value count and the bytes it spans, as parquet-go
// consumes them. The count may be at most slackValues(n).
func deltaStream(src []byte, n int) (count, size int, err error) {
	var h [3]uint64
	i := 0
	for j := range h {
		v, k := binary.Uvarint(src[i:])
		if k <= 0 {
			return 0, 0, corruptf("malformed DELTA_BINARY_PACKED header")
		}
		h[j], i = v, i+k
	}
	if _, k := binary.Varint(src[i:]); k <= 0 {
		return 0, 0, corruptf("malformed DELTA_BINARY_PACKED first value")
	} else {
		i += k
	}
	blockSize, miniBlocks, total := h[0], h[1], h[2]
	if miniBlocks == 0 || blockSize == 0 || blockSize%128 != 0 || blockSize > 1<<16 || (blockSize/miniBlocks)%32 != 0 {
		return 0, 0, corruptf("DELTA_BINARY_PACKED blocks of %d values in %d mini-blocks", blockSize, miniBlocks)
	}
	if total > slackValues(n) {
		return 0, 0, corruptf("DELTA_BINARY_PACKED header declares %d values where %d are expected", total, n)
	}
	perMini := blockSize / miniBlocks
	remaining := int64(total) - 1
	for remaining > 0 && i < len(src) {
		if _, k := binary.Varint(src[i:]); k <= 0 {
			return 0, 0, corruptf("malformed DELTA_BINARY_PACKED block header")
		} else {
			i += k
		}
		if uint64(len(src)-i) < miniBlocks {
			return 0, 0, corruptf("DELTA_BINARY_PACKED block header is truncated")
		}
		widths := src[i : i+int(miniBlocks)]
		i += int(miniBlocks)
		for _, w := range widths {
			if w > 64 {
				return 0, 0, corruptf("DELTA_BINARY_PACKED bit width %d", w)
			}
			i = min(i+int(perMini*uint64(w)/8), len(src))
			if remaining -= int64(perMini); remaining <= 0 {
				break
			}
		}
	}
	return int(total), i, nil
}

// plainRange returns the bytes of values [skip, skip+keep) of a PLAIN
// stream of n values of leaf's physical type, so that a read of part of a
// page decodes (and holds) only the values it keeps: a page can hold a
// whole row group (DuckDB writes one page per chunk) that several
// fragments share. It reports false for other encodings, for booleans
// (bit-packed) and for a stream that decoding all n values would refuse,
// which is then decoded whole to give decoding's error.
func plainRange(leaf *Leaf, enc format.Encoding, src []byte, n, skip, keep int) ([]byte, bool) {
	if enc != format.Plain {
		return nil, false
	}
	w := 0
	switch leaf.Kind {
	case parquet.Int32, parquet.Float:
		w = 4
	case parquet.Int64, parquet.Double:
		w = 8
	case parquet.Int96:
		w = 12
	case parquet.FixedLenByteArray:
		w = leaf.TypeLength
	case parquet.ByteArray:
		return plainByteArrayRange(src, n, skip, skip+keep)
	}
	if w <= 0 || len(src)%w != 0 || len(src)/w < n {
		return nil, false
	}
	return src[skip*w : (skip+keep)*w], true
}

// plainByteArrays returns the prefix of a PLAIN BYTE_ARRAY stream that
// holds its first n values, checking that each value's length prefix stays
// within src. (parquet-go's decoder checks a value's length against the
// whole input rather than what is left of it.)
func plainByteArrays(src []byte, n int) ([]byte, error) {
	_, _, end, err := plainByteArrayBounds(src, n, 0, 0)
	if err != nil {
		return nil, err
	}
	return src[:end], nil
}

// plainByteArrayRange returns the bytes of values [from, to) of a PLAIN
// BYTE_ARRAY stream of n values, length prefixes included, if every one of
// the n values lies within src (see plainByteArrays).
func plainByteArrayRange(src []byte, n, from, to int) ([]byte, bool) {
	lo, hi, _, err := plainByteArrayBounds(src, n, from, to)
	return src[lo:hi], err == nil
}

// plainByteArrayBounds walks the length prefixes of a PLAIN BYTE_ARRAY
// stream of n values, checking that each value stays within src, and
// returns where values from and to start (n: where the stream ends) and
// where it ends.
func plainByteArrayBounds(src []byte, n, from, to int) (lo, hi, end int, err error) {
	i := 0
	for k := range n {
		if k == from {
			lo = i
		}
		if k == to {
			hi = i
		}
		if len(src)-i < 4 {
			return 0, 0, 0, corruptf("PLAIN byte array %d of %d: %d bytes left, want a 4-byte length", k, n, len(src)-i)
		}
		size := uint64(binary.LittleEndian.Uint32(src[i:]))
		i += 4
		if size > uint64(len(src)-i) {
			return 0, 0, 0, corruptf("PLAIN byte array %d of %d is %d bytes long, %d are left", k, n, size, len(src)-i)
		}
		i += int(size)
	}
	if from == n {
		lo = i
	}
	if to == n {
		hi = i
	}
	return lo, hi, i, nil
}

// deltaByteArraySize returns the bytes that the first n values of a
// DELTA_BYTE_ARRAY stream decode to: the sums of their prefix and suffix
// lengths, decoded with parquet-go's DELTA_BINARY_PACKED decoder. Values
// that share prefixes can decode to far more bytes than the page holds;
// more than the MaxPageSize limit is refused. So is a prefix longer than
// the value before it (parquet-go's decoder checks it only against all
// the values before, and takes the rest from whatever its buffer holds
// past the last value), or a first value's prefix other than empty.
func deltaByteArraySize(src []byte, n int, scratch *scratch) (int, error) {
	_, size, err := deltaStream(src, n)
	if err != nil {
		return 0, err
	}
	var total int64
	var prefixes []int32
	for k, stream := range [][]byte{src[:size], src[size:]} {
		buf := &scratch.lengths
		if k == 0 {
			buf = &scratch.prefixes
		}
		lengths, err := decodeDelta((*buf)[:0], stream, n, &scratch.delta)
		if cap(lengths) > cap(*buf) {
			*buf = lengths[:0]
		}
		if err != nil {
			return 0, fmt.Errorf("DELTA_BYTE_ARRAY lengths: %w", err)
		}
		for _, l := range lengths {
			if l < 0 {
				return 0, corruptf("DELTA_BYTE_ARRAY length %d", l)
			}
			total += int64(l)
		}
		if k == 0 {
			prefixes = lengths
		} else if err := checkPrefixes(prefixes, lengths); err != nil {
			return 0, err
		}
	}
	if total > scratch.limit {
		return 0, fmt.Errorf("%w: DELTA_BYTE_ARRAY values decode to %d bytes; the limit is %d bytes (see pqcol.MaxPageSize)",
			ErrPageTooLarge, total, scratch.limit)
	}
	return int(total), nil
}

// checkPrefixes checks the prefix lengths of DELTA_BYTE_ARRAY values
// against the values before them, given their suffix lengths: the first
// value's prefix is empty, and each other's at most the value before it.
func checkPrefixes(prefixes, suffixes []int32) error {
	prev := int64(0) // the length of the value before
	for i, p := range prefixes[:min(len(prefixes), len(suffixes))] {
		if int64(p) > prev {
			return corruptf("DELTA_BYTE_ARRAY value %d takes a prefix of %d bytes from the value before it, which has %d", i, p, prev)
		}
		prev = int64(p) + int64(suffixes[i])
	}
	return nil
}
