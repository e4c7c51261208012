package operators_test

import (
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
)

// roundTrip encodes rows after a prefix, decodes them and compares.
func roundTrip[E operators.FixedNumber](t *testing.T, rows [][]E) {
	t.Helper()
	var c operators.NumbersCodec[E]
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

func isNaNs[E operators.FixedNumber](s []E) bool {
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
	roundTrip(t, [][]float32{{1.5, float32(math.Inf(-1)), float32(math.Copysign(0, -1))}, {float32(math.NaN())}})
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
	var c operators.NumbersCodec[int32]
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
	var c operators.NumbersCodec[int32]
	good, _ := c.Append(nil, [][]int32{{1, 2, 3}, {4}})
	cases := map[string]struct {
		src []byte
		n   int
	}{
		"truncated":         {good[:len(good)-1], 2},
		"one byte too many": {append(slices.Clone(good), 0), 2},
		"more rows":         {good, 3},
		"fewer rows":        {good, 1},
		"no lengths":        {nil, 1},
		"huge length":       {[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4}, 1},
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

// A disk cache of []int32 rows uses NumbersCodec unless told otherwise: a
// file built with it explicitly is replayed by the default, and one built
// with gob is refused.
func TestCacheDefaultCodecForNumberRows(t *testing.T) {
	tokens := flow.From(source(500, 50, 16)).Via(operators.Map(func(v int64) ([]int32, error) {
		return make([]int32, v%9), nil
	})).Parallel(2)
	count := func(c flow.Source[[]int32]) (int, error) {
		n := 0
		for _, err := range flow.Items[[]int32](t.Context(), flow.From(c)) {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
	dir := t.TempDir()
	numbers := filepath.Join(dir, "numbers")
	if n, err := count(operators.Cache[[]int32](tokens, operators.OnDisk(numbers), operators.WithCodec[[]int32](operators.NumbersCodec[int32]{}))); err != nil || n != 500 {
		t.Fatalf("build with NumbersCodec: %d rows, %v", n, err)
	}
	if n, err := count(operators.Cache[[]int32](tokens, operators.OnDisk(numbers))); err != nil || n != 500 {
		t.Fatalf("the default codec on a NumbersCodec cache: %d rows, %v; want a replay of 500", n, err)
	}
	gob := filepath.Join(dir, "gob")
	if _, err := count(operators.Cache[[]int32](tokens, operators.OnDisk(gob), operators.WithCodec[[]int32](operators.GobCodec[[]int32]{}))); err != nil {
		t.Fatal(err)
	}
	if _, err := count(operators.Cache[[]int32](tokens, operators.OnDisk(gob))); err == nil || !strings.Contains(err.Error(), "built by another pipeline") {
		t.Fatalf("the default codec on a gob cache: %v, want a refusal", err)
	}
}
