package text

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// A JSON object with a key twice is an error, at any depth: encoding/json
// keeps the last value in a struct or a map, and a record built from the
// keys in order would hold both. One rule for every JSON source, as for
// CSV headers: a line with a duplicate key is a bad record.

// keyScan finds duplicate keys in valid JSON. Its buffers are reused from
// line to line.
type keyScan struct {
	stack []openValue
}

// openValue is an object or array being scanned.
type openValue struct {
	object bool
	keys   [][]byte            // the object's keys so far, while few
	set    map[string]struct{} // all its keys, once many
}

// manyKeys is the number of keys from which an object's are kept in a map,
// so that a line of a million keys costs no more than a million lookups.
const manyKeys = 16

// check fails if an object in the valid JSON value b has a key twice,
// comparing keys as encoding/json decodes them. top, if not nil, is called
// with each key of b itself if b is an object.
func (s *keyScan) check(b []byte, top func(key []byte)) error {
	s.stack = s.stack[:0]
	expectKey := false
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			s.push(true)
			expectKey = true
		case '[':
			s.push(false)
		case '}', ']':
			s.stack = s.stack[:len(s.stack)-1]
		case ',':
			expectKey = len(s.stack) > 0 && s.stack[len(s.stack)-1].object
		case '"':
			end := stringEnd(b, i)
			if expectKey {
				key, err := decodeKey(b[i : end+1])
				if err != nil {
					return err
				}
				if !s.stack[len(s.stack)-1].add(key) {
					return fmt.Errorf("duplicate key %q", key)
				}
				if top != nil && len(s.stack) == 1 {
					top(key)
				}
				expectKey = false
			}
			i = end
		}
	}
	return nil
}

func (s *keyScan) push(object bool) {
	if len(s.stack) < cap(s.stack) {
		s.stack = s.stack[:len(s.stack)+1]
		v := &s.stack[len(s.stack)-1]
		v.object, v.keys, v.set = object, v.keys[:0], nil
		return
	}
	s.stack = append(s.stack, openValue{object: object})
}

// add adds key to the object's keys; it reports false if it had it.
func (v *openValue) add(key []byte) bool {
	if v.set != nil {
		n := len(v.set)
		v.set[string(key)] = struct{}{}
		return len(v.set) > n
	}
	for _, k := range v.keys {
		if bytes.Equal(k, key) {
			return false
		}
	}
	v.keys = append(v.keys, key)
	if len(v.keys) == manyKeys {
		v.set = make(map[string]struct{}, 2*manyKeys)
		for _, k := range v.keys {
			v.set[string(k)] = struct{}{}
		}
	}
	return true
}

// stringEnd returns the index of the quote that ends the JSON string
// starting at b[i], in valid JSON.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		q := j + bytes.IndexByte(b[j:], '"')
		k := q
		for k > j && b[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q
		}
		j = q + 1
	}
}

// decodeKey returns the key that the quoted JSON string s decodes to: s
// without its quotes, unless it holds escapes or bytes that are not UTF-8,
// which encoding/json replaces.
func decodeKey(s []byte) ([]byte, error) {
	raw := s[1 : len(s)-1]
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return raw, nil
	}
	var k string
	if err := json.Unmarshal(s, &k); err != nil {
		return nil, err
	}
	return []byte(k), nil
}

// jsonRequired returns the names of the fields of struct type T that a
// JSON line must have a key for: those whose zero value is not told from
// a missing key. A field is optional if it is a pointer, slice, map or
// interface (nil when its key is missing), tagged omitempty (a writer
// leaves its zero value out), embedded, or left out with "-".
func jsonRequired[T any]() []string {
	t := reflect.TypeFor[T]()
	var out []string
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() || sf.Anonymous {
			continue
		}
		name, opts, ok := jsonTag(sf)
		if !ok {
			continue
		}
		switch sf.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			continue
		}
		if hasOption(opts, "omitempty") || hasOption(opts, "omitzero") {
			continue
		}
		out = append(out, name)
	}
	return out
}

// hasOption reports whether the comma-separated tag options opts hold o.
func hasOption(opts, o string) bool {
	for opts != "" {
		var cur string
		cur, opts, _ = strings.Cut(opts, ",")
		if cur == o {
			return true
		}
	}
	return false
}

// fieldKeys tells which of a line's keys name the required fields of a
// file: by name, or, as encoding/json matches them, by name in any case.
type fieldKeys struct {
	names []string // the required fields' keys
	seen  []bool
}

// mark notes that a line has key.
func (f *fieldKeys) mark(key []byte) {
	for i, n := range f.names {
		if string(key) == n {
			f.seen[i] = true
			return
		}
	}
	for i, n := range f.names {
		if bytes.EqualFold(key, []byte(n)) {
			f.seen[i] = true
		}
	}
}

// missing returns the error of a line that lacks a required key, after
// the marks of its keys, and clears the marks for the next line.
func (f *fieldKeys) missing() error {
	var err error
	for i, ok := range f.seen {
		if !ok && err == nil {
			err = fmt.Errorf("no key %q for a field that is not optional (see AllowMissingFields)", f.names[i])
		}
		f.seen[i] = false
	}
	return err
}
