// Package jsonfloat is the rule that the JSON Lines sinks and sources
// share for the floats JSON has no number for: NaN, +Inf and -Inf are
// written as the JSON strings "NaN", "+Inf" and "-Inf", and read back from
// them into float fields.
//
// encoding/json refuses to encode such floats and to decode a string into
// a float. The sinks and sources keep encoding/json's fast path and turn
// to this package only when it fails: [Shadow] gives a type of the same
// memory layout whose floats encode and decode by the rule, and [Value]
// rewrites the values of a schema-less record.
package jsonfloat

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The texts of the floats that JSON has no number for, as strconv and fmt
// write them.
const (
	NaN    = "NaN"
	PosInf = "+Inf"
	NegInf = "-Inf"
)

// Text returns the text of f, and whether f is NaN or infinite: only then
// is the text meant to be used.
func Text(f float64) (string, bool) {
	switch {
	case math.IsNaN(f):
		return NaN, true
	case math.IsInf(f, 1):
		return PosInf, true
	case math.IsInf(f, -1):
		return NegInf, true
	}
	return "", false
}

// parse returns the float that s, one of the three texts, stands for.
func parse(s string) (float64, bool) {
	switch s {
	case NaN:
		return math.NaN(), true
	case PosInf:
		return math.Inf(1), true
	case NegInf:
		return math.Inf(-1), true
	}
	return 0, false
}

// Float64 is a float64 that encodes and decodes by the rule.
type Float64 float64

// Float32 is a float32 that encodes and decodes by the rule.
type Float32 float32

// MarshalJSON writes f as encoding/json writes a float64, or as one of the
// three strings.
func (f Float64) MarshalJSON() ([]byte, error) { return marshal(float64(f), 64) }

// MarshalJSON writes f as encoding/json writes a float32, or as one of the
// three strings.
func (f Float32) MarshalJSON() ([]byte, error) { return marshal(float64(f), 32) }

// UnmarshalJSON reads a number, null (which leaves f as it is, as for a
// float64) or one of the three strings.
func (f *Float64) UnmarshalJSON(b []byte) error {
	x, ok, err := unmarshal(b, 64)
	if ok {
		*f = Float64(x)
	}
	return err
}

// UnmarshalJSON reads a number that a float32 holds, null (which leaves
// f as it is) or one of the three strings.
func (f *Float32) UnmarshalJSON(b []byte) error {
	x, ok, err := unmarshal(b, 32)
	if ok {
		*f = Float32(x)
	}
	return err
}

func marshal(f float64, bits int) ([]byte, error) {
	if s, ok := Text(f); ok {
		return strconv.AppendQuote(nil, s), nil
	}
	if bits == 32 {
		return json.Marshal(float32(f))
	}
	return json.Marshal(f)
}

// unmarshal decodes b for a float of the given bits; ok says whether b
// gave a value (null does not).
func unmarshal(b []byte, bits int) (float64, bool, error) {
	s := string(b)
	switch {
	case s == "null":
		return 0, false, nil
	case len(s) > 0 && s[0] == '"':
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return 0, false, err
		}
		if f, ok := parse(str); ok {
			return f, true, nil
		}
		return 0, false, fmt.Errorf("cannot read the string %q as a float%d (only %q, %q and %q are)", str, bits, NaN, PosInf, NegInf)
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return 0, false, fmt.Errorf("cannot read %s as a float%d", b, bits)
	}
	f, err := strconv.ParseFloat(string(n), bits)
	if err != nil {
		return 0, false, fmt.Errorf("cannot read %s as a float%d: %w", b, bits, err)
	}
	return f, true, nil
}

// Value returns v, a value of a schema-less record (as sources.Record
// holds them), with its NaN and infinite floats, in lists ([]any) and
// objects (map[string]any) at any depth too, replaced by their texts.
// Other values are returned as they are.
func Value(v any) any {
	switch x := v.(type) {
	case float64:
		if s, ok := Text(x); ok {
			return s
		}
	case float32:
		if s, ok := Text(float64(x)); ok {
			return s
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Value(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Value(e)
		}
		return out
	}
	return v
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	unmarshalerType   = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler   = reflect.TypeFor[encoding.TextUnmarshaler]()
	float64Type       = reflect.TypeFor[Float64]()
	float32Type       = reflect.TypeFor[Float32]()
)

// Shadow returns the type of the same memory layout as t whose floats
// (float32 and float64 kinds, in fields, pointers, slices, arrays and
// map values at any depth) are [Float32] and [Float64], so that a *t may
// be encoded and decoded as a pointer to it (reflect.NewAt) by the rule,
// with every other byte of the JSON as encoding/json writes and reads t.
// A map's shadow has the same key type and a value type of the same
// layout, which is all the runtime's maps depend on besides the key's
// hashing; a map that decoding makes under the shadow type is read and
// grown under t's. ok is false when t has no such float, or when the
// shadow cannot be built: a struct on the way that embeds a field, a
// recursive type, or a float field with the ",string" option. Floats
// behind an interface, and types that encode or decode themselves (json
// or text marshalers), are left as they are.
func Shadow(t reflect.Type) (s reflect.Type, ok bool) {
	defer func() {
		if r := recover(); r != nil { // reflect.StructOf refused a field
			s, ok = nil, false
		}
	}()
	s, changed, err := shadow(t, map[reflect.Type]bool{})
	if err != nil || !changed {
		return nil, false
	}
	return s, true
}

var errCannot = errors.New("jsonfloat: no shadow type")

func custom(t reflect.Type) bool {
	for _, x := range []reflect.Type{t, reflect.PointerTo(t)} {
		if x.Implements(marshalerType) || x.Implements(unmarshalerType) || x.Implements(textMarshalerType) || x.Implements(textUnmarshaler) {
			return true
		}
	}
	return false
}

// shadow returns t's shadow and whether it differs from t. visiting holds
// the types being built, whose recurrence is a recursive type.
func shadow(t reflect.Type, visiting map[reflect.Type]bool) (reflect.Type, bool, error) {
	if custom(t) {
		return t, false, nil
	}
	switch t.Kind() {
	case reflect.Float64:
		return float64Type, true, nil
	case reflect.Float32:
		return float32Type, true, nil
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Struct, reflect.Map:
	default:
		return t, false, nil
	}
	if visiting[t] {
		return nil, false, errCannot
	}
	visiting[t] = true
	defer delete(visiting, t)
	if t.Kind() == reflect.Struct {
		return shadowStruct(t, visiting)
	}
	e, changed, err := shadow(t.Elem(), visiting)
	if err != nil || !changed {
		return t, false, err
	}
	switch t.Kind() {
	case reflect.Pointer:
		return reflect.PointerTo(e), true, nil
	case reflect.Slice:
		return reflect.SliceOf(e), true, nil
	case reflect.Map:
		return reflect.MapOf(t.Key(), e), true, nil
	}
	return reflect.ArrayOf(t.Len(), e), true, nil
}

func shadowStruct(t reflect.Type, visiting map[reflect.Type]bool) (reflect.Type, bool, error) {
	fields := make([]reflect.StructField, t.NumField())
	changed, embeds := false, false
	names := map[string]bool{}
	for i := range fields {
		f := t.Field(i)
		names[f.Name] = true
		if !f.IsExported() || f.Anonymous {
			embeds = embeds || f.Anonymous
			continue // encoding/json ignores unexported fields
		}
		ft, c, err := shadow(f.Type, visiting)
		if err != nil {
			return nil, false, err
		}
		if c && hasStringOption(f.Tag) {
			return nil, false, errCannot
		}
		changed = changed || c
		fields[i] = reflect.StructField{Name: f.Name, Type: ft, Tag: f.Tag}
	}
	if !changed {
		return t, false, nil
	}
	if embeds {
		return nil, false, errCannot
	}
	for i := range fields {
		if f := t.Field(i); !f.IsExported() {
			// A field of the same type keeps the layout; "-" keeps it
			// out of the JSON, as encoding/json keeps unexported ones.
			name := "Unexported" + f.Name
			for names[name] {
				name += "_"
			}
			names[name] = true
			fields[i] = reflect.StructField{Name: name, Type: f.Type, Tag: `json:"-"`}
		}
	}
	s := reflect.StructOf(fields)
	if s.Size() != t.Size() || s.Align() != t.Align() {
		return nil, false, errCannot
	}
	for i := range fields {
		if s.Field(i).Offset != t.Field(i).Offset {
			return nil, false, errCannot
		}
	}
	return s, true, nil
}

// hasStringOption reports whether a field's json tag has the ",string"
// option, with which encoding/json quotes a number: a float that encodes
// itself would lose the quotes.
func hasStringOption(tag reflect.StructTag) bool {
	_, opts, _ := strings.Cut(tag.Get("json"), ",")
	return slices.Contains(strings.Split(opts, ","), "string")
}
