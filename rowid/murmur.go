package rowid

import "math/bits"

// FromString returns the MurmurHash3 x64_128 hash of s (seed 0, finalised)
// as an ID: h1 in Lo, h2 in Hi. It names a file, a dataset, an input or an
// operator, for use with [ID.Combine]; see "Naming files, inputs and
// operators" in the package documentation. FromString("") is the zero ID.
// It does not allocate. The ID of a name held in a []byte b is
// FromString(string(b)).
func FromString(s string) ID { return sum128(s) }

// byteString is satisfied by the two types the hash and parse read.
type byteString interface{ ~string | ~[]byte }

// sum128 is MurmurHash3_x64_128 with seed 0.
func sum128[T byteString](data T) ID {
	n := len(data)
	h := absorb(ID{}, data[:n&^15])
	h = absorbTail(h, data[n&^15:])
	return finalize(h, uint64(n))
}

// absorb runs the Murmur3 body over data, whose length is a multiple of 16.
func absorb[T byteString](h ID, data T) ID {
	for len(data) >= 16 {
		k1, k2 := le64(data[:8]), le64(data[8:16])
		h = Combiner{k1: mixK1(k1), k2: mixK2(k2)}.Combine(h)
		data = data[16:]
	}
	return h
}

// absorbTail mixes in the last len(tail) < 16 bytes, which fill k1 and then
// k2 from their low-order bytes up. A zero word mixes to zero, so words the
// tail does not reach leave h unchanged.
func absorbTail[T byteString](h ID, tail T) ID {
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 0; i-- {
		if i >= 8 {
			k2 = k2<<8 | uint64(tail[i])
		} else {
			k1 = k1<<8 | uint64(tail[i])
		}
	}
	h.Hi ^= mixK2(k2)
	h.Lo ^= mixK1(k1)
	return h
}

// finalize applies the Murmur3 finalisation for an input of n bytes.
func finalize(h ID, n uint64) ID {
	h1, h2 := h.Lo^n, h.Hi^n
	h1 += h2
	h2 += h1
	h1, h2 = fmix64(h1), fmix64(h2)
	h1 += h2
	h2 += h1
	return ID{Lo: h1, Hi: h2}
}

// mixK1 and mixK2 scramble the two words of a block before they are xored
// into h1 and h2.
func mixK1(k uint64) uint64 { return bits.RotateLeft64(k*c1, 31) * c2 }
func mixK2(k uint64) uint64 { return bits.RotateLeft64(k*c2, 33) * c1 }

// fmix64 is the Murmur3 64-bit finaliser.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// le64 reads the first 8 bytes of b as a little-endian word.
func le64[T byteString](b T) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
