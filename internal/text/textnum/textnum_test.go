package textnum

import (
	"math"
	"strconv"
	"testing"
)

// numberSeeds are texts at the edges of what Int and Float take: signs,
// 15, 16, 18 and 19 digits, dots at either end, exponents, hex,
// underscores, infinities, and bytes that are not digits.
var numberSeeds = []string{
	"", "0", "-0", "+0", "7", "-12.375", "0.5", "42", "+3.25", ".5", "5.", "-", "+", ".", "-.",
	"123456789012345", "1234567890123456", "999999999999999999", "1000000000000000000",
	"-999999999999999999", "9223372036854775807", "-9223372036854775808",
	"0.000000000000001", "0.0000000000000001", "1234567.89012345", "99999999999999.9",
	"1e5", "1E5", "0x1p3", "1_000", "inf", "NaN", "1.2.3", "1..2", " 1", "1 ", "١٢", "12a",
	"000000000000000000001", "-00.100", "0.1", "0.2", "0.3", "9007199254740993",
	"0.9999999999999999", "99999999999999.99", "-0.000000000000001", "9999999999999999999", "-9999999999999999999",
}

// FuzzInt: whatever Int takes, strconv.ParseInt takes too, with the same
// value; Int may leave to strconv what it takes, never the other way.
func FuzzInt(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Int(s)
		if !ok {
			return
		}
		want, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v != want {
			t.Fatalf("Int(%q) = %d, strconv.ParseInt gives %d, %v", s, v, want, err)
		}
	})
}

// FuzzFloat: whatever Float takes, strconv.ParseFloat takes too, with
// the same float64, bit for bit (the sign of a zero included).
func FuzzFloat(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Float(s)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("Float(%q) = %v (%#x), strconv.ParseFloat gives %v (%#x), %v", s, v, math.Float64bits(v), want, math.Float64bits(want), err)
		}
	})
}

// TestTakesShortDecimals: Int and Float take the short decimals they are
// for (so that the fuzz tests' agreement is not empty), and leave the rest
// to strconv.
func TestTakesShortDecimals(t *testing.T) {
	for _, c := range []struct {
		s          string
		int, float bool
	}{
		{"0", true, true}, {"-12", true, true}, {"+7", true, true}, {"999999999999999999", true, false},
		{"1000000000000000000", false, false}, {"-12.375", false, true}, {"123456789012345", true, true},
		{"1234567890123456", true, false}, {".5", false, false}, {"5.", false, false}, {"1e5", false, false},
		{"", false, false}, {"-", false, false}, {"1_0", false, false}, {"12.3.4", false, false},
	} {
		if _, ok := Int(c.s); ok != c.int {
			t.Errorf("Int(%q) takes it: %v, want %v", c.s, ok, c.int)
		}
		if _, ok := Float(c.s); ok != c.float {
			t.Errorf("Float(%q) takes it: %v, want %v", c.s, ok, c.float)
		}
	}
}
