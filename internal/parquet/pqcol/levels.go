package pqcol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/encoding/bitpacked"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/format"
)

// Level decoders for each bit width (levels fit in a byte). parquet-go's
// encodings are safe for concurrent use.
var (
	levelRLE       [9]rle.Encoding
	levelBitPacked [9]bitpacked.Encoding
)

func init() {
	for w := range levelRLE {
		levelRLE[w].BitWidth = w
		levelBitPacked[w].BitWidth = w
	}
}

// levelsV1 decodes n levels at the start of a data page v1 and returns them
// (in dst's memory) with the rest of the page. RLE levels carry a 4-byte
// length prefix; the deprecated BIT_PACKED levels take exactly
// ceil(n*width/8) bytes.
func levelsV1(dst []byte, enc format.Encoding, maxLevel, n int, data []byte, runs *[]byte) (levels, rest []byte, err error) {
	var size int
	switch enc {
	case format.RLE:
		if len(data) < 4 {
			return nil, nil, corruptf("levels: %d bytes left, want a 4-byte length", len(data))
		}
		size = int(binary.LittleEndian.Uint32(data))
		data = data[4:]
	case format.BitPacked:
		size = int((int64(n)*int64(bits.Len(uint(maxLevel))) + 7) / 8)
	default:
		return nil, nil, unsupportedf("level encoding %s", enc)
	}
	if size < 0 || size > len(data) {
		return nil, nil, corruptf("levels: %d bytes declared, %d left in the page", size, len(data))
	}
	levels, err = decodeLevels(dst, enc, maxLevel, n, data[:size], runs)
	return levels, data[size:], err
}

// decodeLevels decodes n levels from src, encoded with enc (RLE or
// BIT_PACKED), and checks that none exceeds maxLevel. runs is scratch for
// rlePrefix.
func decodeLevels(dst []byte, enc format.Encoding, maxLevel, n int, src []byte, runs *[]byte) ([]byte, error) {
	w := bits.Len(uint(maxLevel))
	var e encoding.Encoding
	switch enc {
	case format.RLE:
		var err error
		if src, err = rlePrefix(runs, src, 0, w, n); err != nil {
			return nil, fmt.Errorf("levels: %w", err)
		}
		e = &levelRLE[w]
	case format.BitPacked:
		e = &levelBitPacked[w]
	default:
		return nil, unsupportedf("level encoding %s", enc)
	}
	out, err := e.DecodeLevels(dst[:0], src)
	if err != nil {
		return nil, corruptf("levels: %v", err)
	}
	if len(out) < n {
		return nil, corruptf("levels: decoded %d, the page header declares %d", len(out), n)
	}
	out = out[:n]
	if maxLevel == 1<<w-1 {
		return out, nil // w bits cannot hold more than maxLevel
	}
	m := byte(maxLevel)
	for _, l := range out {
		if l > m {
			return nil, corruptf("level %d exceeds the column's maximum %d", l, maxLevel)
		}
	}
	return out, nil
}

// countEqual returns how many levels equal v.
func countEqual(levels []byte, v byte) int {
	return bytes.Count(levels, []byte{v})
}

// NthLevel returns the index of the level of levels equal to v that k
// (from 0) such levels precede, or -1 if levels holds k or fewer: with v
// 0 in repetition levels, where row k starts. It counts a block at a time
// (bytes.Count is vectorised) and looks at single levels only in the
// block that holds the one sought.
func NthLevel(levels []byte, v byte, k int) int {
	const block = 256
	i := 0
	for ; i+block <= len(levels); i += block {
		c := countEqual(levels[i:i+block], v)
		if c > k {
			break
		}
		k -= c
	}
	for ; i < len(levels); i++ {
		if levels[i] == v {
			if k == 0 {
				return i
			}
			k--
		}
	}
	return -1
}
