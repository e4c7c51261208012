package text

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/rowflow/rowflow/internal/text/textnum"
	"github.com/rowflow/rowflow/internal/text/texttime"
)

// textField is a struct field that a text value is parsed into.
type textField struct {
	name   string // the column it reads
	goName string
	off    uintptr
	kind   fieldKind // the common kinds, which parse without calling set
	keeps  bool      // set keeps the text itself (a string, a *string)
	ptr    bool      // a pointer: nil for a null value
	set    func(p unsafe.Pointer, s string) error
}

// keepsText reports whether a field of type t holds the text it is set
// from rather than a value parsed from it.
func keepsText(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String:
		return true
	case reflect.Pointer:
		return keepsText(t.Elem())
	}
	return false
}

// fieldKind names the field types that a reader parses in line: a call
// through set per field and row costs a tenth of a CSV read.
type fieldKind uint8

const (
	otherKind fieldKind = iota
	stringKind
	int64Kind
	int32Kind
	float64Kind
	boolKind
)

// parse parses s into the field at p.
func (f *textField) parse(p unsafe.Pointer, s string) error {
	if f.kind != otherKind {
		return parseKind(f.kind, p, s)
	}
	return f.set(p, s)
}

// parseKind parses s into the value of kind k at p: the setters of these
// kinds and the in-line path share it.
func parseKind(k fieldKind, p unsafe.Pointer, s string) error {
	switch k {
	case stringKind:
		*(*string)(p) = s
		return nil
	case int64Kind:
		if v, ok := textnum.Int(s); ok {
			*(*int64)(p) = v
			return nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		*(*int64)(p) = v
		return err
	case int32Kind:
		if v, ok := textnum.Int(s); ok && v == int64(int32(v)) {
			*(*int32)(p) = int32(v)
			return nil
		}
		v, err := strconv.ParseInt(s, 10, 32)
		*(*int32)(p) = int32(v)
		return err
	case float64Kind:
		if v, ok := textnum.Float(s); ok {
			*(*float64)(p) = v
			return nil
		}
		v, err := strconv.ParseFloat(s, 64)
		*(*float64)(p) = v
		return err
	case boolKind:
		v, err := strconv.ParseBool(s)
		*(*bool)(p) = v
		return err
	}
	panic("sources: parseKind of another kind")
}

// kindOf returns the fieldKind of a field of type t.
func kindOf(t reflect.Type) fieldKind {
	switch t.Kind() {
	case reflect.String:
		return stringKind
	case reflect.Int64:
		return int64Kind
	case reflect.Int32:
		return int32Kind
	case reflect.Float64:
		return float64Kind
	case reflect.Bool:
		return boolKind
	}
	return otherKind
}

// textFields returns the fields of struct type T that read text columns:
// every exported field, named by the tag key (`csv:"name"`) or its Go
// name; a tag "-" leaves the field out. A field whose type cannot be
// parsed from text is an error if strict; otherwise its set is nil, and
// only a Hive partition column of its name makes it one.
func textFields[T any](key string, strict bool) ([]textField, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("sources: %v is not a struct", t)
	}
	var out []textField
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get(key), ",")
		switch name {
		case "-":
			continue
		case "":
			name = sf.Name
		}
		set, err := textSetter(sf.Type)
		if err != nil && strict {
			return nil, fmt.Errorf("sources: field %s of %v: %w", sf.Name, t, err)
		}
		out = append(out, textField{name: name, goName: sf.Name, off: sf.Offset, kind: kindOf(sf.Type), keeps: keepsText(sf.Type), ptr: sf.Type.Kind() == reflect.Pointer, set: set})
	}
	return out, nil
}

// textSetter returns the function that parses text into a value of type t:
// strings as they are, bool by strconv.ParseBool, integers and floats in
// Go syntax (base 10), []byte as the text's bytes, time.Time by setTime,
// decimal.Decimal by setDecimal. A pointer points to
// the parsed value: the readers decide which text is null (and leave the
// pointer nil) before they call it.
func textSetter(t reflect.Type) (func(unsafe.Pointer, string) error, error) {
	if k := kindOf(t); k != otherKind {
		return func(p unsafe.Pointer, s string) error { return parseKind(k, p, s) }, nil
	}
	switch t.Kind() {
	case reflect.Int:
		return intSetter[int](t), nil
	case reflect.Int8:
		return intSetter[int8](t), nil
	case reflect.Int16:
		return intSetter[int16](t), nil
	case reflect.Uint:
		return uintSetter[uint](t), nil
	case reflect.Uint8:
		return uintSetter[uint8](t), nil
	case reflect.Uint16:
		return uintSetter[uint16](t), nil
	case reflect.Uint32:
		return uintSetter[uint32](t), nil
	case reflect.Uint64:
		return uintSetter[uint64](t), nil
	case reflect.Float32:
		return func(p unsafe.Pointer, s string) error {
			v, err := strconv.ParseFloat(s, 32)
			*(*float32)(p) = float32(v)
			return err
		}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return func(p unsafe.Pointer, s string) error { *(*[]byte)(p) = []byte(s); return nil }, nil
		}
	case reflect.Struct:
		switch t {
		case reflect.TypeFor[time.Time]():
			return setTime, nil
		case decimalType:
			return setDecimal, nil
		}
	case reflect.Pointer:
		elem, err := textSetter(t.Elem())
		if err != nil {
			return nil, err
		}
		et := t.Elem()
		return func(p unsafe.Pointer, s string) error {
			v := reflect.New(et).UnsafePointer()
			*(*unsafe.Pointer)(p) = v
			return elem(v, s)
		}, nil
	}
	return nil, fmt.Errorf("type %v cannot be read from text", t)
}

// setTime parses a timestamp (RFC 3339 or with a space for the T; with a
// zone it is that instant at that offset, as encoding/json reads it,
// without one the wall clock as UTC) or a date (midnight UTC) into a
// time.Time.
func setTime(p unsafe.Pointer, s string) error {
	if t, _, ok := texttime.Timestamp(s); ok {
		*(*time.Time)(p) = t
		return nil
	}
	if t, ok := texttime.Date(s); ok {
		*(*time.Time)(p) = t
		return nil
	}
	return fmt.Errorf("%q is not a timestamp or a date (want 2006-01-02[T15:04:05[.fff][Z|±hh:mm]])", s)
}

// intSetter parses a signed integer of t's width into an I.
func intSetter[I int | int8 | int16 | int32 | int64](t reflect.Type) func(unsafe.Pointer, string) error {
	bits := t.Bits()
	return func(p unsafe.Pointer, s string) error {
		v, err := strconv.ParseInt(s, 10, bits)
		*(*I)(p) = I(v)
		return err
	}
}

// uintSetter parses an unsigned integer of t's width into a U.
func uintSetter[U uint | uint8 | uint16 | uint32 | uint64](t reflect.Type) func(unsafe.Pointer, string) error {
	bits := t.Bits()
	return func(p unsafe.Pointer, s string) error {
		v, err := strconv.ParseUint(s, 10, bits)
		*(*U)(p) = U(v)
		return err
	}
}

// withHive returns the zero T with the fields named as Hive partition
// columns of the file set from their values, and the fields left to read
// from the file's columns.
func withHive[T any](fields []textField, part *textPart) (T, []textField, error) {
	var v T
	var rest []textField
	for _, f := range fields {
		val, ok := part.file.Partition.Get(f.name)
		if !ok {
			rest = append(rest, f)
			continue
		}
		if f.ptr && val == "" { // the default partition, null
			continue
		}
		if f.set == nil {
			return v, nil, fmt.Errorf("%s: partition column %s: field %s cannot be read from text", part.file.RelPath, f.name, f.goName)
		}
		if err := f.set(unsafe.Add(unsafe.Pointer(&v), f.off), val); err != nil {
			return v, nil, fmt.Errorf("%s: partition column %s=%q into field %s: %w", part.file.RelPath, f.name, val, f.goName, unwrapNum(err))
		}
	}
	return v, rest, nil
}

// unwrapNum drops strconv's repetition of the function and the input.
func unwrapNum(err error) error {
	if ne, ok := err.(*strconv.NumError); ok {
		return ne.Err
	}
	return err
}
