package text

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/rowflow/rowflow/internal/io/chunkmem"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/internal/text/textnum"
	"github.com/rowflow/rowflow/sources"
)

// The JSON Lines fast path. encoding/json checks a line's syntax in one
// pass, then decodes it in another, through reflection, allocating each
// string; the key scan (keys.go) makes a third. The fast path decodes the
// common line, an object of numbers, strings, booleans and nulls whose
// keys are plain ASCII, in one pass over the line's bytes in the
// read buffer: into a struct's fields in place (a plan per type, made
// once, tells which key is which field), or into a record's values;
// integers and floats by the CSV reader's in-line parsers (which agree
// with strconv bit for bit) or strconv, the text that a value keeps in
// the chunk's memory (internal/io/chunkmem), shared by many rows.
//
// A value of another type (a nested struct, a slice, a map, a type that
// decodes itself with json.Unmarshaler or encoding.TextUnmarshaler but
// time.Time, whose UnmarshalJSON the fast path calls as encoding/json
// does), and a nested object or array in a record, encoding/json decodes
// from the value's bytes alone, as it would in the line; a nested
// object or array for no field is checked and skipped.
//
// It takes a line only where the result is what encoding/json and the
// key rules give, and no error: anything else, such as a key with an
// escape or a byte that is not ASCII, a key twice (at any depth), a
// missing required key, a value of the wrong type, a number out of
// range, the strings "NaN", "+Inf" and "-Inf" for a float, a field with
// the string option, bad syntax, goes to encoding/json as before, which
// gives the value or the error. So what a source gives does not
// depend on which path read a line; a test compares the two on many
// generated lines.

// jsonlFastPath turns the fast path on; tests turn it off to compare the
// two decoders.
var jsonlFastPath = true

// jsonKind names the field types the fast path decodes.
type jsonKind uint8

const (
	jsonOther  jsonKind = iota // a line with its key goes to encoding/json
	jsonString                 // a string kind
	jsonInt                    // a signed integer kind
	jsonUint                   // an unsigned integer kind
	jsonFloat                  // float32, float64
	jsonBool                   // a bool kind
	jsonTime                   // time.Time
)

// jsonField is a struct field as the fast path decodes it.
type jsonField struct {
	name string // its key, as encoding/json names it
	off  uintptr
	kind jsonKind
	size uintptr      // of an integer or float
	ptr  bool         // a pointer to a value of kind: nil for null
	elem reflect.Type // what a pointer points to
	// whole is the type of a field of kind jsonOther that encoding/json
	// decodes from its value alone; nil for one tagged with the string
	// option, whose line goes to encoding/json.
	whole reflect.Type
}

// jsonPlan is how the fast path decodes a line into a struct type.
type jsonPlan struct {
	fields []jsonField
}

var (
	timeType            = reflect.TypeFor[time.Time]()
	numberType          = reflect.TypeFor[json.Number]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// jsonPlanOf returns the plan of struct type t, or nil if the fast path
// does not take t's lines: if it has an embedded field (encoding/json
// promotes the fields of embedded structs), a key that is not plain ASCII
// letters, digits, '_', '-' and '.', or two fields whose keys are equal
// but for case (encoding/json picks one by rules of its own).
func jsonPlanOf(t reflect.Type) *jsonPlan {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var fields []jsonField
	for i := range t.NumField() {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil
		}
		if !sf.IsExported() {
			continue
		}
		name, opts, ok := jsonTag(sf)
		if !ok {
			continue
		}
		if !plainKey(name) {
			return nil
		}
		f := jsonField{name: name, off: sf.Offset}
		if !hasOption(opts, "string") {
			f.kind, f.size = jsonKindOf(sf.Type)
			if sf.Type.Kind() == reflect.Pointer && sf.Type.Elem().Kind() != reflect.Pointer {
				f.ptr, f.elem = true, sf.Type.Elem()
				f.kind, f.size = jsonKindOf(f.elem)
			}
			if f.kind == jsonOther {
				f.ptr, f.elem, f.whole = false, nil, sf.Type
			}
		}
		for _, g := range fields {
			if strings.EqualFold(g.name, name) {
				return nil
			}
		}
		fields = append(fields, f)
	}
	return &jsonPlan{fields: fields}
}

// jsonTag returns the key of struct field sf, by its json tag or its Go
// name, and the tag's options; ok is false for a field tagged "-", which
// has none.
func jsonTag(sf reflect.StructField) (name, opts string, ok bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", "", false
	}
	name, opts, _ = strings.Cut(tag, ",")
	if name == "" {
		name = sf.Name
	}
	return name, opts, true
}

// plainKey reports whether s is a key the fast path matches as
// encoding/json does, byte by byte and ASCII letters in any case.
func plainKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// jsonKindOf returns the kind of a field of type t, and its size.
func jsonKindOf(t reflect.Type) (jsonKind, uintptr) {
	switch {
	case t == timeType:
		return jsonTime, 0
	case t == numberType, reflect.PointerTo(t).Implements(jsonUnmarshalerType), reflect.PointerTo(t).Implements(textUnmarshalerType):
		return jsonOther, 0
	}
	switch t.Kind() {
	case reflect.String:
		return jsonString, 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return jsonInt, t.Size()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return jsonUint, t.Size()
	case reflect.Float32, reflect.Float64:
		return jsonFloat, t.Size()
	case reflect.Bool:
		return jsonBool, 0
	}
	return jsonOther, 0
}

// required returns, for each field of the plan, whether a line must have
// its key: names are the keys required (jsonRequired, less the Hive
// columns). ok is false if a name is none of the plan's.
func (p *jsonPlan) required(names []string) (need []bool, ok bool) {
	need = make([]bool, len(p.fields))
	for _, n := range names {
		k := -1
		for i := range p.fields {
			if p.fields[i].name == n {
				k = i
			}
		}
		if k < 0 {
			return nil, false
		}
		need[k] = true
	}
	return need, true
}

// jsonScan is the fast path's state, reused from line to line.
type jsonScan struct {
	keys  [][]byte // the line's keys so far
	seen  []bool   // which fields of the plan the line has
	buf   []byte   // a string with its escapes undone
	vals  []any    // a record's values so far
	names []string // the names of the last record
	// nested finds a key twice in a nested object.
	nested keyScan
}

// decode decodes the JSON object b into the struct at v and reports
// whether it did: if not, v is to be decoded again by encoding/json from
// what it held. need tells which fields' keys the line must have.
func (p *jsonPlan) decode(s *jsonScan, b []byte, v unsafe.Pointer, mem *chunkmem.Memory, need []bool) bool {
	if len(s.seen) != len(p.fields) {
		s.seen = make([]bool, len(p.fields))
	}
	clear(s.seen)
	hint := 0
	ok := s.members(b, func(key []byte, i int) (int, bool) {
		// A key twice is one field's twice, or one of the unknown keys
		// (s.keys) twice. A field's key seen before in another case
		// is not the same key, but rare: encoding/json decodes it.
		k := p.field(key, hint)
		if k < 0 {
			if !s.fresh(key) {
				return 0, false
			}
			return s.skip(b, i)
		}
		if s.seen[k] {
			return 0, false
		}
		hint, s.seen[k] = k+1, true
		return p.fields[k].decode(s, b, i, v, mem)
	})
	if !ok {
		return false
	}
	for k, n := range need {
		if n && !s.seen[k] {
			return false
		}
	}
	return true
}

// members reads the JSON object b, calling value with each key, in
// order, and the index of its value, which value reads and returns the
// index after. It reports false if b is not an object the fast path
// takes (see key) or value does.
func (s *jsonScan) members(b []byte, value func(key []byte, i int) (int, bool)) bool {
	s.keys = s.keys[:0]
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return false
	}
	if i = skipSpace(b, i+1); i < len(b) && b[i] == '}' {
		return skipSpace(b, i+1) == len(b)
	}
	for {
		key, j, ok := s.key(b, i)
		if !ok {
			return false
		}
		if j, ok = value(key, j); !ok {
			return false
		}
		if i, ok = next(b, j); !ok {
			return false
		}
		if b[i-1] == '}' {
			return skipSpace(b, i) == len(b)
		}
	}
}

// record decodes the JSON object b into r, keys in order, then the Hive
// columns, as decodeObject does, and reports whether it did.
func (s *jsonScan) record(b []byte, r *sources.Record, hive dataset.Partition, mem *chunkmem.Memory) bool {
	s.vals = s.vals[:0]
	// While the keys are the last record's, in order, none is there
	// twice; from the first that is not, each is compared with those
	// before it.
	aligned, last := true, len(s.names)-len(hive)
	ok := s.members(b, func(key []byte, i int) (int, bool) {
		if n := len(s.keys); aligned && n < last && s.names[n] == string(key) {
			s.keys = append(s.keys, key)
		} else if aligned = false; !s.fresh(key) {
			return 0, false
		}
		var v any
		switch c := b[i]; {
		case c == '"':
			str, j, ok := s.str(b, i)
			if !ok {
				return 0, false
			}
			s.vals = append(s.vals, mem.BoxString(mem.String(bytesString(str))))
			return j, true
		case c == 't':
			v = true
		case c == 'f':
			v = false
		case c == '{' || c == '[':
			// As decodeObject decodes a value: with encoding/json,
			// numbers as json.Number.
			j, ok := s.skip(b, i)
			if !ok {
				return 0, false
			}
			d := json.NewDecoder(bytes.NewReader(b[i:j]))
			d.UseNumber()
			var nested any // not v, which would then be on the heap for every value
			if d.Decode(&nested) != nil {
				return 0, false
			}
			s.vals = append(s.vals, nested)
			return j, true
		case c != 'n':
			j, _, ok := number(b, i)
			if !ok {
				return 0, false
			}
			s.vals = append(s.vals, mem.BoxStringAs(mem.String(bytesString(b[i:j])), json.Number("")))
			return j, true
		}
		s.vals = append(s.vals, v)
		return literal(b, i)
	})
	if !ok {
		return false
	}
	if !s.sameNames(hive) {
		names := make([]string, 0, len(s.keys)+len(hive))
		for _, k := range s.keys {
			names = append(names, mem.String(bytesString(k)))
		}
		for _, f := range hive {
			names = append(names, f.Name)
		}
		s.names = names
	}
	if len(s.names) == 0 {
		r.Names, r.Values = nil, nil // as decodeObject leaves them
		return true
	}
	r.Names, r.Values = s.names, mem.Values(len(s.names))
	copy(r.Values, s.vals)
	for k, f := range hive {
		r.Values[len(s.vals)+k] = f.RecordValue()
	}
	return true
}

// sameNames reports whether the line's keys and the Hive columns are the
// names of the last record, which the record then shares: a chunk's
// records share their names, as a CSV file's do.
func (s *jsonScan) sameNames(hive dataset.Partition) bool {
	if len(s.names) != len(s.keys)+len(hive) {
		return false
	}
	for k, key := range s.keys {
		if s.names[k] != string(key) {
			return false
		}
	}
	return true
}

// key reads the key of an object member at b[i] and the ':' after it; it
// returns the key and the index of its value. The key must be plain ASCII
// with no escape.
func (s *jsonScan) key(b []byte, i int) ([]byte, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false
	}
	j := i + 1
	for ; j < len(b) && b[j] != '"'; j++ {
		if c := b[j]; c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return nil, 0, false
		}
	}
	if j == len(b) {
		return nil, 0, false
	}
	key := b[i+1 : j]
	j = skipSpace(b, j+1)
	if j == len(b) || b[j] != ':' {
		return nil, 0, false
	}
	j = skipSpace(b, j+1)
	return key, j, j < len(b)
}

// fresh adds key to s.keys and reports whether it was none of them.
func (s *jsonScan) fresh(key []byte) bool {
	if len(s.keys) == maxFastKeys {
		return false
	}
	for _, k := range s.keys {
		if bytes.Equal(k, key) {
			return false
		}
	}
	s.keys = append(s.keys, key)
	return true
}

// maxFastKeys is the most keys of a line the fast path compares a key
// with to find it twice.
const maxFastKeys = 64

// next reads the ',' or '}' after a member's value at b[i] and the space
// around it; it returns the index after them, which after a ',' is a
// key's.
func next(b []byte, i int) (int, bool) {
	i = skipSpace(b, i)
	if i == len(b) {
		return 0, false
	}
	switch b[i] {
	case '}':
		return i + 1, true
	case ',':
		i = skipSpace(b, i+1)
		return i, i < len(b)
	}
	return 0, false
}

// field returns the index of the field that key names, as encoding/json
// matches keys (byte for byte, else ASCII letters in any case: the
// plan's keys differ in more than case), or -1. Keys mostly come in the
// order of the fields, so the search starts at hint.
func (p *jsonPlan) field(key []byte, hint int) int {
	if hint < len(p.fields) && p.fields[hint].name == string(key) {
		return hint
	}
	for k := range p.fields {
		if foldEqual(p.fields[k].name, key) {
			return k
		}
	}
	return -1
}

// foldEqual reports whether the ASCII texts s and b are equal but for the
// case of letters.
func foldEqual(s string, b []byte) bool {
	if len(s) != len(b) {
		return false
	}
	for i := 0; i < len(s); i++ {
		x, y := s[i], b[i]
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y || x < 'a' || x > 'z' {
			return false
		}
	}
	return true
}

// decode decodes the value at b[i] into the field of the struct at base
// and returns the index after it.
func (f *jsonField) decode(s *jsonScan, b []byte, i int, base unsafe.Pointer, mem *chunkmem.Memory) (int, bool) {
	p := unsafe.Add(base, f.off)
	c := b[i]
	if f.kind == jsonOther {
		if f.whole == nil {
			return 0, false
		}
		// encoding/json decodes a field from its value alone as it does
		// in the object, given the same bytes; a value that fails, or
		// has a key twice, is the line's to report.
		j, ok := s.skip(b, i)
		if !ok || json.Unmarshal(b[i:j], reflect.NewAt(f.whole, p).Interface()) != nil {
			return 0, false
		}
		return j, true
	}
	if c == 'n' {
		// null leaves a value as it is and makes a pointer nil.
		j, ok := literal(b, i)
		if !ok || j != i+len("null") {
			return 0, false
		}
		if f.ptr {
			*(*unsafe.Pointer)(p) = nil
		}
		return j, true
	}
	if f.ptr {
		if *(*unsafe.Pointer)(p) != nil {
			return 0, false // encoding/json decodes into what it points to
		}
		q := reflect.New(f.elem).UnsafePointer()
		*(*unsafe.Pointer)(p) = q
		p = q
	}
	switch f.kind {
	case jsonString:
		if c != '"' {
			return 0, false
		}
		str, j, ok := s.str(b, i)
		if !ok {
			return 0, false
		}
		*(*string)(p) = mem.String(bytesString(str))
		return j, true
	case jsonBool:
		j, ok := literal(b, i)
		if !ok || c == 'n' {
			return 0, false
		}
		*(*bool)(p) = c == 't'
		return j, true
	case jsonTime:
		if c != '"' {
			return 0, false
		}
		_, j, ok := s.str(b, i)
		if !ok || (*time.Time)(p).UnmarshalJSON(b[i:j]) != nil {
			return 0, false
		}
		return j, true
	}
	if c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	j, integer, ok := number(b, i)
	if !ok {
		return 0, false
	}
	t := bytesString(b[i:j])
	switch f.kind {
	case jsonInt:
		if !integer {
			return 0, false
		}
		n, ok := textnum.Int(t)
		if !ok {
			var err error
			if n, err = strconv.ParseInt(t, 10, 64); err != nil {
				return 0, false
			}
		}
		return j, f.storeInt(p, uint64(n))
	case jsonUint:
		if !integer || c == '-' {
			return 0, false
		}
		n, err := strconv.ParseUint(t, 10, 64)
		if v, ok := textnum.Int(t); ok {
			n, err = uint64(v), nil
		}
		return j, err == nil && f.storeInt(p, n)
	case jsonFloat:
		if f.size == 4 {
			x, err := strconv.ParseFloat(t, 32)
			*(*float32)(p) = float32(x)
			return j, err == nil
		}
		if x, ok := textnum.Float(t); ok {
			*(*float64)(p) = x
			return j, true
		}
		x, err := strconv.ParseFloat(t, 64)
		*(*float64)(p) = x
		return j, err == nil
	}
	return 0, false
}

// storeInt stores n, a signed integer's bits if f's kind is jsonInt,
// in f's integer at p; it reports false if n does not fit.
func (f *jsonField) storeInt(p unsafe.Pointer, n uint64) bool {
	switch signed := f.kind == jsonInt; {
	case signed && f.size == 1:
		return store[int8](p, int64(n))
	case signed && f.size == 2:
		return store[int16](p, int64(n))
	case signed && f.size == 4:
		return store[int32](p, int64(n))
	case signed:
		return store[int64](p, int64(n))
	case f.size == 1:
		return store[uint8](p, n)
	case f.size == 2:
		return store[uint16](p, n)
	case f.size == 4:
		return store[uint32](p, n)
	}
	return store[uint64](p, n)
}

// store stores n in the I at p; it reports false if n does not fit.
func store[I int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64, N int64 | uint64](p unsafe.Pointer, n N) bool {
	*(*I)(p) = I(n)
	return N(I(n)) == n
}

// skip reads the value at b[i] and returns the index after it. An
// object or an array must be valid JSON with no key twice at any depth.
func (s *jsonScan) skip(b []byte, i int) (int, bool) {
	j, ok := s.valueEnd(b, i)
	if c := b[i]; ok && (c == '{' || c == '[') && (!json.Valid(b[i:j]) || s.nested.check(b[i:j], nil) != nil) {
		return 0, false
	}
	return j, ok
}

// valueEnd returns the index after the JSON value at b[i], if it is one:
// an object or an array ends at the bracket that closes it, strings in it
// read as str reads them, and what is between is left for encoding/json
// to check.
func (s *jsonScan) valueEnd(b []byte, i int) (int, bool) {
	switch c := b[i]; {
	case c == '"':
		_, j, ok := s.str(b, i)
		return j, ok
	case c == 't' || c == 'f' || c == 'n':
		return literal(b, i)
	case c == '{' || c == '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			case '"':
				_, k, ok := s.str(b, j)
				if !ok {
					return 0, false
				}
				j = k - 1
			}
		}
		return 0, false
	}
	j, _, ok := number(b, i)
	return j, ok
}

// literal reads true, false or null at b[i] and returns the index after
// it.
func literal(b []byte, i int) (int, bool) {
	var lit string
	switch b[i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	default:
		lit = "null"
	}
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// number reads the JSON number at b[i] and returns the index after it
// and whether it is an integer (no fraction, no exponent).
func number(b []byte, i int) (end int, integer, ok bool) {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j == len(b):
		return 0, false, false
	case b[j] == '0':
		j++
	case '1' <= b[j] && b[j] <= '9':
		j = digits(b, j+1)
	default:
		return 0, false, false
	}
	integer = true
	if j < len(b) && b[j] == '.' {
		k := digits(b, j+1)
		if k == j+1 {
			return 0, false, false
		}
		j, integer = k, false
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := digits(b, j)
		if k == j {
			return 0, false, false
		}
		j, integer = k, false
	}
	return j, integer, true
}

// digits returns the index of the first byte from b[i] on that is not a
// decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// skipSpace returns the index of the first byte from b[i] on that is not
// JSON's space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// str reads the JSON string at b[i] and returns its text, as
// encoding/json decodes it, and the index after it. The text is b's own
// bytes if the string has no escape and is ASCII, else s.buf: valid until
// the next call.
//
// It looks at eight bytes at a time for the quote that ends the string
// and the bytes that need more: a backslash, a control byte (which JSON
// forbids in a string) or a byte that is not ASCII.
func (s *jsonScan) str(b []byte, i int) ([]byte, int, bool) {
	const qm, bm = ones * '"', ones * '\\'
	j := i + 1
	for ; j+8 <= len(b); j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		// The lowest set bit of each mask marks the first byte it looks
		// for: zeroBytes finds a byte equal to 0, below finds one below
		// 0x20, and a byte from 0x80 has its high bit set.
		below := (w - ones*0x20) &^ w & (ones << 7)
		if m := zeroBytes(w^qm) | zeroBytes(w^bm) | below | w&(ones<<7); m != 0 {
			j += bits.TrailingZeros64(m) >> 3
			break
		}
	}
	for ; j < len(b); j++ {
		c := b[j]
		if c == '"' {
			return b[i+1 : j], j + 1, true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return s.unquote(b, i)
}

// unquote is str for a string with escapes or bytes that are not ASCII:
// it undoes the escapes as encoding/json does (a \u escape of half a
// surrogate pair that has no other half is U+FFFD) and replaces each
// byte that is not UTF-8 with U+FFFD.
func (s *jsonScan) unquote(b []byte, i int) ([]byte, int, bool) {
	buf := s.buf[:0]
	for r := i + 1; r < len(b); {
		switch c := b[r]; {
		case c == '"':
			s.buf = buf
			return buf, r + 1, true
		case c == '\\':
			if r+1 == len(b) {
				return nil, 0, false
			}
			switch e := b[r+1]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				rr := hex4(b, r)
				if rr < 0 {
					return nil, 0, false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, hex4(b, r)); dec != utf8.RuneError {
						r += 6
						buf = utf8.AppendRune(buf, dec)
						continue
					}
					rr = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, rr)
				continue
			default:
				return nil, 0, false
			}
			r += 2
		case c < 0x20:
			return nil, 0, false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			r++
		default:
			rr, size := utf8.DecodeRune(b[r:])
			buf = utf8.AppendRune(buf, rr)
			r += size
		}
	}
	return nil, 0, false
}

// hex4 returns the code of the \u escape at b[i], or -1.
func hex4(b []byte, i int) rune {
	if len(b)-i < 6 || b[i] != '\\' || b[i+1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[i+2 : i+6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// bytesString returns b as a string without a copy: valid while b is.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
