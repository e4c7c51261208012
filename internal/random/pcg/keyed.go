package pcg

import "math/bits"

// γ is 2^64/φ, the SplitMix64 increment; a variable so that its multiples
// wrap modulo 2^64.
var γ uint64 = 0x9e3779b97f4a7c15

// Mix64 is the SplitMix64 finaliser, a bijection of uint64 whose output
// bits each depend on every input bit.
func Mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Keyed returns the stream named by seed and keys, for example (seed,
// epoch, stage position, purpose, partition):
//
//	k     = Mix64(seed + γ)
//	k     = Mix64(k ^ (keys[i] + (i+2)γ))   for each key in order
//	state = Mix64(k ^ 0x5851f42d4c957f2d)
//	seq   = Mix64(k ^ 0x14057b7ef767814f)
//	r     = New(state, seq)
//
// where γ is 0x9e3779b97f4a7c15 and arithmetic wraps modulo 2^64. Streams
// of different key lists are independent for all practical purposes. The
// derivation is part of rowflow's determinism contract.
func Keyed(seed uint64, keys ...uint64) Rand {
	k := Mix64(seed + γ)
	for i, key := range keys {
		k = Mix64(k ^ (key + uint64(i+2)*γ))
	}
	return New(Mix64(k^0x5851f42d4c957f2d), Mix64(k^0x14057b7ef767814f))
}

// Intn returns a number in [0, n) made of the next two outputs x1, x2:
// the high 64 bits of (x1<<32 | x2) * n, whose bias is below n/2^64. Every
// call consumes exactly two outputs, so call d starts at output 2d and
// Advance(2*d) skips d calls. It panics if n < 1.
func (r *Rand) Intn(n int) int {
	if n < 1 {
		panic("pcg: Intn with n < 1")
	}
	x := uint64(r.Next())<<32 | uint64(r.Next())
	hi, _ := bits.Mul64(x, uint64(n))
	return int(hi)
}
