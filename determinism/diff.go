package determinism

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"unsafe"
)

// fieldDiff is the first part of two values whose encodings differ: its
// path from the value (".Rows[17].Text", "len(.Rows)", or "" for the
// value itself) and what each value has there.
type fieldDiff struct {
	path string
	a, b string
}

// firstDiff returns the first part, in encoding order, where the values
// of type t at pa and pb differ. It descends into structs, arrays, slices,
// pointers and interfaces; a map, a time.Time or a value with an
// AppendDigest method is compared whole. ok is false if the values encode
// alike.
func firstDiff(t reflect.Type, pa, pb unsafe.Pointer) (d fieldDiff, ok bool) {
	if encodesAlike(t, pa, pb) {
		return fieldDiff{}, false
	}
	return descend(t, pa, pb, ""), true
}

// encodesAlike reports whether the values of type t at pa and pb have
// the same encoding.
func encodesAlike(t reflect.Type, pa, pb unsafe.Pointer) bool {
	var a, b state
	c := codecOf(t)
	if catchEncoding(func() { c.enc(&a, pa); c.enc(&b, pb) }) != nil {
		return false
	}
	return bytes.Equal(a.b, b.b)
}

// descend returns the first differing part of two values that differ.
func descend(t reflect.Type, pa, pb unsafe.Pointer, path string) fieldDiff {
	leaf := fieldDiff{path: path, a: render(t, pa), b: render(t, pb)}
	if hasHook(t) || t == timeType {
		return leaf
	}
	switch t.Kind() {
	case reflect.String:
		a, b := *(*string)(pa), *(*string)(pb)
		if len(a) > maxValueText || len(b) > maxValueText {
			i := 0
			for i < min(len(a), len(b)) && a[i] == b[i] {
				i++
			}
			return fieldDiff{path: path, a: excerpt(a, i), b: excerpt(b, i)}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Name == "_" {
				continue
			}
			fa, fb := unsafe.Add(pa, f.Offset), unsafe.Add(pb, f.Offset)
			if !encodesAlike(f.Type, fa, fb) {
				return descend(f.Type, fa, fb, path+"."+f.Name)
			}
		}
	case reflect.Array:
		return elements(t.Elem(), pa, pb, t.Len(), t.Len(), path)
	case reflect.Slice:
		sa, sb := (*sliceHeader)(pa), (*sliceHeader)(pb)
		return elements(t.Elem(), sa.data, sb.data, sa.len, sb.len, path)
	case reflect.Pointer:
		a, b := *(*unsafe.Pointer)(pa), *(*unsafe.Pointer)(pb)
		if a != nil && b != nil {
			return descend(t.Elem(), a, b, path)
		}
	case reflect.Interface:
		va, vb := reflect.NewAt(t, pa).Elem(), reflect.NewAt(t, pb).Elem()
		if !va.IsNil() && !vb.IsNil() && va.Elem().Type() == vb.Elem().Type() {
			dt := va.Elem().Type()
			ca, cb := reflect.New(dt), reflect.New(dt)
			ca.Elem().Set(va.Elem())
			cb.Elem().Set(vb.Elem())
			return descend(dt, ca.UnsafePointer(), cb.UnsafePointer(), path+".("+dt.String()+")")
		}
	}
	return leaf
}

// elements returns the first differing element of two sequences of
// elements of type et, or their lengths if one is a prefix of the other.
func elements(et reflect.Type, pa, pb unsafe.Pointer, na, nb int, path string) fieldDiff {
	for i := range min(na, nb) {
		ea, eb := unsafe.Add(pa, uintptr(i)*et.Size()), unsafe.Add(pb, uintptr(i)*et.Size())
		if !encodesAlike(et, ea, eb) {
			return descend(et, ea, eb, path+"["+strconv.Itoa(i)+"]")
		}
	}
	whole := path
	if whole == "" {
		whole = "value"
	}
	return fieldDiff{path: "len(" + whole + ")", a: strconv.Itoa(na), b: strconv.Itoa(nb)}
}

// render formats the value of type t at p, with the names of struct
// fields, cut to maxValueText bytes.
func render(t reflect.Type, p unsafe.Pointer) string {
	v := reflect.NewAt(t, p).Elem()
	var s string
	if t.Kind() == reflect.String {
		s = strconv.Quote(v.String())
	} else {
		s = fmt.Sprintf("%+v", v.Interface())
	}
	return cut(s)
}

// excerptText is how many bytes of a long string an excerpt shows.
const excerptText = 60

// excerpt shows the bytes of s from a little before byte i, where it
// first differs from another string, and where they are in s.
func excerpt(s string, i int) string {
	start := max(0, i-excerptText/3)
	for start > 0 && s[start]&0xc0 == 0x80 {
		start--
	}
	end := min(len(s), start+excerptText)
	for end < len(s) && s[end]&0xc0 == 0x80 {
		end++
	}
	return fmt.Sprintf("bytes [%d:%d] of %d: %q", start, end, len(s), s[start:end])
}

// cut shortens s to maxValueText bytes, at a rune boundary, marking the
// cut with "…".
func cut(s string) string {
	if len(s) <= maxValueText {
		return s
	}
	n := maxValueText
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
