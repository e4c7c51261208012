package dataset

import (
	"math/bits"

	"github.com/rowflow/rowflow/internal/random/pcg"
)

// Purposes of the random streams of a plan. Each (seed, epoch, purpose)
// names one independent PCG stream; see "Random streams" in the package
// documentation. The values are part of the determinism contract.
const (
	purposeFiles  = 1 // the order of files, for ShuffleWindow(k > 0)
	purposeWindow = 2 // the shuffle buffer's choices, for ShuffleWindow(k > 0)
	purposeGlobal = 3 // the permutation of all fragments, for ShuffleWindow(-1)
)

// golden is 2^64 / phi, the SplitMix64 increment. It is a variable so that
// multiples of it wrap modulo 2^64.
var golden uint64 = 0x9e3779b97f4a7c15

// mix64 is the SplitMix64 finaliser, a bijection of uint64.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// stream is a PCG-XSH-RR 64/32 stream in which every decision consumes
// exactly two outputs, so that decision d starts at output 2d.
type stream struct {
	r pcg.Rand
}

// newStream returns the stream for (seed, epoch, purpose):
//
//	k     = mix64(mix64(seed + γ) ^ (epoch + 2γ))
//	state = mix64(k ^ (purpose + 3γ))
//	seq   = mix64(k ^ (purpose + 4γ))
//	r     = pcg.New(state, seq)
//
// where γ is 0x9e3779b97f4a7c15 and arithmetic wraps modulo 2^64.
func newStream(seed uint64, epoch int64, purpose uint64) *stream {
	k := mix64(mix64(seed+golden) ^ (uint64(epoch) + 2*golden))
	state := mix64(k ^ (purpose + 3*golden))
	seq := mix64(k ^ (purpose + 4*golden))
	return &stream{r: pcg.New(state, seq)}
}

// intn returns a number in [0, n) from the next two outputs x1, x2 of the
// stream: the high 64 bits of (x1<<32 | x2) * n. The bias is below n/2^64.
// It panics if n < 1.
func (s *stream) intn(n int) int {
	if n < 1 {
		panic("dataset: intn with n < 1")
	}
	x := uint64(s.r.Next())<<32 | uint64(s.r.Next())
	hi, _ := bits.Mul64(x, uint64(n))
	return int(hi)
}

// shuffle permutes a with the Fisher-Yates algorithm: for i from len(a)-1
// down to 1, swap a[i] with a[s.intn(i+1)].
func shuffle[T any](s *stream, a []T) {
	for i := len(a) - 1; i > 0; i-- {
		j := s.intn(i + 1)
		a[i], a[j] = a[j], a[i]
	}
}
