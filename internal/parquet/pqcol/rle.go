package pqcol

import (
	"encoding/binary"
	"math"
)

// Levels, RLE booleans and dictionary indexes are RLE/bit-packed hybrid
// streams, decoded by parquet-go. Its decoders materialise every value of
// every run they are given, and a run's count says nothing about the
// input's size: a repeated run of two billion values takes a few bytes, a
// bit-packed run of width 0 takes none, and writers pad bit-packed runs
// far past the values a page holds (DuckDB writes every bit-packed run as
// 256 values, so a page of 40 values carries 256). So the decoders are
// handed only the runs that hold the page's values, the last of them cut
// to what the page needs: decoding then takes memory proportional to the
// page's value count, which the page limits bound, whatever the runs
// claim.

// rlePrefix checks the runs of the RLE/bit-packed hybrid stream
// src[start:] of values of bitWidth bits and returns src[:start] followed
// by the runs that hold the stream's first n values (all of them if it
// holds fewer). If the last of those runs holds more values than needed, it
// is cut to exactly the values needed (a repeated run) or the groups of 8
// that hold them (a bit-packed run), and the result is a copy made in
// *buf; otherwise it is a prefix of src. Every run used must lie within
// src, except that the bytes of the last bit-packed run may stop after the
// groups needed, and every repeated run's value must fit in bitWidth bits.
func rlePrefix(buf *[]byte, src []byte, start, bitWidth, n int) ([]byte, error) {
	if bitWidth < 0 || bitWidth > 32 {
		return nil, corruptf("RLE bit width %d", bitWidth)
	}
	valueBytes := uint64(bitWidth+7) / 8
	total := 0 // values in the runs before i
	for i := start; i < len(src); {
		if total >= n {
			return src[:i], nil
		}
		run := i
		u, k := binary.Uvarint(src[i:])
		if k <= 0 {
			return nil, corruptf("malformed RLE run header at byte %d", i-start)
		}
		i += k
		count := u >> 1
		if count == 0 {
			continue // parquet-go skips empty runs without reading a value
		}
		if count > math.MaxInt32 {
			return nil, corruptf("RLE run of %d values", count)
		}
		left := uint64(len(src) - i)
		need := uint64(n - total)
		if u&1 == 0 { // repeated
			if valueBytes > left {
				return nil, corruptf("RLE run of %d values needs %d bytes, %d are left", count, valueBytes, left)
			}
			if v := runValue(src[i : i+int(valueBytes)]); v>>bitWidth != 0 {
				// parquet-go repeats the value's bytes as they are.
				return nil, corruptf("RLE run of the value %d, which %d bits cannot hold", v, bitWidth)
			}
			if count > need {
				return cutRun(buf, src[:run], need<<1, src[i:i+int(valueBytes)]), nil
			}
			total += int(count)
			i += int(valueBytes)
			continue
		}
		groups := min(count, (need+7)/8)
		size := groups * uint64(bitWidth)
		if size > left {
			return nil, corruptf("bit-packed run of %d values needs %d bytes, %d are left", groups*8, size, left)
		}
		if groups < count {
			return cutRun(buf, src[:run], groups<<1|1, src[i:i+int(size)]), nil
		}
		total += int(count * 8)
		i += int(size)
	}
	return src, nil
}

// runValue returns the value of a repeated run from its bytes, little
// endian.
func runValue(b []byte) uint64 {
	var v uint64
	for k, c := range b {
		v |= uint64(c) << (8 * k)
	}
	return v
}

// cutRun returns, in *buf, the bytes of head followed by a run with the
// given header and body.
func cutRun(buf *[]byte, head []byte, header uint64, body []byte) []byte {
	out := append((*buf)[:0], head...)
	out = binary.AppendUvarint(out, header)
	out = append(out, body...)
	*buf = out
	return out
}
