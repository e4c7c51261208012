// Package feistel gives keyed bijections of [0, n): a small balanced
// Feistel network on the smallest even number of bits that covers n, with
// cycle walking to stay inside [0, n). The image of any index is computed
// directly, in O(1) memory, which is what a shuffled epoch over a
// random-access input needs: position i of the epoch reads row Perm.At(i).
package feistel

import (
	"math/bits"

	"github.com/rowflow/rowflow/internal/pcg"
)

// rounds is the number of Feistel rounds: four make a pseudorandom
// permutation (Luby–Rackoff); six leave no visible structure in small
// domains.
const rounds = 6

// Perm is a keyed permutation of [0, n). The zero Perm is the permutation
// of the empty set.
type Perm struct {
	n    uint64
	half uint // bits of each half of the network's domain
	mask uint64
	keys [rounds]uint64
}

// New returns the permutation of [0, n) that key selects. Different keys
// give permutations that are, for practical purposes, independent.
func New(n, key uint64) Perm {
	p := Perm{n: n}
	if n < 2 {
		return p
	}
	p.half = uint(max(bits.Len64(n-1)+1, 2)) / 2
	p.mask = 1<<p.half - 1
	k := pcg.Mix64(key ^ 0x6a09e667f3bcc909)
	for i := range p.keys {
		k = pcg.Mix64(k + 0x9e3779b97f4a7c15)
		p.keys[i] = k
	}
	return p
}

// Len returns n.
func (p Perm) Len() uint64 { return p.n }

// At returns the image of i, which must be in [0, n). Cycle walking
// applies the network until the value falls in [0, n): the domain is less
// than 4n, so that takes fewer than four rounds on average.
func (p Perm) At(i uint64) uint64 {
	if p.n < 2 {
		return i
	}
	x := p.encrypt(i)
	for x >= p.n {
		x = p.encrypt(x)
	}
	return x
}

// encrypt is one pass of the network over [0, 2^(2·half)).
func (p Perm) encrypt(x uint64) uint64 {
	l, r := x>>p.half, x&p.mask
	shift := 64 - p.half
	for _, k := range p.keys {
		// The round function: a multiply–xorshift–multiply hash of the
		// right half and the round key, its top bits.
		h := (r ^ k) * 0x9e3779b97f4a7c15
		h = (h ^ h>>29) * 0xbf58476d1ce4e5b9
		l, r = r, l^(h>>shift)
	}
	return l<<p.half | r
}
