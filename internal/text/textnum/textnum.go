// Package textnum parses the short decimal numbers that make up most
// numeric text fields (CSV, JSON Lines, the text a record sink converts)
// faster than strconv, and exactly as strconv does: each function reports
// false for what it does not take, which strconv then parses or rejects
// with its error.
package textnum

// Int parses the decimal integers of at most 18 digits, with an
// optional sign, that make up most integer columns, faster than
// strconv.ParseInt; it reports false for anything else, which
// strconv.ParseInt then parses or rejects with its error.
func Int(s string) (int64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var v int64
	for i := 0; i < len(s); i++ {
		d := s[i] - '0'
		if d > 9 {
			return 0, false
		}
		v = v*10 + int64(d)
	}
	if neg {
		v = -v
	}
	return v, true
}

// Float parses the decimals that make up most float columns
// ("-12.375", "0.5", "42"), faster than strconv.ParseFloat, whose general
// syntax (exponents, hex, infinities, underscores) and checks take most
// of its time on such text; it reports false for anything else, which
// strconv.ParseFloat then parses or rejects with its error. A decimal of
// at most 15 digits is an integer below 2^53 divided by a power of ten up
// to 10^22, both exact in a float64, and one division rounds correctly:
// the value is strconv's, bit for bit (strconv takes the same path).
func Float(s string) (float64, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	var mant uint64
	digits, frac, dot := 0, 0, -1
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' && dot < 0 {
			dot = i
			continue
		}
		d := c - '0'
		if d > 9 || digits == 15 {
			return 0, false
		}
		mant = mant*10 + uint64(d)
		digits++
		if dot >= 0 {
			frac++
		}
	}
	// Digits on both sides of a dot, as strconv's syntax needs none of:
	// ".5" and "5." are left to it.
	if digits == 0 || dot == 0 || dot == len(s)-1 {
		return 0, false
	}
	v := float64(mant)
	if frac > 0 {
		v /= pow10[frac]
	}
	if neg {
		v = -v
	}
	return v, true
}

// pow10 holds the powers of ten exact in a float64 that Float
// divides by.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}
