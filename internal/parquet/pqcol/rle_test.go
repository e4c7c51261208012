package pqcol

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

var runCounts = []int{1, 2, 7, 8, 9, 40, 100, 127, 128, 129, 255, 256, 257, 1000}

// randomRuns returns n values below limit, in runs of equal values of
// random lengths, as levels and dictionary indexes tend to be.
func randomRuns(rng *rand.Rand, n int, limit uint64) []uint32 {
	out := make([]uint32, 0, n)
	for len(out) < n {
		v := uint32(rng.Uint64N(limit))
		for range min(1+rng.IntN(20), n-len(out)) {
			out = append(out, v)
		}
	}
	return out
}

// TestLevelRuns decodes levels of every bit width a level can have (1 to 8)
// from streams laid out as writers lay them out, among them DuckDB's
// bit-packed runs of 256 values.
func TestLevelRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 4))
	var runs []byte
	for w := 1; w <= 8; w++ {
		maxLevel := 1<<w - 1
		for _, n := range runCounts {
			want := randomRuns(rng, n, uint64(maxLevel)+1)
			levels := make([]byte, n)
			for i, v := range want {
				levels[i] = byte(v)
			}
			ref, err := levelRLE[w].EncodeLevels(nil, levels)
			if err != nil {
				t.Fatal(err)
			}
			streams := map[string][]byte{"parquet-go": ref}
			for _, s := range []runStyle{packed256, packed8, overclaim} {
				streams[s.String()] = hybridEncode(want, w, s)
			}
			for name, src := range streams {
				got, err := decodeLevels(nil, format.RLE, maxLevel, n, src, &runs)
				if err != nil {
					t.Fatalf("width %d, %d levels, %s: %v", w, n, name, err)
				}
				if !slices.Equal(got, levels) {
					t.Fatalf("width %d, %d levels, %s: got %v, want %v", w, n, name, head(got), head(levels))
				}
			}
		}
	}
}

// TestDictionaryIndexWidths reads nullable dictionary-encoded columns whose
// indexes are written with every bit width from 0 to 32 (a writer may use
// more bits than the dictionary needs), in data pages v1 and v2, with runs
// laid out as writers lay them out.
func TestDictionaryIndexWidths(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 5))
	for w := 0; w <= 32; w++ {
		size := min(uint64(1)<<w, 50)
		dict := make([]int64, size)
		for i := range dict {
			dict[i] = int64(i)*1000 + 7
		}
		for _, n := range []int{1, 2, 40, 100, 257, 1000} {
			def := make([]byte, n)
			var want []int64
			indexes := randomRuns(rng, n, size)
			var present []uint32
			for i := range def {
				if i%3 != 1 {
					def[i] = 1
					present = append(present, indexes[i])
					want = append(want, dict[indexes[i]])
				}
			}
			for _, style := range []runStyle{packed256, packed8, overclaim} {
				values := append([]byte{byte(w)}, hybridEncode(present, w, style)...)
				for _, v2 := range []bool{false, true} {
					name := fmt.Sprintf("width %d, %d rows, %s, v2=%t", w, n, style, v2)
					var page handPage
					if v2 {
						page = pageV2(n, n-len(present), n, format.RLEDictionary, nil, hybridEncode(widen(def), 1, style), values)
					} else {
						page = pageV1(n, format.RLEDictionary, nil, levelsV1Bytes(def, 1, style), values)
					}
					data := handFile(t, optionalColumn(format.Int64), int64(n), int64(n),
						[]handPage{dictionaryPage(len(dict), plainInt64(dict)), page}, nil)
					c, err := readHand(t, "dict.parquet", data)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !slices.Equal(c.DefLevels, def) || !slices.Equal(c.Int64, want) || c.NumRows != int64(n) {
						t.Fatalf("%s: got %d rows, levels %v, values %v; want levels %v, values %v",
							name, c.NumRows, head(c.DefLevels), head(c.Int64), head(def), head(want))
					}
				}
			}
		}
	}
}

func plainInt64(values []int64) []byte {
	var out []byte
	for _, v := range values {
		out = binary.LittleEndian.AppendUint64(out, uint64(v))
	}
	return out
}

// TestRunsClaimingBillions reads pages of three values whose runs claim two
// billion: a repeated run of dictionary indexes, a bit-packed run of width
// 0, and a repeated run of levels. Each decodes the page's three values,
// with little memory.
func TestRunsClaimingBillions(t *testing.T) {
	huge := binary.AppendUvarint(nil, (1<<31-1)<<1)
	widthZero := binary.AppendUvarint(nil, (1<<28)<<1|1)
	dict := dictionaryPage(2, plainInt64([]int64{10, 20}))
	defs := levelsV1Bytes([]byte{1, 1, 1}, 1, packed8)
	cases := map[string][]handPage{
		"indexes":    {dict, pageV1(3, format.RLEDictionary, nil, defs, append(append([]byte{1}, huge...), 1))},
		"width zero": {dictionaryPage(1, plainInt64([]int64{10})), pageV1(3, format.RLEDictionary, nil, defs, append([]byte{0}, widthZero...))},
		"levels": {dict, pageV1(3, format.RLEDictionary, nil,
			append(binary.LittleEndian.AppendUint32(nil, uint32(len(huge)+1)), append(huge, 1)...),
			append([]byte{1}, hybridEncode([]uint32{1, 1, 1}, 1, packed256)...))},
	}
	for name, pages := range cases {
		data := handFile(t, optionalColumn(format.Int64), 3, 3, pages, nil)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c, err := readHand(t, name+".parquet", data)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := []int64{20, 20, 20}
		if name == "width zero" {
			want = []int64{10, 10, 10}
		}
		if !slices.Equal(c.Int64, want) || !slices.Equal(c.DefLevels, []byte{1, 1, 1}) {
			t.Fatalf("%s: got %v %v", name, c.Int64, c.DefLevels)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Fatalf("%s: allocated %d bytes", name, alloc)
		}
	}
}

// TestTruncatedRuns checks that runs that stop before the values a page
// needs are errors, while a last bit-packed run that stops after them
// decodes.
func TestTruncatedRuns(t *testing.T) {
	var runs []byte
	full := hybridEncode([]uint32{1, 2, 3, 1, 2, 3, 1, 2, 3, 1}, 2, packed256) // 1 header byte, 64 bytes
	// Ten values of 2 bits take two groups of 8, 4 bytes.
	got, err := decodeLevels(nil, format.RLE, 3, 10, full[:1+4], &runs)
	if err != nil || !slices.Equal(got, []byte{1, 2, 3, 1, 2, 3, 1, 2, 3, 1}) {
		t.Fatalf("a run cut after the values needed: %v, %v", got, err)
	}
	for _, cut := range [][]byte{full[:1+3], full[:1], {}, {0x80}} {
		if _, err := decodeLevels(nil, format.RLE, 3, 10, cut, &runs); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%x: got %v, want ErrCorrupt", cut, err)
		}
	}
}

// TestRepeatedRunValueTooWide: a repeated run's value must fit in the
// stream's bit width. parquet-go repeats the value's bytes as they are,
// so a level of 240 in a column of maximum level 1 (width 1) came out of
// the decoder, which skips its check of the maximum when the width cannot
// hold more, and a repetition check then indexed past the column's lists
// (found by FuzzSharedRanges). Dictionary indexes and levels of other
// widths are refused the same way.
func TestRepeatedRunValueTooWide(t *testing.T) {
	var runs []byte
	for _, tc := range []struct {
		maxLevel int
		stream   []byte
		want     []byte // nil: corrupt
	}{
		{1, []byte{10 << 1, 1}, []byte{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
		{1, []byte{10 << 1, 0xf0}, nil},
		{1, []byte{10 << 1, 2}, nil},
		{3, []byte{10 << 1, 3}, []byte{3, 3, 3, 3, 3, 3, 3, 3, 3, 3}},
		{3, []byte{10 << 1, 4}, nil},
		{2, []byte{10 << 1, 3}, nil}, // fits 2 bits, above the maximum
		{1, []byte{4 << 1, 1, 6 << 1, 0x81}, nil},
	} {
		got, err := decodeLevels(nil, format.RLE, tc.maxLevel, 10, tc.stream, &runs)
		switch {
		case tc.want == nil && !errors.Is(err, ErrCorrupt):
			t.Errorf("max %d, %x: got %v, %v, want ErrCorrupt", tc.maxLevel, tc.stream, got, err)
		case tc.want != nil && (err != nil || !slices.Equal(got, tc.want)):
			t.Errorf("max %d, %x: got %v, %v, want %v", tc.maxLevel, tc.stream, got, err, tc.want)
		}
	}
	// A dictionary index stream of width 2 whose repeated value needs 3.
	if _, err := rlePrefix(&runs, []byte{2, 8 << 1, 5}, 1, 2, 8); !errors.Is(err, ErrCorrupt) {
		t.Errorf("dictionary indexes of width 2 repeating 5: got %v, want ErrCorrupt", err)
	}
}
