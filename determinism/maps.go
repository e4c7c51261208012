package determinism

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"slices"
	"unsafe"
)

// mapping returns the encoder of a map type: the number of entries, then
// the entries (key, then value) in the byte order of their encodings, so
// that the encoding does not depend on Go's map iteration order. It uses
// reflection to iterate and allocates per map.
func (b *builder) mapping(t reflect.Type) encoder {
	kt, vt := t.Key(), t.Elem()
	kc, vc := b.codec(kt), b.codec(vt)
	return func(s *state, p unsafe.Pointer) {
		m := reflect.NewAt(t, p).Elem()
		n := m.Len()
		s.b = binary.AppendUvarint(s.b, uint64(n))
		if n == 0 {
			return
		}
		s.enter()
		k, v := reflect.New(kt).Elem(), reflect.New(vt).Elem()
		kp, vp := k.Addr().UnsafePointer(), v.Addr().UnsafePointer()
		// Encode the entries into a buffer of their own, then append them
		// sorted. Key encodings are prefix-free, so comparing whole entries
		// orders them by key, and by value between equal keys (NaNs).
		out := s.b
		s.b = nil
		spans := make([][2]int, 0, n)
		for it := m.MapRange(); it.Next(); {
			start := len(s.b)
			k.SetIterKey(it)
			v.SetIterValue(it)
			kc.enc(s, kp)
			vc.enc(s, vp)
			spans = append(spans, [2]int{start, len(s.b)})
		}
		entries := s.b
		slices.SortFunc(spans, func(x, y [2]int) int {
			return bytes.Compare(entries[x[0]:x[1]], entries[y[0]:y[1]])
		})
		s.b = out
		for _, sp := range spans {
			s.b = append(s.b, entries[sp[0]:sp[1]]...)
		}
		s.leave()
	}
}
