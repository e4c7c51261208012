package chunkmem

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// TestStringsAndValues: the strings Memory copies do not change when
// what they were copied from does, nor when more is copied after them,
// into the same block or a new one; a boxed string is an any like the
// one a conversion makes (equal, of type string, read by reflect, fmt and
// encoding/json); and a slice of values has room for no more than asked.
func TestStringsAndValues(t *testing.T) {
	var m Memory
	src := []byte("abcdef")
	var got, want []string
	var boxed []any
	for i := range 3000 {
		n := i % 13
		if i%500 == 7 {
			n = textBlock/4 + 1 // its own allocation
		}
		text := strings.Repeat(fmt.Sprint(i%10), n)
		src = append(src[:0], text...)
		s := m.String(unsafe.String(unsafe.SliceData(src), len(src))) // borrowed, as the text sources' fields are
		for k := range src {
			src[k] = '#' // the next read's bytes, in the same buffer
		}
		got, want = append(got, s), append(want, text)
		boxed = append(boxed, m.BoxString(s))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("string %d: %q, want %q", i, got[i], want[i])
		}
		v := boxed[i]
		if v != any(want[i]) || v.(string) != want[i] || reflect.ValueOf(v).String() != want[i] || fmt.Sprint(v) != want[i] {
			t.Fatalf("boxed %d: %#v, want %q", i, v, want[i])
		}
		if js, _ := json.Marshal(v); string(js) != fmt.Sprintf("%q", want[i]) {
			t.Fatalf("boxed %d as JSON: %s", i, js)
		}
	}
	a, b := m.Values(3), m.Values(2)
	if len(a) != 3 || cap(a) != 3 || len(b) != 2 || cap(b) != 2 {
		t.Fatalf("values: len %d cap %d, len %d cap %d", len(a), cap(a), len(b), cap(b))
	}
	a = append(a, "x")
	b[0] = "y"
	if a[0] != nil || a[3] != "x" || b[0] != "y" || b[1] != nil {
		t.Fatalf("values alias: %v %v", a, b)
	}
}
