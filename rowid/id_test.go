package rowid

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// The reference functions below re-derive the operations from the formulas
// in the package documentation, one statement per step, with their own copies of the
// constants. They share no code with the package.

const (
	refC1 uint64 = 0x87c37b91114253d5
	refC2 uint64 = 0x4cf5ad432745937f
)

func refRotl(x uint64, r uint) uint64 { return x<<r | x>>(64-r) }

// refNext: h1 = rotl(h1,27) + h2; h1 = h1*5 + 0x52dce729;
// h2 = rotl(h2,31) + h1; h2 = h2*5 + 0x38495ab5.
func refNext(lo, hi uint64) (uint64, uint64) {
	h1, h2 := lo, hi
	h1 = refRotl(h1, 27)
	h1 = h1 + h2
	h1 = h1*5 + 0x52dce729
	h2 = refRotl(h2, 31)
	h2 = h2 + h1
	h2 = h2*5 + 0x38495ab5
	return h1, h2
}

// refFork: Next, then h1 ^= rotl(c1,31)*c2.
func refFork(lo, hi uint64) (uint64, uint64) {
	h1, h2 := refNext(lo, hi)
	m := refRotl(refC1, 31)
	m = m * refC2
	h1 = h1 ^ m
	return h1, h2
}

// refCombine: f = b.Fork(); k1 = rotl(f.Lo*c1, 31)*c2; h1 ^= k1; the h1
// step; k2 = rotl(f.Hi*c2, 33)*c1; h2 ^= k2; the h2 step.
func refCombine(aLo, aHi, bLo, bHi uint64) (uint64, uint64) {
	k1, k2 := refFork(bLo, bHi)
	h1, h2 := aLo, aHi
	k1 = k1 * refC1
	k1 = refRotl(k1, 31)
	k1 = k1 * refC2
	h1 = h1 ^ k1
	h1 = refRotl(h1, 27)
	h1 = h1 + h2
	h1 = h1*5 + 0x52dce729
	k2 = k2 * refC2
	k2 = refRotl(k2, 33)
	k2 = k2 * refC1
	h2 = h2 ^ k2
	h2 = refRotl(h2, 31)
	h2 = h2 + h1
	h2 = h2*5 + 0x38495ab5
	return h1, h2
}

// refBlock is one round of the MurmurHash3_x64_128 body over a 16-byte
// block, read as two little-endian words, as the reference C code does it.
func refBlock(h1, h2 uint64, block [16]byte) (uint64, uint64) {
	k1 := binary.LittleEndian.Uint64(block[0:8])
	k2 := binary.LittleEndian.Uint64(block[8:16])

	k1 *= refC1
	k1 = refRotl(k1, 31)
	k1 *= refC2
	h1 ^= k1

	h1 = refRotl(h1, 27)
	h1 += h2
	h1 = h1*5 + 0x52dce729

	k2 *= refC2
	k2 = refRotl(k2, 33)
	k2 *= refC1
	h2 ^= k2

	h2 = refRotl(h2, 31)
	h2 += h1
	h2 = h2*5 + 0x38495ab5
	return h1, h2
}

func blockOf(id ID) [16]byte {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[0:8], id.Lo)
	binary.LittleEndian.PutUint64(b[8:16], id.Hi)
	return b
}

// randomIDs returns n IDs from a fixed seed, with a few edge values first.
func randomIDs(n int) []ID {
	r := rand.New(rand.NewPCG(1, 2))
	ids := []ID{{}, {Lo: 1}, {Hi: 1}, {Lo: ^uint64(0), Hi: ^uint64(0)}, {Lo: 1 << 63, Hi: 1 << 63}}
	for len(ids) < n {
		ids = append(ids, ID{Lo: r.Uint64(), Hi: r.Uint64()})
	}
	return ids[:n]
}

// Literal values, computed once with an independent Python transcription of
// the formulas in the package documentation (and of MurmurHash3_x64_128 for FromString,
// checked first against the published vectors in murmur_test.go) and pasted
// here.
var literalVectors = []struct {
	name string
	got  func() ID
	want ID
}{
	{"Next(0)", func() ID { return ID{}.Next() },
		ID{Lo: 0x0000000052dce729, Hi: 0x00000001d699de82}},
	{"Next(Next(0))", func() ID { return ID{}.Next().Next() },
		ID{Lo: 0x0cf28427ebde3fb3, Hi: 0xd93d410cd3a09934}},
	{"Next({1,2})", func() ID { return ID{Lo: 1, Hi: 2}.Next() },
		ID{Lo: 0x000000007adce733, Hi: 0x000000079e99deb4}},
	{"Fork(0)", func() ID { return ID{}.Fork() },
		ID{Lo: 0x34e09d0b39021911, Hi: 0x00000001d699de82}},
	{"Fork({1,2})", func() ID { return ID{Lo: 1, Hi: 2}.Fork() },
		ID{Lo: 0x34e09d0b1102190b, Hi: 0x000000079e99deb4}},
	{"Fork(0).Next().Next()", func() ID { return ID{}.Fork().Next().Next() },
		ID{Lo: 0xf958c5fcd9b19790, Hi: 0x77140f97615b189e}},
	{"Ordinal(0).Combine(0)", func() ID { return Ordinal(0).Combine(ID{}) },
		ID{Lo: 0xd1c998c375881dc3, Hi: 0x0caaf0300e06760f}},
	{"{1,2}.Combine({3,4})", func() ID { return ID{Lo: 1, Hi: 2}.Combine(ID{Lo: 3, Hi: 4}) },
		ID{Lo: 0xcf76cc3e67f97a6c, Hi: 0xd6c370eb9bb089c0}},
	{"Ordinal(0).Combine(file)", func() ID { return Ordinal(0).Combine(FromString("part-0000.csv")) },
		ID{Lo: 0xb0ac607b8b7593ce, Hi: 0x7f1fb52ab6c4c81f}},
	{"Ordinal(1).Combine(file)", func() ID { return Ordinal(1).Combine(FromString("part-0000.csv")) },
		ID{Lo: 0xb0ac607b637593ce, Hi: 0x7f1fb529eec4c81f}},
	{"Ordinal(2).Combine(file)", func() ID { return Ordinal(2).Combine(FromString("part-0000.csv")) },
		ID{Lo: 0xb0ac607bdb7593ce, Hi: 0x7f1fb52c46c4c81f}},
	{"Ordinal(7).Combine(file).Fork().Next()", func() ID { return Ordinal(7).Combine(FromString("part-0000.csv")).Fork().Next() },
		ID{Lo: 0x2a2938dafb8cfa2c, Hi: 0xb9f07cb8de9780e8}},
}

func TestLiteralVectors(t *testing.T) {
	for _, v := range literalVectors {
		if got := v.got(); got != v.want {
			t.Errorf("%s = %#v, want %#v", v.name, got, v.want)
		}
	}
}

func TestOrdinal(t *testing.T) {
	for _, i := range []uint64{0, 1, 2, 1 << 40, ^uint64(0)} {
		if got, want := Ordinal(i), (ID{Lo: i, Hi: 0}); got != want {
			t.Errorf("Ordinal(%d) = %#v, want %#v", i, got, want)
		}
	}
}

func TestNextMatchesFormula(t *testing.T) {
	for _, id := range randomIDs(10000) {
		lo, hi := refNext(id.Lo, id.Hi)
		if got, want := id.Next(), (ID{Lo: lo, Hi: hi}); got != want {
			t.Fatalf("%#v.Next() = %#v, want %#v", id, got, want)
		}
	}
}

// Next is, exactly, one body round of MurmurHash3_x64_128 over a block of
// 16 zero bytes.
func TestNextIsZeroBlock(t *testing.T) {
	var zero [16]byte
	for _, id := range randomIDs(10000) {
		lo, hi := refBlock(id.Lo, id.Hi, zero)
		if got, want := id.Next(), (ID{Lo: lo, Hi: hi}); got != want {
			t.Fatalf("%#v.Next() = %#v, want the zero-block round %#v", id, got, want)
		}
	}
}

func TestForkMatchesFormula(t *testing.T) {
	for _, id := range randomIDs(10000) {
		lo, hi := refFork(id.Lo, id.Hi)
		if got, want := id.Fork(), (ID{Lo: lo, Hi: hi}); got != want {
			t.Fatalf("%#v.Fork() = %#v, want %#v", id, got, want)
		}
		if id.Fork() == id.Next() {
			t.Fatalf("%#v.Fork() == Next()", id)
		}
	}
}

// Fork mixes its word in after the round (as ML.NET does), so it differs
// from a real Murmur3 round over the block k1 = 1, k2 = 0. This pins the
// ML.NET behaviour.
func TestForkIsNotTheK1Block(t *testing.T) {
	block := [16]byte{0: 1}
	for _, id := range randomIDs(100) {
		lo, hi := refBlock(id.Lo, id.Hi, block)
		if id.Fork() == (ID{Lo: lo, Hi: hi}) {
			t.Fatalf("%#v.Fork() equals the k1=1 block round; want the ML.NET form", id)
		}
		// 0x34e09d0b6bdefe38 is rotl(c1,31)*c2, from the Python transcription.
		next := id.Next()
		if got, want := id.Fork(), (ID{Lo: next.Lo ^ 0x34e09d0b6bdefe38, Hi: next.Hi}); got != want {
			t.Fatalf("%#v.Fork() = %#v, want Next() with Lo ^ rotl(c1,31)*c2 = %#v", id, got, want)
		}
	}
}

func TestCombineMatchesFormula(t *testing.T) {
	ids := randomIDs(2000)
	for i, a := range ids {
		b := ids[(i*7+3)%len(ids)]
		lo, hi := refCombine(a.Lo, a.Hi, b.Lo, b.Hi)
		if got, want := a.Combine(b), (ID{Lo: lo, Hi: hi}); got != want {
			t.Fatalf("%#v.Combine(%#v) = %#v, want %#v", a, b, got, want)
		}
	}
}

// a.Combine(b) is a Murmur3 body round of a's state over the 16 bytes of
// b.Fork(), Lo first, little-endian.
func TestCombineIsForkBlock(t *testing.T) {
	ids := randomIDs(2000)
	for i, a := range ids {
		b := ids[(i*13+1)%len(ids)]
		lo, hi := refBlock(a.Lo, a.Hi, blockOf(b.Fork()))
		if got, want := a.Combine(b), (ID{Lo: lo, Hi: hi}); got != want {
			t.Fatalf("%#v.Combine(%#v) = %#v, want %#v", a, b, got, want)
		}
	}
}

func TestCombineNotCommutative(t *testing.T) {
	a, b := ID{Lo: 1, Hi: 2}, ID{Lo: 3, Hi: 4}
	if a.Combine(b) == b.Combine(a) {
		t.Fatalf("a.Combine(b) == b.Combine(a) == %v", a.Combine(b))
	}
}

func TestCombinerEqualsCombine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		a := ID{Lo: r.Uint64(), Hi: r.Uint64()}
		b := ID{Lo: r.Uint64(), Hi: r.Uint64()}
		if got, want := NewCombiner(b).Combine(a), a.Combine(b); got != want {
			t.Fatalf("NewCombiner(%#v).Combine(%#v) = %#v, want %#v", b, a, got, want)
		}
	}
	// One Combiner used for many IDs, as a source uses it.
	file := FromString("data/part-0001.parquet")
	c := NewCombiner(file)
	for i := range uint64(10000) {
		if got, want := c.Combine(Ordinal(i)), Ordinal(i).Combine(file); got != want {
			t.Fatalf("Combiner.Combine(Ordinal(%d)) = %#v, want %#v", i, got, want)
		}
	}
}

// Next, Fork and Combine (for a fixed second argument) are bijections: a
// round can be undone, recovering its input. This is what keeps distinct
// ordinals in one scope, and the k-th outputs of distinct parents, distinct.
func TestOperationsAreInvertible(t *testing.T) {
	inv5 := uint64(0xcccccccccccccccd)
	if 5*inv5 != 1 { // mod 2^64
		t.Fatal("bad inverse of 5")
	}
	// undoRound inverts a round whose (already mixed) block words are k1, k2.
	undoRound := func(id ID, k1, k2 uint64) ID {
		h1, h2 := id.Lo, id.Hi
		h2 = refRotl((h2-0x38495ab5)*inv5-h1, 64-31) ^ k2
		h1 = refRotl((h1-0x52dce729)*inv5-h2, 64-27) ^ k1
		return ID{Lo: h1, Hi: h2}
	}
	const forkMix = 0x34e09d0b6bdefe38 // rotl(c1,31)*c2
	ids := randomIDs(1000)
	for i, id := range ids {
		if got := undoRound(id.Next(), 0, 0); got != id {
			t.Fatalf("undoing %#v.Next() gives %#v", id, got)
		}
		f := id.Fork()
		f.Lo ^= forkMix
		if got := undoRound(f, 0, 0); got != id {
			t.Fatalf("undoing %#v.Fork() gives %#v", id, got)
		}
		b := ids[(i+1)%len(ids)]
		bf := b.Fork()
		k1 := refRotl(bf.Lo*refC1, 31) * refC2
		k2 := refRotl(bf.Hi*refC2, 33) * refC1
		if got := undoRound(id.Combine(b), k1, k2); got != id {
			t.Fatalf("undoing %#v.Combine(%#v) gives %#v", id, b, got)
		}
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b ID
		want int
	}{
		{ID{}, ID{}, 0},
		{ID{Lo: 1}, ID{Lo: 1}, 0},
		{ID{Lo: 1}, ID{Lo: 2}, -1},
		{ID{Lo: 2}, ID{Lo: 1}, 1},
		{ID{Lo: ^uint64(0)}, ID{Hi: 1}, -1}, // Hi decides first
		{ID{Hi: 1}, ID{Lo: ^uint64(0)}, 1},
		{ID{Lo: 5, Hi: 7}, ID{Lo: 4, Hi: 7}, 1},
	}
	for _, tt := range tests {
		if got := tt.a.Compare(tt.b); got != tt.want {
			t.Errorf("%#v.Compare(%#v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// Sorting with ID.Compare agrees with sorting the text forms.
func TestSortMatchesText(t *testing.T) {
	ids := randomIDs(5000)
	for i := range 500 { // share some Hi words so that Lo decides
		ids[i].Hi = uint64(i % 3)
	}
	slices.SortFunc(ids, ID.Compare)
	for i := 1; i < len(ids); i++ {
		if ids[i-1].String() > ids[i].String() {
			t.Fatalf("sorted %v before %v", ids[i-1], ids[i])
		}
	}
}

func TestIsZero(t *testing.T) {
	if !(ID{}).IsZero() || !Ordinal(0).IsZero() || !FromString("").IsZero() {
		t.Error("zero ID not IsZero")
	}
	for _, id := range []ID{{Lo: 1}, {Hi: 1}, ID{}.Next()} {
		if id.IsZero() {
			t.Errorf("%#v.IsZero() = true", id)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	id, other := ID{Lo: 1, Hi: 2}, ID{Lo: 3, Hi: 4}
	c := NewCombiner(other)
	name := "data/part-0000.parquet"
	buf := make([]byte, 0, 64)
	text := []byte(id.String())
	var sink ID
	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"Next", func() { sink = id.Next() }},
		{"Fork", func() { sink = id.Fork() }},
		{"Combine", func() { sink = id.Combine(other) }},
		{"Combiner.Combine", func() { sink = c.Combine(id) }},
		{"FromString", func() { sink = FromString(name) }},
		{"AppendText", func() { buf, _ = id.AppendText(buf[:0]) }},
		{"UnmarshalText", func() { _ = sink.UnmarshalText(text) }},
	} {
		if n := testing.AllocsPerRun(100, tt.f); n != 0 {
			t.Errorf("%s allocates %v times, want 0", tt.name, n)
		}
	}
	_ = sink
}
