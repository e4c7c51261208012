package pqcol

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
)

// deltaShape is how a test stream is laid out, as writers differ: block
// and mini-block sizes, and what follows the last value.
type deltaShape struct {
	blockSize, miniBlocks int
	unusedWidth           byte // bit width written for mini-blocks after the last value
	cutLast               bool // the last mini-block stops after the bytes its values need
}

var deltaShapes = []deltaShape{
	{blockSize: 128, miniBlocks: 4},                      // parquet-go, Arrow, parquet-mr
	{blockSize: 2048, miniBlocks: 8},                     // DuckDB
	{blockSize: 256, miniBlocks: 8, unusedWidth: 0xff},   // arbitrary widths after the end
	{blockSize: 128, miniBlocks: 1, cutLast: true},       // a last mini-block without padding
	{blockSize: 1024, miniBlocks: 2, unusedWidth: 64},    // wide mini-blocks
	{blockSize: 128, miniBlocks: 4, unusedWidth: 0x41},   // a width beyond 64 where it is unused
	{blockSize: 65536, miniBlocks: 2048, unusedWidth: 3}, // the largest block accepted
}

// deltaEncode writes values as a DELTA_BINARY_PACKED stream, computing the
// deltas in 64 bits as DuckDB does for every integer width (an INT32
// column's values are sign-extended first by the caller). The bit width of
// a mini-block is the fewest bits that hold its deltas less the block's
// minimum.
func deltaEncode(values []int64, s deltaShape) []byte {
	out := binary.AppendUvarint(nil, uint64(s.blockSize))
	out = binary.AppendUvarint(out, uint64(s.miniBlocks))
	out = binary.AppendUvarint(out, uint64(len(values)))
	var first int64
	if len(values) > 0 {
		first = values[0]
	}
	out = binary.AppendVarint(out, first)
	perMini := s.blockSize / s.miniBlocks
	for lo := 1; lo < len(values); lo += s.blockSize {
		hi := min(lo+s.blockSize, len(values))
		deltas := make([]int64, hi-lo)
		minDelta := int64(math.MaxInt64)
		for i := range deltas {
			deltas[i] = values[lo+i] - values[lo+i-1] // wraps around
			minDelta = min(minDelta, deltas[i])
		}
		out = binary.AppendVarint(out, minDelta)
		widthsAt := len(out)
		out = append(out, make([]byte, s.miniBlocks)...)
		for m := range s.miniBlocks {
			if m*perMini >= len(deltas) {
				out[widthsAt+m] = s.unusedWidth
				continue
			}
			mini := deltas[m*perMini : min((m+1)*perMini, len(deltas))]
			var width int
			for _, d := range mini {
				width = max(width, bits.Len64(uint64(d-minDelta)))
			}
			out[widthsAt+m] = byte(width)
			var w bitWriter
			for _, d := range mini {
				w.write(uint64(d-minDelta), width)
			}
			size := perMini * width / 8
			if s.cutLast && hi == len(values) && (m+1)*perMini >= len(deltas) {
				size = (len(mini)*width + 7) / 8
			}
			out = append(out, w.bytes(size)...)
		}
	}
	return out
}

// bitWriter packs values least significant bit first.
type bitWriter struct {
	buf  []byte
	nbit int
}

func (w *bitWriter) write(v uint64, width int) {
	for i := range width {
		if w.nbit%8 == 0 {
			w.buf = append(w.buf, 0)
		}
		w.buf[w.nbit/8] |= byte(v>>i&1) << (w.nbit % 8)
		w.nbit++
	}
}

// bytes returns the packed bits zero-padded (or cut) to size bytes.
func (w *bitWriter) bytes(size int) []byte {
	return append(w.buf, make([]byte, max(0, size-len(w.buf)))...)[:size]
}

// deltaWidthValues returns n values whose deltas need every bit width from
// 0 to 64 in turn, perMini deltas per width, starting at first.
func deltaWidthValues(rng *rand.Rand, first int64, n, perMini int) []int64 {
	values := []int64{first}
	for len(values) < n {
		w := (len(values) - 1) / perMini % 65
		base := int64(rng.Uint64())
		for range perMini {
			var u uint64
			if w > 0 {
				u = rng.Uint64() >> (64 - w)
				if rng.IntN(4) == 0 {
					u = 1<<w - 1 // the widest delta of the mini-block
				}
			}
			values = append(values, values[len(values)-1]+base+int64(u))
		}
	}
	return values[:n]
}

func TestDeltaDecodeInt64(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	firsts := []int64{0, 1, -1, math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32, math.MaxUint32}
	counts := []int{1, 2, 3, 31, 32, 33, 127, 128, 129, 200, 1000, 4097}
	var tmp deltaScratch
	for _, s := range deltaShapes {
		for _, first := range firsts {
			for _, n := range counts {
				values := deltaWidthValues(rng, first, n, 32)
				src := deltaEncode(values, s)
				got, err := decodeDelta([]int64(nil), src, n, &tmp)
				if err != nil {
					t.Fatalf("%+v, first %d, %d values: %v", s, first, n, err)
				}
				if !slices.Equal(got, values) {
					t.Fatalf("%+v, first %d, %d values: got %v, want %v", s, first, n, head(got), head(values))
				}
				if !s.cutLast && s.unusedWidth <= 64 && s.blockSize <= 2048 {
					// parquet-go's INT64 decoder is right for every width:
					// it serves as an independent reference.
					ref, err := parquet.DeltaBinaryPacked.DecodeInt64(nil, src)
					if err != nil || !slices.Equal(ref, values) {
						t.Fatalf("%+v, first %d, %d values: the test stream is wrong: parquet-go reads %v (%v)", s, first, n, head(ref), err)
					}
				}
			}
		}
	}
}

// TestDeltaDecodeInt32 decodes INT32 streams whose deltas were computed in
// 64 bits (DuckDB's, with mini-blocks of bit width 33), and UINT_32
// streams whose values lie above 2^31: each value is the low 32 bits.
func TestDeltaDecodeInt32(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	var tmp deltaScratch
	for _, s := range deltaShapes {
		for _, n := range []int{1, 2, 33, 129, 257, 4097} {
			signed := make([]int64, n)
			unsigned := make([]int64, n)
			for i := range signed {
				signed[i] = int64(int32(rng.Uint32()))
				unsigned[i] = int64(rng.Uint32())
			}
			signed[0], unsigned[0] = math.MinInt32, 2436192378
			if n > 1 {
				signed[1], unsigned[1] = math.MaxInt32, math.MaxUint32
			}
			for _, values := range [][]int64{signed, unsigned} {
				src := deltaEncode(values, s)
				if n > 2 && !hasWideMiniBlock(values) {
					t.Fatalf("the test values should need 33-bit deltas")
				}
				got, err := decodeDelta([]int32(nil), src, n, &tmp)
				if err != nil {
					t.Fatalf("%+v, %d values: %v", s, n, err)
				}
				for i, v := range values {
					if got[i] != int32(v) {
						t.Fatalf("%+v, value %d: got %d, want %d (%d)", s, i, got[i], int32(v), v)
					}
				}
			}
		}
	}
	// Streams written in 32-bit arithmetic (parquet-go's) read the same.
	values := make([]int32, 1000)
	for i := range values {
		values[i] = rng.Int32() - math.MaxInt32/2
	}
	src, err := parquet.DeltaBinaryPacked.EncodeInt32(nil, values)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeDelta([]int32(nil), src, len(values), &tmp)
	if err != nil || !slices.Equal(got, values) {
		t.Fatalf("parquet-go's stream: %v, %v", head(got), err)
	}
}

// hasWideMiniBlock reports whether some delta of values is outside the
// int32 range, so that a 64-bit writer needs a width above 32.
func hasWideMiniBlock(values []int64) bool {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := 1; i < len(values); i++ {
		d := values[i] - values[i-1]
		lo, hi = min(lo, d), max(hi, d)
	}
	return uint64(hi-lo) > math.MaxUint32
}

// TestDeltaDecodeBadStreams checks that malformed streams are errors, not
// wrong numbers, and that a stream declaring billions of values costs no
// more than the values asked for.
func TestDeltaDecodeBadStreams(t *testing.T) {
	values := deltaWidthValues(rand.New(rand.NewPCG(8, 3)), 5, 300, 32)
	good := deltaEncode(values, deltaShapes[0])
	header := func(block, minis, total uint64, first int64) []byte {
		b := binary.AppendUvarint(nil, block)
		b = binary.AppendUvarint(b, minis)
		b = binary.AppendUvarint(b, total)
		return binary.AppendVarint(b, first)
	}
	cases := []struct {
		name string
		src  []byte
		n    int
	}{
		{"empty", nil, 1},
		{"truncated header", good[:2], 1},
		{"fewer values than the page", good, 301},
		{"truncated mini-block", good[:len(good)-40], 300},
		{"block size not a multiple of 128", header(100, 4, 10, 0), 10},
		{"mini-blocks not a multiple of 32", header(128, 3, 10, 0), 10},
		{"zero mini-blocks", header(128, 0, 10, 0), 10},
		{"huge block", header(1<<30, 1<<25, 10, 0), 10},
		{"width 65", append(append(header(128, 4, 3, 0), 0), 65, 0, 0, 0), 3},
		{"missing block header", header(128, 4, 3, 0), 3},
	}
	var tmp deltaScratch
	for _, c := range cases {
		_, err := decodeDelta([]int64(nil), c.src, c.n, &tmp)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", c.name, err)
		}
	}
	// Two billion values declared, three read: the decoder takes what the
	// page needs, not what the stream claims.
	bomb := append(header(128, 4, math.MaxInt32, 7), 2, 0, 0, 0, 0)
	allocs := testing.AllocsPerRun(10, func() {
		got, err := decodeDelta(make([]int64, 0, 3), bomb, 3, &tmp)
		if err != nil || !slices.Equal(got, []int64{7, 8, 9}) {
			t.Fatalf("got %v, %v", got, err)
		}
	})
	if allocs > 1 {
		t.Fatalf("%v allocations per decode", allocs)
	}
}

func head[T any](v []T) string {
	if len(v) > 8 {
		return fmt.Sprint(v[:8]) + "..."
	}
	return fmt.Sprint(v)
}

// TestDeltaPages reads INT32 and UINT_32 columns written as DuckDB writes
// them with V2 encodings: DELTA_BINARY_PACKED pages of 64-bit deltas, in
// data pages v1 and v2, with nulls, in pages of a few values to a few
// thousand.
func TestDeltaPages(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 6))
	for _, unsigned := range []bool{false, true} {
		col := optionalColumn(format.Int32)
		if unsigned {
			col = optionalColumn(format.Int32, deprecated.Uint32)
		}
		for _, n := range []int{1, 2, 40, 100, 129, 1000, 4097} {
			var pages []handPage
			var def []byte
			var want []int32
			for lo := 0; lo < n; lo += 1000 {
				hi := min(lo+1000, n)
				var values []int64
				pageDef := make([]byte, hi-lo)
				for i := range pageDef {
					if (lo+i)%7 == 3 {
						continue
					}
					pageDef[i] = 1
					v := int64(int32(rng.Uint32()))
					if unsigned {
						v = int64(rng.Uint32())
					}
					if len(values) == 0 {
						v = 2436192378 // above 2^31
						if !unsigned {
							v = math.MinInt32
						}
					}
					values = append(values, v)
					want = append(want, int32(v))
				}
				def = append(def, pageDef...)
				enc := deltaEncode(values, deltaShapes[1])
				nulls := len(pageDef) - len(values)
				if lo%2000 == 0 {
					pages = append(pages, pageV1(len(pageDef), format.DeltaBinaryPacked, nil, levelsV1Bytes(pageDef, 1, packed256), enc))
				} else {
					pages = append(pages, pageV2(len(pageDef), nulls, len(pageDef), format.DeltaBinaryPacked, nil, hybridEncode(widen(pageDef), 1, packed256), enc))
				}
			}
			data := handFile(t, col, int64(n), int64(n), pages, nil)
			c, err := readHand(t, "delta.parquet", data)
			if err != nil {
				t.Fatalf("unsigned=%t, %d rows: %v", unsigned, n, err)
			}
			if !slices.Equal(c.Int32, want) || !slices.Equal(c.DefLevels, def) {
				t.Fatalf("unsigned=%t, %d rows: got %v, want %v", unsigned, n, head(c.Int32), head(want))
			}
		}
	}
}

// TestDeltaByteArrayPrefixes reads DELTA_BYTE_ARRAY pages into a Column
// whose buffer held other bytes before: a first value that claims a
// prefix, or a value that claims a longer prefix than the value before it
// has, makes the page corrupt. Decoded, a prefix longer than the value
// before but not than all the values before took its rest from whatever
// the buffer held past the last value, so that reads of the same damaged
// page gave different values (found by FuzzSharedRanges).
func TestDeltaByteArrayPrefixes(t *testing.T) {
	page := func(prefixes []int64, suffixes []string) []byte {
		lengths := make([]int64, len(suffixes))
		var tail []byte
		for i, s := range suffixes {
			lengths[i] = int64(len(s))
			tail = append(tail, s...)
		}
		out := deltaEncode(prefixes, deltaShapes[0])
		out = append(out, deltaEncode(lengths, deltaShapes[0])...)
		return append(out, tail...)
	}
	for _, tc := range []struct {
		name     string
		prefixes []int64
		suffixes []string
		want     []string // or the error
		err      string
	}{
		{"valid", []int64{0, 2, 0, 1}, []string{"abc", "d", "xy", "z"}, []string{"abc", "abd", "xy", "xz"}, ""},
		{"a first prefix", []int64{2, 2}, []string{"c", "d"}, nil, "prefix"},
		{"longer than the value before", []int64{0, 0, 4}, []string{"abcdef", "x", "y"}, nil,
			"value 2 takes a prefix of 4 bytes from the value before it, which has 1"},
	} {
		n := len(tc.suffixes)
		def := bytes.Repeat([]byte{1}, n)
		data := handFile(t, optionalColumn(format.ByteArray), int64(n), int64(n),
			[]handPage{pageV1(n, format.DeltaByteArray, nil, levelsV1Bytes(def, 1, packed8), page(tc.prefixes, tc.suffixes))}, nil)
		r, err := Open("delta.parquet", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		c := Column{Bytes: append(make([]byte, 0, 256), "stale bytes of another read"...)[:0]}
		err = r.ReadColumn(t.Context(), 0, 0, &c)
		if tc.err != "" {
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v (values %q), want a corruption error saying %q", tc.name, err, head(byteArrays(&c)), tc.err)
			}
			continue
		}
		if got := byteArrays(&c); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, %v, want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestDeltaFixedLenByteArrayPrefixes: in a FIXED_LEN_BYTE_ARRAY column
// too, a DELTA_BYTE_ARRAY value that claims a longer prefix than the value
// before it has makes the page corrupt. In a page of 151 values,
// parquet-go's vectorised decoder took such a value without an error.
func TestDeltaFixedLenByteArrayPrefixes(t *testing.T) {
	col := handColumn{schema: []format.SchemaElement{{Name: "v", Type: some(format.FixedLenByteArray),
		TypeLength: some(int32(3)), RepetitionType: some(format.Optional)}}}
	for _, tc := range []struct {
		prefixes []int64
		suffixes string
		err      string
	}{
		{[]int64{0, 2, 0}, "abcdxyz", ""},
		{[]int64{0, 5}, "abc", "value 1 takes a prefix of 5 bytes from the value before it, which has 3"},
		{append(make([]int64, 150), 5), strings.Repeat("abc", 150), "value 150 takes a prefix of 5 bytes from the value before it, which has 3"},
	} {
		n := len(tc.prefixes)
		lengths := make([]int64, n)
		for i := range lengths {
			lengths[i] = max(0, 3-tc.prefixes[i])
		}
		enc := append(deltaEncode(tc.prefixes, deltaShapes[0]), deltaEncode(lengths, deltaShapes[0])...)
		data := handFile(t, col, int64(n), int64(n), []handPage{pageV1(n, format.DeltaByteArray, nil,
			levelsV1Bytes(bytes.Repeat([]byte{1}, n), 1, packed8), append(enc, tc.suffixes...))}, nil)
		c, err := readHand(t, "flba.parquet", data)
		switch {
		case tc.err == "" && (err != nil || string(c.Bytes) != "abcabdxyz"):
			t.Errorf("prefixes %v: got %q, %v, want abc abd xyz", tc.prefixes, c.Bytes, err)
		case tc.err != "" && (!errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("prefixes %v: got %v, want a corruption error saying %q", tc.prefixes, err, tc.err)
		}
	}
}

// byteArrays returns the byte-array values of c as strings.
func byteArrays(c *Column) []string {
	var out []string
	for i := range max(len(c.Offsets)-1, 0) {
		out = append(out, string(c.ByteArray(i)))
	}
	return out
}
