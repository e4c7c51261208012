package testutil

import "math/rand/v2"

// Decimals returns n random decimal texts of 1 to maxDigits digits, with
// the dot anywhere in them or absent and a minus sign half of the time:
// the input of the tests that check a fast number parser against strconv.
func Decimals(rng *rand.Rand, n, maxDigits int) []string {
	out := make([]string, 0, n)
	for range n {
		b := make([]byte, 1+rng.IntN(maxDigits))
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
		}
		s := string(b)
		if k := rng.IntN(len(b) + 1); k < len(b) {
			s = s[:k] + "." + s[k:]
		}
		if rng.IntN(2) == 0 {
			s = "-" + s
		}
		out = append(out, s)
	}
	return out
}
