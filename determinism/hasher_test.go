package determinism_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

func idOf(i uint64) rowid.ID { return rowid.Ordinal(i).Combine(rowid.FromString("test")) }

type goldenRow struct {
	N int64
	S string
	F float64
	T []uint16
	M map[string]bool
}

func goldenRows() []goldenRow {
	return []goldenRow{
		{N: 1, S: "one", F: 0.5, T: []uint16{1}, M: map[string]bool{"a": true}},
		{N: -2, S: "", F: -0.25, T: nil, M: nil},
		{N: 3, S: "three", F: 1e300, T: []uint16{3, 3, 3}, M: map[string]bool{"x": false, "y": true, "z": true}},
	}
}

func sumOf[T any](ids []rowid.ID, vals []T) determinism.Sum {
	h := determinism.NewHasher[T]()
	for i, v := range vals {
		if err := h.Add(ids[i], v); err != nil {
			panic(err) // the tests' types all have an encoding
		}
	}
	return h.Sum()
}

func ids(n int) []rowid.ID {
	out := make([]rowid.ID, n)
	for i := range out {
		out[i] = idOf(uint64(i))
	}
	return out
}

// TestDigestStable pins the digests of fixed streams. The expected values
// were computed once with this encoding (v1); a change here breaks every
// recorded digest and needs a new version of the encoding.
func TestDigestStable(t *testing.T) {
	for _, c := range []struct {
		name  string
		sum   determinism.Sum
		want  string
		count int64
	}{
		{"empty", sumOf[int64](nil, nil), "2aabdacf238e68a23793232aac2ea56a0182eb9a6c4df4f4f04ead04d1df22ea", 0},
		{"int64", sumOf(ids(4), []int64{10, 20, 30, 40}), "3acba5ff33fa26e8c5741da68dbcefbfc164b81cd74bb075bd7ec898234fde11", 4},
		{"rows", sumOf(ids(3), goldenRows()), "cbf3a7e4dec18e9238f9cc35da0c0ed7c3533bbedaa9e5a8690c9bdf8f6c896f", 3},
	} {
		if got := c.sum.String(); got != c.want || c.sum.Count != c.count {
			t.Errorf("%s: digest %s (%d items), want %s (%d items)", c.name, got, c.sum.Count, c.want, c.count)
		}
	}
}

// TestDigestSpec computes the digest of a stream of int64 from the
// documented encoding, by hand, and compares.
func TestDigestSpec(t *testing.T) {
	vals := []int64{10, -20, 1 << 40}
	buf := []byte("rowflow digest v1\n")
	for i, v := range vals {
		id := idOf(uint64(i))
		buf = binary.LittleEndian.AppendUint64(buf, id.Lo)
		buf = binary.LittleEndian.AppendUint64(buf, id.Hi)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
	}
	want := determinism.Sum{Hash: sha256.Sum256(buf), Count: 3}
	if got := sumOf(ids(3), vals); got != want {
		t.Errorf("digest %v, want %v from the documented encoding", got, want)
	}
	empty := determinism.Sum{Hash: sha256.Sum256([]byte("rowflow digest v1\n"))}
	if got := sumOf[string](nil, nil); got != empty {
		t.Errorf("empty stream: digest %v, want %v", got, empty)
	}
}

func TestDigestSensitivity(t *testing.T) {
	vals := []string{"a", "b", "c", "d"}
	base := sumOf(ids(4), vals)
	swapped := []string{"a", "c", "b", "d"}
	swappedIDs := ids(4)
	swappedIDs[1], swappedIDs[2] = swappedIDs[2], swappedIDs[1]
	otherID := ids(4)
	otherID[3] = idOf(99)
	for name, s := range map[string]determinism.Sum{
		"values swapped":         sumOf(ids(4), swapped),
		"items swapped":          sumOf(swappedIDs, swapped),
		"IDs swapped":            sumOf(swappedIDs, vals),
		"one ID changed":         sumOf(otherID, vals),
		"one value changed":      sumOf(ids(4), []string{"a", "b", "c", "e"}),
		"item dropped":           sumOf(ids(3), vals[:3]),
		"values merged":          sumOf(ids(3), []string{"a", "b", "cd"}),
		"empty value added":      sumOf(ids(5), append(vals, "")),
		"the same, another type": sumOf(ids(4), [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("e")}),
	} {
		if s == base {
			t.Errorf("%s: the digest did not change", name)
		}
	}
	if again := sumOf(ids(4), []string{"a", "b", "c", "d"}); again != base {
		t.Errorf("the same stream gave %v, then %v", base, again)
	}
}

// TestDigestIgnoresBatch adds the same items with different partition numbers
// and in chunks of different sizes.
func TestDigestIgnoresBatch(t *testing.T) {
	const n = 10000 // several flushes of the buffer
	vals := make([]string, n)
	for i := range vals {
		vals[i] = strings.Repeat("v", i%13)
	}
	byAdd := sumOf(ids(n), vals)

	for _, size := range []int{1, 7, 1000, n} {
		h := determinism.NewHasher[string]()
		for lo := 0; lo < n; lo += size {
			hi := min(lo+size, n)
			c := flow.Chunk[string]{Part: int64(lo), IDs: flow.OrdinalIDs(rowid.FromString("test"), uint64(lo), hi-lo),
				Values: vals[lo:hi]}
			if err := determinism.AddChunk(h, &c); err != nil {
				t.Fatal(err)
			}
		}
		if got := h.Sum(); got != byAdd {
			t.Errorf("AddChunk in chunks of %d: %v, want %v", size, got, byAdd)
		}
	}
}

func TestHasherSumAndReset(t *testing.T) {
	h := determinism.NewHasher[int8]()
	add := func(id rowid.ID, v int8) {
		t.Helper()
		if err := h.Add(id, v); err != nil {
			t.Fatal(err)
		}
	}
	add(idOf(0), 1)
	first := h.Sum()
	if again := h.Sum(); again != first {
		t.Errorf("Sum changed the state: %v, then %v", first, again)
	}
	add(idOf(1), 2)
	if got, want := h.Sum(), sumOf(ids(2), []int8{1, 2}); got != want || got.Count != 2 {
		t.Errorf("after Sum and Add: %v (%d items), want %v", got, got.Count, want)
	}
	determinism.ResetHasher(h)
	if got, want := h.Sum(), sumOf[int8](nil, nil); got != want || got.Count != 0 {
		t.Errorf("after Reset: %v, want %v", got, want)
	}
	add(idOf(0), 1)
	if got := h.Sum(); got != first {
		t.Errorf("after Reset and Add: %v, want %v", got, first)
	}
}

func TestNewHasherPanics(t *testing.T) {
	defer func() {
		err, ok := recover().(error)
		if !ok || !strings.Contains(err.Error(), "chan int") {
			t.Errorf("NewHasher[chan int] panicked with %v, want an error naming chan int", err)
		}
	}()
	determinism.NewHasher[chan int]()
}

// idsOf returns the IDs a source named name gives its first n rows.
func idsOf(name string, n int) []rowid.ID {
	out := make([]rowid.ID, n)
	for i := range out {
		out[i] = rowid.Ordinal(uint64(i)).Combine(rowid.FromString(name))
	}
	return out
}

func seq(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// A value that T holds in an interface is checked when it is added: one
// without an encoding is Add's error, naming its type, not a panic.
func TestHasherAddRefusesUnencodable(t *testing.T) {
	h := determinism.NewHasher[any]()
	if err := h.Add(idOf(0), 7); err != nil {
		t.Fatalf("Add(7) = %v", err)
	}
	err := h.Add(idOf(1), func() {})
	if err == nil || !strings.Contains(err.Error(), "func()") {
		t.Fatalf("Add of a func in an interface = %v, want an error naming func()", err)
	}
}

type mfNode struct {
	V    int
	Next *mfNode
}

type mfHook struct{ X any }

func (h *mfHook) AppendDigest(b []byte) []byte { return append(b, 1) }

// Only a type that holds an interface or an Appender, or is recursive,
// can fail to encode when it runs; Add recovers the encoder's failure for
// those only.
func TestMayFail(t *testing.T) {
	for name, c := range map[string]struct{ got, want bool }{
		"int64": {determinism.MayFail[int64](), false},
		"struct of scalars": {determinism.MayFail[struct {
			A int
			B string
			C [3]float32
		}](), false},
		"slice, pointer, map": {determinism.MayFail[struct {
			S []int
			P *string
			M map[string][]byte
		}](), false},
		"time and row ID": {determinism.MayFail[struct {
			T  time.Time
			ID rowid.ID
		}](), false},
		"any":                  {determinism.MayFail[any](), true},
		"interface in a map":   {determinism.MayFail[map[string]any](), true},
		"interface in a field": {determinism.MayFail[struct{ X any }](), true},
		"recursive":            {determinism.MayFail[mfNode](), true},
		"appender":             {determinism.MayFail[mfHook](), true},
		"blank interface field": {determinism.MayFail[struct {
			_ any
			A int
		}](), false},
	} {
		if c.got != c.want {
			t.Errorf("%s: mayFail %v, want %v", name, c.got, c.want)
		}
	}
}

// A value nested deeper than the encoder goes, such as a long chain of a
// recursive type, is Add's error too.
func TestHasherAddRefusesDeepValue(t *testing.T) {
	var head *mfNode
	for i := range 10002 { // 10001 pointers, one level each
		head = &mfNode{V: i, Next: head}
	}
	err := determinism.NewHasher[mfNode]().Add(idOf(0), *head)
	if err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Fatalf("Add of a chain of 10002 nodes = %v, want an error saying it is nested too deep", err)
	}
}

// avHook encodes itself with AppendValue of what it holds, as an
// AppendDigest method may.
type avHook struct{ X any }

func (h *avHook) AppendDigest(b []byte) []byte { return determinism.AppendValue(b, h.X) }

// A value that an AppendDigest method cannot encode with AppendValue is
// Add's error, as it is SumOf's, whether or not T holds an interface
// besides the Appender.
func TestHasherAddAppenderThatCannotEncode(t *testing.T) {
	v := avHook{X: func() {}}
	if err := determinism.NewHasher[avHook]().Add(idOf(0), v); err == nil || !strings.Contains(err.Error(), "func()") {
		t.Errorf("Add of an Appender whose AppendValue fails = %v, want an error naming func()", err)
	}
	type withAny struct {
		H avHook
		Y any
	}
	if err := determinism.NewHasher[withAny]().Add(idOf(0), withAny{H: v}); err == nil || !strings.Contains(err.Error(), "func()") {
		t.Errorf("Add of a struct holding such an Appender = %v, want an error naming func()", err)
	}
	_, err := determinism.SumOf[avHook](context.Background(), flow.From(sources.Slice([]avHook{v})))
	if err == nil || !strings.Contains(err.Error(), "func()") {
		t.Errorf("SumOf of the same value = %v, want an error naming func()", err)
	}
}
