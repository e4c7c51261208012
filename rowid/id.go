package rowid

import (
	"cmp"
	"math/bits"
)

// Murmur3-128 constants.
const (
	c1 = 0x87c37b91114253d5
	c2 = 0x4cf5ad432745937f
)

// forkMix is rotl(c1, 31) * c2, the mixed form of the block word k1 = 1,
// which Fork xors into h1 after a zero-block round.
var forkMix = bits.RotateLeft64(c1, 31) * c2

// ID is a 128-bit row ID: an unmixed Murmur3-128 hash state, Lo being h1 and
// Hi being h2. The zero value is a valid ID. IDs are comparable with == and
// can be used as map keys.
type ID struct {
	Lo, Hi uint64
}

// IsZero reports whether id is the zero ID {Lo: 0, Hi: 0}.
func (id ID) IsZero() bool { return id == ID{} }

// Ordinal returns the ID {Lo: i, Hi: 0}, the ID of the i-th element of an
// enumeration.
func Ordinal(i uint64) ID { return ID{Lo: i} }

// Next returns the ID that follows id in a sequence: the state after hashing
// a block of 16 zero bytes.
func (id ID) Next() ID {
	h1, h2 := id.Lo, id.Hi
	h1 = bits.RotateLeft64(h1, 27) + h2
	h1 = h1*5 + 0x52dce729
	h2 = bits.RotateLeft64(h2, 31) + h1
	h2 = h2*5 + 0x38495ab5
	return ID{Lo: h1, Hi: h2}
}

// Fork returns an ID that starts a new sequence derived from id, distinct
// from id.Next(): Next followed by h1 ^= rotl(c1, 31)*c2, c1 and c2 being
// the Murmur3 constants; rotl(c1, 31)*c2 is the mixed form of the block
// word k1 = 1. As in ML.NET, the word is xored in after the round, not
// before it as a Murmur3 block would be, so Fork is not the state after
// hashing a real block.
func (id ID) Fork() ID {
	n := id.Next()
	n.Lo ^= forkMix
	return n
}

// Combine returns id with the fork of other absorbed into it, as a
// Murmur3-128 round over the block (other.Fork().Lo, other.Fork().Hi).
// It is not commutative.
func (id ID) Combine(other ID) ID {
	return NewCombiner(other).Combine(id)
}

// Combiner combines many IDs with one fixed ID faster than [ID.Combine]:
// NewCombiner(b).Combine(a) == a.Combine(b). The zero value is not useful.
type Combiner struct {
	k1, k2 uint64
}

// NewCombiner precomputes the block that [ID.Combine] absorbs for other.
func NewCombiner(other ID) Combiner {
	f := other.Fork()
	return Combiner{k1: mixK1(f.Lo), k2: mixK2(f.Hi)}
}

// Combine returns a.Combine(b), b being the ID the Combiner was made for.
func (c Combiner) Combine(a ID) ID {
	h1, h2 := a.Lo, a.Hi
	h1 ^= c.k1
	h1 = bits.RotateLeft64(h1, 27) + h2
	h1 = h1*5 + 0x52dce729
	h2 ^= c.k2
	h2 = bits.RotateLeft64(h2, 31) + h1
	h2 = h2*5 + 0x38495ab5
	return ID{Lo: h1, Hi: h2}
}

// Compare returns -1, 0 or +1 as id sorts before, equal to or after other:
// by Hi, then by Lo, the order of the text form. Its signature suits
// [slices.SortFunc]: slices.SortFunc(ids, ID.Compare).
func (id ID) Compare(other ID) int {
	return cmp.Or(cmp.Compare(id.Hi, other.Hi), cmp.Compare(id.Lo, other.Lo))
}
