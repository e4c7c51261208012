package rowid

import (
	"math/rand/v2"
	"testing"
)

// Published MurmurHash3_x64_128 vectors, seed 0, as (h1, h2). They come from
// the test files of several independent implementations that check
// themselves against the reference C++ code: the Go packages
// spaolacci/murmur3 and twmb/murmur3 ("hello" ... "lazy dog."), a Java and a
// Go port (the 15/16/17-byte digits, "test", "lazy dog"), the Dart murmur3
// package after vladimirgamalyan's gist (single bytes, "a" ... "abcdefghijklmnop",
// the 32-byte string), MurmurHash-Swift ("Hel" ... "Hello World! Hello Wor",
// "メロス") and mmh3 ("Winter is coming"). Together they cover every tail
// length from 0 to 15 and zero, one and two full blocks.
var murmurVectors = []struct {
	in     string
	h1, h2 uint64
}{
	{"", 0x0000000000000000, 0x0000000000000000},
	{"hello", 0xcbd8a7b341bd9b02, 0x5b1e906a48ae1d19},
	{"hello, world", 0x342fac623a5ebc8e, 0x4cdcbc079642414d},
	{"19 Jan 2038 at 3:14:07 AM", 0xb89e5988b737affc, 0x664fc2950231b2cb},
	{"The quick brown fox jumps over the lazy dog.", 0xcd99481f9ee902c9, 0x695da1a38987b6e7},
	{"The quick brown fox jumps over the lazy dog", 0xe34bbc7bbc071b6c, 0x7a433ca9c49a9347},
	{"test", 0xac7d28cc74bde19d, 0x9a128231f9bd4d82},
	{"123456789012345", 0x887001aea2afcfd6, 0x1ec326364f0801b3},
	{"1234567890123456", 0x4fbe5dc5c0e32cf8, 0xc0c8e96b60c322c1},
	{"12345678901234567", 0x748617968026b77e, 0x291e6386473f7103},
	{"\x00", 0x4610abe56eff5cb5, 0x51622daa78f83583},
	{"\x00\x00", 0x3044b81a706c5de8, 0x18f96bcc37e8a35b},
	{"\x01", 0x7ace5c908374fe16, 0x778867e4430e6785},
	{"a", 0x85555565f6597889, 0xe6b53a48510e895a},
	{"b", 0x7a98a957b1d3d1ee, 0xfa2e131e544e94e9},
	{"ab", 0x938b11ea16ed1b2e, 0xe65ea7019b52d4ad},
	{"abcd", 0xb87bb7d64656cd4f, 0xf2003e886073e875},
	{"abcdefg", 0xa6cd2f9fc09ee499, 0x1c3aa23ab155bbb6},
	{"abcdefgh", 0xcc8a0ab037ef8c02, 0x48890d60eb6940a1},
	{"abcdefghi", 0x0547c0cff13c7964, 0x79b53df5b741e033},
	{"abcdefghijklmno", 0x8abe2451890c2ffb, 0x6a548c2d9c962a61},
	{"abcdefghijklmnop", 0xc4ca3ca3224cb723, 0x4333d695b331eb1a},
	{"f02aa77dfa1b8523d1016610da11cbb9", 0xfb9f2c5169f89a6c, 0x9fd92dcd2af426d9},
	{"Hel", 0xd630daf64f42f363, 0x70b46eed8a7672de},
	{"Hello Worl", 0x401052776a6b73c9, 0xd449172d0fc6e27a},
	{"Hello World", 0x1a6326abc1a0c2db, 0x83e61fcf9fc0b427},
	{"Hello World! ", 0xf5712319ef57bd9e, 0x6d510360942a3da3},
	{"Hello World! H", 0xc56330f66d41c077, 0xf33a297397f62759},
	{"Hello World! Hello Wor", 0xdac49585f580f723, 0x1477794379a509a2},
	{"メロス", 0x1e7f1fc32ba9fa85, 0x4c5c8f469ccdc395},
	{"Winter is coming", 0x6c373b5d61dced95, 0xc549d8ea0c0bfb13},
}

func TestMurmurVectors(t *testing.T) {
	tails := make(map[int]bool)
	for _, v := range murmurVectors {
		want := ID{Lo: v.h1, Hi: v.h2}
		if got := FromString(v.in); got != want {
			t.Errorf("FromString(%q) = %#v, want %#v", v.in, got, want)
		}
		if got := sum128([]byte(v.in)); got != want {
			t.Errorf("sum128([]byte(%q)) = %#v, want %#v", v.in, got, want)
		}
		tails[len(v.in)%16] = true
	}
	if len(tails) != 16 {
		t.Errorf("vectors cover %d of the 16 tail lengths", len(tails))
	}
}

// The hash of a []byte, which the tests of absorb use, is that of the
// string of its bytes; distinct prefixes hash to distinct IDs.
func TestBytesHashEqualsFromString(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 200)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	seen := make(map[ID]int)
	for n := range len(buf) + 1 {
		b := buf[:n]
		id := sum128(b)
		if got := FromString(string(b)); got != id {
			t.Fatalf("len %d: FromString = %#v, sum128 of the bytes = %#v", n, got, id)
		}
		if m, ok := seen[id]; ok {
			t.Fatalf("prefixes of length %d and %d hash to %v", m, n, id)
		}
		seen[id] = n
	}
}

// The body of the hash and the ID operations are the same round: hashing k
// zero blocks from the zero state is k applications of Next, and absorbing
// the 16 bytes of b.Fork() is Combine.
func TestAbsorbIsNextAndCombine(t *testing.T) {
	zeros := make([]byte, 16*20)
	want := ID{}
	for k := range 21 {
		if got := absorb(ID{}, zeros[:16*k]); got != want {
			t.Fatalf("absorbing %d zero blocks = %#v, want Next^%d(0) = %#v", k, got, k, want)
		}
		want = want.Next()
	}
	ids := randomIDs(500)
	for i, a := range ids {
		b := ids[len(ids)-1-i]
		block := blockOf(b.Fork())
		if got, want := absorb(a, block[:]), a.Combine(b); got != want {
			t.Fatalf("absorb(%#v, fork block of %#v) = %#v, want Combine = %#v", a, b, got, want)
		}
	}
}
