package determinism_test

import (
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/rowid"
)

func enc[T any](v T) string { return hex.EncodeToString(determinism.AppendValue(nil, v)) }

func hexOf(s string) string { return hex.EncodeToString([]byte(s)) }

type encCase struct {
	name string
	got  string
	want string
}

func checkCases(t *testing.T, cases []encCase) {
	t.Helper()
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: encoding %s, want %s", c.name, c.got, c.want)
		}
	}
}

func TestEncodeScalars(t *testing.T) {
	type myInt int64
	checkCases(t, []encCase{
		{"false", enc(false), "00"},
		{"true", enc(true), "01"},
		{"int8", enc(int8(-2)), "fe"},
		{"uint8", enc(uint8(0xab)), "ab"},
		{"int16", enc(int16(-2)), "feff"},
		{"uint16", enc(uint16(0x1234)), "3412"},
		{"int32", enc(int32(-2)), "feffffff"},
		{"uint32", enc(uint32(0x01020304)), "04030201"},
		{"int64", enc(int64(1)), "0100000000000000"},
		{"uint64", enc(uint64(0x0102030405060708)), "0807060504030201"},
		{"int", enc(-1), "ffffffffffffffff"},
		{"uint", enc(uint(1)), "0100000000000000"},
		{"uintptr", enc(uintptr(2)), "0200000000000000"},
		{"defined int", enc(myInt(3)), "0300000000000000"},
		{"duration", enc(3 * time.Nanosecond), "0300000000000000"},
		{"float32", enc(float32(1)), "0000803f"},
		{"float64", enc(1.0), "000000000000f03f"},
		{"-0", enc(math.Copysign(0, -1)), "0000000000000080"},
		{"+0", enc(0.0), "0000000000000000"},
		{"NaN", enc(math.Float64frombits(0x7ff8000000000001)), "010000000000f87f"},
		{"complex64", enc(complex64(1 + 2i)), "0000803f00000040"},
		{"complex128", enc(1 + 2i), "000000000000f03f0000000000000040"},
	})
}

func TestEncodeStringsAndSlices(t *testing.T) {
	long := strings.Repeat("x", 200)
	checkCases(t, []encCase{
		{"empty string", enc(""), "00"},
		{"string", enc("hi"), "026869"},
		{"long string", enc(long), "c801" + strings.Repeat("78", 200)},
		{"bytes", enc([]byte("hi")), "026869"},
		{"nil bytes", enc([]byte(nil)), "00"},
		{"int16s", enc([]int16{1, -1}), "020100ffff"},
		{"float32s", enc([]float32{1, -2}), "020000803f000000c0"},
		{"bools", enc([]bool{true, false}), "020100"},
		{"nil slice", enc([]string(nil)), "00"},
		{"strings", enc([]string{"a", "", "bc"}), "03016100026263"},
		{"nested", enc([][]uint8{{1}, {}}), "02010100"},
		{"array", enc([2]uint8{1, 2}), "0102"},
		{"array of strings", enc([2]string{"a", "b"}), "01610162"},
		{"empty array", enc([0]func(){}), ""},
		{"ints", enc([]int{-1}), "01ffffffffffffffff"},
	})
}

type inner struct {
	X int16
	y string
}

type outer struct {
	inner
	A  int8
	_  int32
	B  int64
	P  *inner
	ID rowid.ID
}

type node struct {
	V    int8
	Next *node
}

func TestEncodeStructsAndPointers(t *testing.T) {
	five := int64(5)
	var nilPtr *int64
	o := outer{inner: inner{X: 1, y: "a"}, A: 2, B: 3, ID: rowid.ID{Lo: 4, Hi: 5}}
	checkCases(t, []encCase{
		{"nil pointer", enc(nilPtr), "00"},
		{"pointer", enc(&five), "010500000000000000"},
		{"pointer to pointer", enc(&nilPtr), "0100"},
		{"id", enc(rowid.ID{Lo: 1, Hi: 2}), "01000000000000000200000000000000"},
		{"padded struct", enc(struct {
			A int8
			B int64
		}{1, 2}), "010200000000000000"},
		{"raw struct", enc(struct{ A, B int32 }{1, 2}), "0100000002000000"},
		// Embedded, unexported, blank (skipped) and pointer fields, in order.
		{"struct", enc(o), "0100" + "0161" + "02" + "0300000000000000" + "00" +
			"0400000000000000" + "0500000000000000"},
		{"struct with pointer", enc(outer{P: &inner{X: 7}}), "0000" + "00" + "00" + "0000000000000000" +
			"01" + "0700" + "00" + "00000000000000000000000000000000"},
		{"list", enc(&node{1, &node{2, &node{3, nil}}}), "01" + "0101" + "0201" + "0300"},
		{"empty struct", enc(struct{}{}), ""},
	})
}

func TestEncodeTime(t *testing.T) {
	utc := time.Date(2024, 5, 6, 7, 8, 9, 10, time.UTC)
	paris := utc.In(time.FixedZone("CEST", 2*3600))
	want := enc(utc.Unix()) + "0a000000"
	checkCases(t, []encCase{
		{"epoch", enc(time.Unix(1, 5)), "0100000000000000" + "05000000"},
		{"before epoch", enc(time.Unix(-1, 999999999)), "ffffffffffffffff" + "ffc99a3b"},
		{"utc", enc(utc), want},
		{"other location", enc(paris), want},
		// time.Time{} is outside the range of UnixNano but encodes exactly.
		{"zero", enc(time.Time{}), enc(time.Time{}.Unix()) + "00000000"},
	})
	if enc(time.Time{}) == enc(time.Unix(0, 0)) {
		t.Error("the zero time encodes like the Unix epoch")
	}
	now := time.Now() // has a monotonic reading
	if enc(now) != enc(now.Round(0)) {
		t.Error("the monotonic clock reading changes the encoding")
	}
}

func TestEncodeMaps(t *testing.T) {
	checkCases(t, []encCase{
		{"nil map", enc(map[string]int8(nil)), "00"},
		{"empty map", enc(map[string]int8{}), "00"},
		// Sorted by key encoding: "b" (0162) sorts after "a" (0161), and
		// the shorter key "z" (017a) before "aa" (026161).
		{"map", enc(map[string]int8{"b": 2, "a": 1}), "02" + "016101" + "016202"},
		{"by encoding", enc(map[string]int8{"aa": 1, "z": 2}), "02" + "017a02" + "02616101"},
		{"int keys", enc(map[int16]bool{-1: true, 1: false}), "02" + "010000" + "ffff01"},
	})
	nan := math.NaN()
	m := map[float64]int8{nan: 2, 1: 0}
	m[nan] = 1 // a second NaN key
	want := "03" + "000000000000f03f00" + "010000000000f87f01" + "010000000000f87f02"
	if got := enc(m); got != want {
		t.Errorf("NaN keys: encoding %s, want %s", got, want)
	}
}

// TestEncodeMapOrder builds maps with the same entries in different
// insertion orders and sizes; Go iterates each in a different order.
func TestEncodeMapOrder(t *testing.T) {
	const n = 500
	ref := map[string]int{}
	for i := range n {
		ref[fmt.Sprint("k", i)] = i
	}
	want := enc(ref)
	for trial := range 20 {
		m := make(map[string]int, trial)
		for i := range n {
			j := (i*7919 + trial*31) % n // a permutation: 7919 is prime to 500
			m[fmt.Sprint("k", j)] = j
		}
		if got := enc(m); got != want {
			t.Fatalf("trial %d: the encoding depends on insertion order", trial)
		}
	}
	nested := map[string]map[int8]string{"x": {1: "a", 2: "b"}, "y": {}}
	for range 20 {
		if enc(nested) != enc(map[string]map[int8]string{"y": nil, "x": {2: "b", 1: "a"}}) {
			t.Fatal("nested maps: the encoding depends on iteration order")
		}
	}
}

func TestEncodeInterfaces(t *testing.T) {
	type local struct{ A int8 }
	checkCases(t, []encCase{
		{"nil", enc[any](nil), "00"},
		{"int64", enc[any](int64(5)), "01" + "05" + hexOf("int64") + "0500000000000000"},
		{"duration", enc[any](time.Duration(5)), "01" + "0d" + hexOf("time.Duration") + "0500000000000000"},
		{"bytes", enc[any]([]byte("x")), "01" + "07" + hexOf("[]uint8") + "0178"},
		{"string", enc[any]("x"), "01" + "06" + hexOf("string") + "0178"},
		{"defined", enc[any](local{1}), "01" + "31" + hexOf("github.com/rowflow/rowflow/determinism_test.local") + "01"},
		{"slice", enc([]any{nil, true}), "02" + "00" + "01" + "04" + hexOf("bool") + "01"},
		{"error", enc[error](nil), "00"},
	})
	if enc[any](int64(5)) == enc[any](time.Duration(5)) {
		t.Error("an interface does not tell int64 from time.Duration")
	}
}

// hooked encodes itself with a value receiver; its func field has no
// encoding of its own.
type hooked struct {
	s string
	f func()
}

func (h hooked) AppendDigest(b []byte) []byte { return append(b, strings.ToUpper(h.s)...) }

// ptrHooked encodes itself with a pointer receiver.
type ptrHooked struct{ n int }

func (h *ptrHooked) AppendDigest(b []byte) []byte { return append(b, byte(h.n), byte(h.n)) }

func TestEncodeHook(t *testing.T) {
	if err := determinism.Encodable[hooked](); err != nil {
		t.Fatalf("Encodable[hooked]: %v", err)
	}
	checkCases(t, []encCase{
		{"value receiver", enc(hooked{s: "ab", f: func() {}}), "02" + "4142"},
		{"case folded by the hook", enc(hooked{s: "AB"}), "024142"},
		{"empty", enc(hooked{}), "00"},
		{"pointer receiver", enc(ptrHooked{3}), "02" + "0303"},
		{"pointer to hooked", enc(&ptrHooked{3}), "01" + "020303"},
		{"nil pointer to hooked", enc((*ptrHooked)(nil)), "00"},
		{"in a slice", enc([]hooked{{s: "a"}, {s: "b"}}), "02" + "0141" + "0142"},
		{"in a struct", enc(struct {
			A int8
			H ptrHooked
		}{1, ptrHooked{2}}), "01" + "020202"},
		{"in an interface", enc[any](hooked{s: "a"}), "01" + "32" +
			hexOf("github.com/rowflow/rowflow/determinism_test.hooked") + "0141"},
	})
}

func TestEncodable(t *testing.T) {
	for _, c := range []struct {
		name, err string
		got       error
	}{
		{"func field", "v.F has type func()", determinism.Encodable[struct{ F func() }]()},
		{"chan in map", "v[k] has type chan int", determinism.Encodable[map[string]chan int]()},
		{"map key", "(a key of v) has type chan int", determinism.Encodable[map[chan int]bool]()},
		{"deep", "(*(*v).X[i]) has type func()", determinism.Encodable[*struct{ X []*func() }]()},
		{"unsafe", "v[i] has type unsafe.Pointer", determinism.Encodable[[3]unsafe.Pointer]()},
	} {
		if c.got == nil || !strings.Contains(c.got.Error(), c.err) || !strings.HasPrefix(c.got.Error(), "determinism: ") {
			t.Errorf("%s: Encodable = %v, want an error containing %q", c.name, c.got, c.err)
		}
	}
	for name, err := range map[string]error{
		"any":            determinism.Encodable[any](),
		"blank func":     determinism.Encodable[struct{ _ func() }](),
		"empty array":    determinism.Encodable[[0]func()](),
		"recursive":      determinism.Encodable[node](),
		"time":           determinism.Encodable[[]time.Time](),
		"map of structs": determinism.Encodable[map[rowid.ID]outer](),
	} {
		if err != nil {
			t.Errorf("%s: Encodable = %v, want nil", name, err)
		}
	}
}

func TestEncodePanics(t *testing.T) {
	type loop struct{ Next *loop }
	l := &loop{}
	l.Next = l
	s := []any{nil}
	s[0] = s
	for _, c := range []struct {
		name, msg string
		f         func()
	}{
		{"unencodable type", "v.F has type func()", func() { determinism.AppendValue(nil, struct{ F func() }{}) }},
		{"func in interface", "func()", func() { determinism.AppendValue(nil, []any{1, func() {}}) }},
		{"pointer cycle", "levels deep", func() { determinism.AppendValue(nil, l) }},
		{"slice cycle", "levels deep", func() { determinism.AppendValue(nil, s) }},
	} {
		func() {
			defer func() {
				r := recover()
				err, ok := r.(error)
				if !ok || !strings.Contains(err.Error(), c.msg) {
					t.Errorf("%s: panic %v, want an error containing %q", c.name, r, c.msg)
				}
			}()
			c.f()
		}()
	}
}

// TestEncodeConcurrent builds the codecs of a recursive type from many
// goroutines at once.
func TestEncodeConcurrent(t *testing.T) {
	type tree struct {
		V    string
		Kids []*tree
		Tags map[string]*tree
	}
	v := tree{V: "root", Kids: []*tree{{V: "a"}, nil}, Tags: map[string]*tree{"x": {V: "b"}}}
	const n = 8
	got := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i] = enc(v) })
	}
	wg.Wait()
	want := "04726f6f74" + "02" + "01" + "0161" + "00" + "00" + "00" + "01" + "0178" + "01" + "0162" + "00" + "00"
	for i, g := range got {
		if g != want {
			t.Errorf("goroutine %d: encoding %s, want %s", i, g, want)
		}
	}
}
