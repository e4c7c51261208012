package determinism_test

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
)

// distinct checks that the values, which are pairwise different, have
// pairwise different encodings.
func distinct[T any](t *testing.T, name string, values []T) {
	t.Helper()
	seen := map[string]int{}
	for i, v := range values {
		e := string(determinism.AppendValue(nil, v))
		if j, ok := seen[e]; ok {
			t.Errorf("%s: %#v and %#v have the same encoding %x", name, values[j], v, e)
		}
		seen[e] = i
	}
}

// sequences returns every sequence of up to n elements from alphabet.
func sequences[E any](alphabet []E, n int) [][]E {
	out := [][]E{{}}
	level := [][]E{{}}
	for range n {
		var next [][]E
		for _, s := range level {
			for _, a := range alphabet {
				next = append(next, append(slices.Clip(s), a))
			}
		}
		out = append(out, next...)
		level = next
	}
	return out
}

// TestInjectiveSmallDomains enumerates small domains where boundaries are
// easy to confuse ("ab","c" against "a","bc") and checks that no two
// values share an encoding.
func TestInjectiveSmallDomains(t *testing.T) {
	words := []string{"", "a", "b", "ab", "ba", "\x00", "\x01a"}
	distinct(t, "[]string", sequences(words, 3))

	var byteSeqs [][][]byte
	for _, s := range sequences(words, 3) {
		bs := make([][]byte, len(s))
		for i, w := range s {
			bs[i] = []byte(w)
		}
		byteSeqs = append(byteSeqs, bs)
	}
	distinct(t, "[][]byte", byteSeqs)

	type row struct {
		P *int8
		S []int8
		T string
	}
	zero, one := int8(0), int8(1)
	var rows []row
	for _, p := range []*int8{nil, &zero, &one} {
		for _, s := range sequences([]int8{0, 1}, 2) {
			for _, w := range words {
				rows = append(rows, row{p, s, w})
			}
		}
	}
	distinct(t, "struct", rows)

	var ms []map[string]int8
	keys := []string{"", "a", "ab"}
	for code := range 27 { // each key absent, 0 or 1
		m := map[string]int8{}
		for i, c := 0, code; i < len(keys); i, c = i+1, c/3 {
			if c%3 > 0 {
				m[keys[i]] = int8(c%3 - 1)
			}
		}
		ms = append(ms, m)
	}
	distinct(t, "map", ms)

	atoms := []any{nil, int8(0), uint8(0), "", []byte{}, int64(0), 0.0, false, true, struct{}{}, []any{}}
	distinct(t, "[]any", sequences(atoms, 2))

	floats := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0x7ff8000000000002), math.SmallestNonzeroFloat64}
	distinct(t, "float64", floats)
	distinct(t, "*[]float64", []*[]float64{nil, {}, {0}, {0, 0}})
}

// fuzzRow is a struct with fields of several kinds, each of which can
// absorb bytes of its neighbours if the encoding were not self-delimiting.
type fuzzRow struct {
	A int32
	B string
	C []byte
	D float64
	E *uint8
	F map[string]int16
	G []string
}

func makeRow(a int32, b string, c []byte, d float64, e uint8, sep byte) fuzzRow {
	r := fuzzRow{A: a, B: b, C: c, D: d}
	if e%2 == 1 {
		r.E = &e
	}
	if sep != 0 {
		r.G = strings.Split(b, string(sep))
		r.F = map[string]int16{}
		for i, w := range r.G {
			r.F[w] = int16(i)
		}
	}
	return r
}

// equalRows is equality as the encoding defines it: floats by their bits,
// nil slices and maps as empty ones.
func equalRows(x, y fuzzRow) bool {
	return x.A == y.A && x.B == y.B && bytes.Equal(x.C, y.C) &&
		math.Float64bits(x.D) == math.Float64bits(y.D) &&
		(x.E == nil) == (y.E == nil) && (x.E == nil || *x.E == *y.E) &&
		maps.Equal(x.F, y.F) && slices.Equal(x.G, y.G)
}

// FuzzInjective checks that two rows have the same encoding exactly when
// they are equal.
func FuzzInjective(f *testing.F) {
	f.Add(int32(1), "ab,c", []byte("x"), 1.5, uint8(1), byte(','),
		int32(1), "a,bc", []byte("x"), 1.5, uint8(1), byte(','))
	f.Add(int32(0), "", []byte{}, 0.0, uint8(0), byte(0),
		int32(0), "", []byte(nil), math.Copysign(0, -1), uint8(0), byte(0))
	f.Add(int32(7), "a", []byte("b"), 2.0, uint8(3), byte('a'),
		int32(7), "a", []byte("b"), 2.0, uint8(3), byte('a'))
	f.Add(int32(-1), "\x01", []byte("\x01"), math.NaN(), uint8(2), byte(1),
		int32(-1), "\x01\x01", []byte(nil), math.NaN(), uint8(4), byte(1))
	f.Fuzz(func(t *testing.T, a1 int32, b1 string, c1 []byte, d1 float64, e1 uint8, s1 byte,
		a2 int32, b2 string, c2 []byte, d2 float64, e2 uint8, s2 byte) {
		x, y := makeRow(a1, b1, c1, d1, e1, s1), makeRow(a2, b2, c2, d2, e2, s2)
		ex, ey := determinism.AppendValue(nil, x), determinism.AppendValue(nil, y)
		if got, want := bytes.Equal(ex, ey), equalRows(x, y); got != want {
			t.Fatalf("rows %+v and %+v: equal encodings %v, equal rows %v", x, y, got, want)
		}
		// A stream of the two rows in either order is distinct from the
		// other order unless the rows are equal.
		h1, h2 := determinism.NewHasher[fuzzRow](), determinism.NewHasher[fuzzRow]()
		for _, e := range []error{h1.Add(idOf(0), x), h1.Add(idOf(1), y), h2.Add(idOf(0), y), h2.Add(idOf(1), x)} {
			if e != nil {
				t.Fatal(e)
			}
		}
		if (h1.Sum() == h2.Sum()) != equalRows(x, y) {
			t.Fatalf("rows %+v and %+v: swapping them changes the digest: %v", x, y, h1.Sum() != h2.Sum())
		}
	})
}

func ExampleAppendValue() {
	fmt.Printf("%x\n", determinism.AppendValue(nil, []string{"ab", "c"}))
	fmt.Printf("%x\n", determinism.AppendValue(nil, []string{"a", "bc"}))
	fmt.Printf("%x\n", determinism.AppendValue(nil, map[string]int16{"b": 2, "a": 1}))
	// Output:
	// 020261620163
	// 020161026263
	// 020161010001620200
}
