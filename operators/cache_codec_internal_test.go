package operators

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"
)

// roundTrip encodes rows after a prefix, decodes them and compares.
func roundTrip[E fixedNumber](t *testing.T, rows [][]E) {
	t.Helper()
	var c numbersCodec[E]
	prefix := []byte("head")
	b, err := c.Append(slices.Clone(prefix), rows)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b[:len(prefix)], prefix) {
		t.Fatalf("Append changed what was before it: %q", b[:len(prefix)])
	}
	got, err := c.Decode(b[len(prefix):], len(rows))
	if err != nil {
		t.Fatalf("%T: %v", rows, err)
	}
	if len(got) != len(rows) {
		t.Fatalf("%T: %d rows, want %d", rows, len(got), len(rows))
	}
	// Encoding what was decoded gives the same bytes: every number kept
	// its bits, a float's sign of zero and NaN payload too.
	again, err := c.Append(nil, got)
	if err != nil || !slices.Equal(again, b[len(prefix):]) {
		t.Fatalf("%T: decoded rows encode to %x, %v; want %x", rows, again, err, b[len(prefix):])
	}
	for i := range rows {
		if !slices.Equal(got[i], rows[i]) && !(isNaNs(got[i]) && isNaNs(rows[i])) {
			t.Fatalf("%T row %d: %v, want %v", rows, i, got[i], rows[i])
		}
		if len(rows[i]) == 0 && got[i] != nil {
			t.Fatalf("%T row %d: empty row decoded as %#v, want nil", rows, i, got[i])
		}
		if cap(got[i]) != len(got[i]) {
			t.Fatalf("%T row %d: capacity %d beyond its length %d", rows, i, cap(got[i]), len(got[i]))
		}
	}
}

func isNaNs[E fixedNumber](s []E) bool {
	for _, v := range s {
		if f := float64(v); !math.IsNaN(f) {
			return false
		}
	}
	return len(s) > 0
}

func TestNumbersCodecRoundTrip(t *testing.T) {
	roundTrip(t, [][]int32{{1, -2, math.MaxInt32, math.MinInt32}, {}, nil, {7}})
	roundTrip(t, [][]int8{{-128, 127}, {0}})
	roundTrip(t, [][]uint16{{65535}, {}, {1, 2, 3}})
	roundTrip(t, [][]int64{{math.MinInt64, math.MaxInt64}})
	roundTrip(t, [][]uint64{{math.MaxUint64}})
	roundTrip(t, [][]float32{{1.5, float32(math.Inf(-1)), float32(math.Copysign(0, -1))}, {math.Float32frombits(0x7fc00123)}})
	roundTrip(t, [][]float64{{math.SmallestNonzeroFloat64, math.MaxFloat64}})
	roundTrip(t, [][]uint8{})
	// 1024 rows of 0 to 63 tokens, as a record holds.
	var rows [][]int32
	for i := range 1024 {
		r := make([]int32, i%64)
		for k := range r {
			r[k] = int32(i*k - 5000)
		}
		rows = append(rows, r)
	}
	roundTrip(t, rows)
}

// Appending to a decoded row copies it: it does not overwrite the next.
func TestNumbersCodecRowsDoNotOverlap(t *testing.T) {
	var c numbersCodec[int32]
	b, _ := c.Append(nil, [][]int32{{1, 2}, {3, 4}})
	got, err := c.Decode(b, 2)
	if err != nil {
		t.Fatal(err)
	}
	_ = append(got[0], 99)
	if !slices.Equal(got[1], []int32{3, 4}) {
		t.Fatalf("row 1 is %v after an append to row 0, want [3 4]", got[1])
	}
}

// Bad records give errors, not panics or large allocations.
func TestNumbersCodecRefusesBadRecords(t *testing.T) {
	var c numbersCodec[int32]
	good, _ := c.Append(nil, [][]int32{{1, 2, 3}, {4}})
	cases := map[string]struct {
		src []byte
		n   int
	}{
		"truncated":               {good[:len(good)-1], 2},
		"one byte too many":       {append(slices.Clone(good), 0), 2},
		"more rows":               {good, 3},
		"fewer rows":              {good, 1},
		"no lengths":              {nil, 1},
		"no rows, but bytes":      {good, 0},
		"negative rows":           {good, -1},
		"lengths past the record": {[]byte{8, 8, 1, 2, 3, 4, 5, 6, 7, 8}, 2},
		"huge length":             {[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4}, 1},
	}
	for name, tc := range cases {
		if rows, err := c.Decode(tc.src, tc.n); err == nil {
			t.Errorf("%s: decoded %v, want an error", name, rows)
		}
	}
	// A length that claims more numbers than the record holds is refused
	// before anything the size of the claim is allocated.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, n := range []int{1, 1024} {
		c.Decode([]byte{0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3, 4}, n) // 2^32-1 numbers in 4 bytes
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("refusing a huge length allocated %d bytes", got)
	}
}

// numbersCodec, the codec of a disk cache of []int32 rows, writes each
// row's length and then the numbers; decoded rows share one array and
// cannot grow into each other.
func TestNumbersCodecRecord(t *testing.T) {
	var c numbersCodec[int32]
	rec, _ := c.Append(nil, [][]int32{{101, 7592, 102}, nil, {101, 102}})
	rows, err := c.Decode(rec, 3)
	got := fmt.Sprintln(len(rec), "bytes:", rows, err) + fmt.Sprintln(rows[1] == nil, cap(rows[0]))
	if want := "23 bytes: [[101 7592 102] [] [101 102]] <nil>\ntrue 3\n"; got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}
