package determinism

import (
	"fmt"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"github.com/rowflow/rowflow/rowid"
)

// Appender is implemented by types that give their own encoding. The
// method appends the encoding of the value to b and returns the extended
// slice, like [strconv.AppendInt]; it must not modify b[:len(b)] and must
// append the same bytes for the same value on every machine and in every
// version. Values that count as different must append different bytes.
// The bytes need not be self-delimiting: the digest prefixes them with
// their length.
//
// A type T uses its AppendDigest when *T has the method, whether it is
// declared on T or on *T; it is called through a pointer to the value.
type Appender interface {
	AppendDigest(b []byte) []byte
}

// AppendValue appends the encoding of v (see the package documentation) to
// b and returns the extended slice.
//
// It panics if T has no encoding (see the package documentation), if v
// holds, in an interface, a value whose type cannot be encoded, or if v is
// nested more than 10000 levels deep (which a cycle of pointers, slices or
// maps is).
func AppendValue[T any](b []byte, v T) []byte {
	c := mustCodec[T]()
	s := state{b: b}
	c.enc(&s, unsafe.Pointer(&v))
	return s.b
}

// encodable returns nil if values of type T have an encoding, and
// otherwise an error that names the part of T that has none: a channel,
// function or unsafe.Pointer type anywhere in T, except in a blank (_)
// field, in an array of length 0 or inside a type with an AppendDigest
// method. Values that T holds in interfaces are checked only when they are
// encoded. Every entry point that runs a pipeline calls it first.
func encodable[T any]() error {
	return codecOf(reflect.TypeFor[T]()).err
}

func mustCodec[T any]() *codec {
	c := codecOf(reflect.TypeFor[T]())
	if c.err != nil {
		panic(c.err)
	}
	return c
}

// mayFail reports whether encoding a value of type t, which has an
// encoding, can fail when it runs: when t holds an interface, whose
// value's type is checked as it is encoded, or is recursive, so that a
// value may nest deeper than maxDepth, or holds an Appender, whose
// AppendDigest may call AppendValue on a value that cannot be encoded.
// time.Time and a row ID, encoded by rules of their own, do not descend
// into their parts. path holds the types being walked, to find a
// recursion.
func mayFail(t reflect.Type, path map[reflect.Type]bool) bool {
	switch {
	case hasHook(t):
		return true
	case t == timeType || t == idType:
		return false
	case path[t]:
		return true
	}
	if path == nil {
		path = map[reflect.Type]bool{}
	}
	path[t] = true
	defer delete(path, t)
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return mayFail(t.Elem(), path)
	case reflect.Map:
		return mayFail(t.Key(), path) || mayFail(t.Elem(), path)
	case reflect.Struct:
		for f := range t.Fields() {
			if f.Name != "_" && mayFail(f.Type, path) {
				return true
			}
		}
	}
	return false
}

// maxDepth bounds the nesting of pointers, slices, maps and interfaces in
// one value, so that a cyclic value panics instead of exhausting the stack.
const maxDepth = 10000

// state is the output of one encoding: the bytes so far, the nesting
// depth, and a scratch buffer for Appender values.
type state struct {
	b       []byte
	scratch []byte
	depth   int
}

func (s *state) enter() {
	s.depth++
	if s.depth > maxDepth {
		panic(encodingError{fmt.Errorf("determinism: value nested more than %d levels deep (a cycle?)", maxDepth)})
	}
}

func (s *state) leave() { s.depth-- }

// encoder appends the encoding of the value at p to s.b.
type encoder func(s *state, p unsafe.Pointer)

// codec is the encoding of one type, built once and cached.
type codec struct {
	enc  encoder
	err  error  // non-nil if the type has no encoding
	name string // the type's name in an interface's encoding
}

var (
	codecs  sync.Map   // reflect.Type -> *codec, complete codecs only
	buildMu sync.Mutex // serialises builds, so each type is built once
)

var (
	appenderType = reflect.TypeFor[Appender]()
	timeType     = reflect.TypeFor[time.Time]()
	idType       = reflect.TypeFor[rowid.ID]()
)

// codecOf returns the codec of t, building it and the codecs of the types
// it contains on first use.
func codecOf(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	b := builder{pending: map[reflect.Type]*codec{}}
	c := b.codec(t)
	// Codecs become visible only once complete: an encoder may call
	// the encoder of a type that was still being built when it was made
	// (a recursive type), never one that is still nil.
	for pt, pc := range b.pending {
		pc.err = check(pt)
		pc.name = typeName(pt)
		codecs.Store(pt, pc)
	}
	return c
}

// builder builds the codecs of one type and the types it contains.
type builder struct {
	pending map[reflect.Type]*codec
}

func (b *builder) codec(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	if c, ok := b.pending[t]; ok {
		return c // being built further up: encoders call c.enc only later
	}
	c := &codec{}
	b.pending[t] = c
	c.enc = b.build(t)
	return c
}

// hasHook reports whether values of t are encoded by their AppendDigest.
func hasHook(t reflect.Type) bool {
	k := t.Kind()
	return k != reflect.Pointer && k != reflect.Interface && reflect.PointerTo(t).Implements(appenderType)
}

func (b *builder) build(t reflect.Type) encoder {
	switch {
	case hasHook(t):
		return hookEncoder(t)
	case t == timeType:
		return encodeTime
	case t == idType:
		return encodeID
	}
	if enc := scalarEncoder(t); enc != nil {
		return enc
	}
	switch t.Kind() {
	case reflect.String:
		return encodeString
	case reflect.Slice:
		return b.slice(t)
	case reflect.Array:
		return b.array(t)
	case reflect.Struct:
		return b.structure(t)
	case reflect.Pointer:
		return b.pointer(t)
	case reflect.Map:
		return b.mapping(t)
	case reflect.Interface:
		return encodeInterface(t)
	}
	return func(*state, unsafe.Pointer) {
		panic(encodingError{fmt.Errorf("determinism: values of type %v have no encoding", t)})
	}
}

// check returns the error of encodable for t.
func check(t reflect.Type) error {
	path, bad := findUnencodable(t, "v", map[reflect.Type]bool{})
	if bad == nil {
		return nil
	}
	return fmt.Errorf("determinism: cannot encode values v of type %v: %s has type %v, which has no encoding", t, path, bad)
}

// findUnencodable returns the path to, and the type of, a part of t that
// has no encoding, or a nil type.
func findUnencodable(t reflect.Type, path string, seen map[reflect.Type]bool) (string, reflect.Type) {
	if seen[t] || hasHook(t) || t == timeType {
		return "", nil
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return path, t
	case reflect.Pointer:
		return findUnencodable(t.Elem(), "(*"+path+")", seen)
	case reflect.Slice:
		return findUnencodable(t.Elem(), path+"[i]", seen)
	case reflect.Array:
		if t.Len() > 0 {
			return findUnencodable(t.Elem(), path+"[i]", seen)
		}
	case reflect.Map:
		if p, bad := findUnencodable(t.Key(), "(a key of "+path+")", seen); bad != nil {
			return p, bad
		}
		return findUnencodable(t.Elem(), path+"[k]", seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Name == "_" {
				continue
			}
			if p, bad := findUnencodable(f.Type, path+"."+f.Name, seen); bad != nil {
				return p, bad
			}
		}
	}
	return "", nil
}

// typeName is the name that an interface's encoding gives the type of the
// value it holds.
func typeName(t reflect.Type) string {
	if t.Name() != "" && t.PkgPath() != "" {
		return t.PkgPath() + "." + t.Name()
	}
	return t.String()
}
