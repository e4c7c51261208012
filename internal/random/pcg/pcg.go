// Package pcg implements the PCG-XSH-RR 64/32 random number generator of
// Melissa O'Neill's PCG family: 64 bits of state, a 64-bit odd increment
// that selects one of 2^63 streams, 32-bit outputs, and [Rand.Advance],
// which jumps any number of steps ahead or back in O(log n).
//
// It produces, bit for bit, the streams of github.com/dgryski/go-pcgr
// (New, Next, Advance), which rowflow's shuffles were defined with; the
// module internal/random/pcg/pcgrcheck checks that against go-pcgr. It is a
// package of rowflow's own so that neither rowflow nor the modules that
// depend on it need go-pcgr, which has no go.mod of its own: the go
// command then loads its tests, whose imports the module proxy does not
// serve.
package pcg

// multiplier is the 64-bit LCG multiplier of the PCG reference
// implementation.
const multiplier = 6364136223846793005

// Rand is one PCG stream; [New] makes one. A Rand is a plain value: a copy
// continues independently from the same position.
type Rand struct {
	state uint64
	inc   uint64 // odd when made by New
}

// New returns the stream of the PCG reference seeding procedure
// (pcg32_srandom_r) for the initial state initState and the stream
// selector initSeq; only the low 63 bits of initSeq select the stream.
func New(initState, initSeq uint64) Rand {
	r := Rand{inc: initSeq<<1 | 1}
	r.step()
	r.state += initState
	r.step()
	return r
}

func (r *Rand) step() { r.state = r.state*multiplier + r.inc }

// Next returns the next 32-bit output and moves the stream one step on.
func (r *Rand) Next() uint32 {
	old := r.state
	r.step()
	xorshifted := uint32((old>>18 ^ old) >> 27)
	rot := uint32(old >> 59)
	return xorshifted>>rot | xorshifted<<(-rot&31)
}

// Advance moves the stream delta steps (outputs) on, or back when delta is
// negative, in O(log |delta|) time: after Advance(d), Next returns what it
// would have returned after d calls.
func (r *Rand) Advance(delta int64) {
	// Brown's algorithm: compose the affine step x -> m*x + c with itself
	// by repeated squaring; the step counts wrap modulo 2^64, so a negative
	// delta is a jump of 2^64 - |delta| steps, which is the same thing.
	d := uint64(delta)
	curMult, curPlus := uint64(multiplier), r.inc
	accMult, accPlus := uint64(1), uint64(0)
	for d > 0 {
		if d&1 == 1 {
			accMult *= curMult
			accPlus = accPlus*curMult + curPlus
		}
		curPlus = (curMult + 1) * curPlus
		curMult *= curMult
		d >>= 1
	}
	r.state = accMult*r.state + accPlus
}
