// Package chunkmem gives the values that a source reads for one chunk
// the memory they keep, in blocks that many values share rather than an
// allocation per value: the text of strings, the []any of records and
// lists, and the value that an any holds when it does not fit in the
// interface itself (a string's header, an int64, a float64).
//
// A block is never written again where a part of it was handed out, so
// the values of a chunk sent on stay as they were whatever the source
// reads next, and belong to the chunk's receiver as values allocated one
// by one would; a value kept after its chunk keeps its blocks (a few KiB)
// alive. A Memory is used by one goroutine at a time.
package chunkmem

import (
	"strings"
	"unsafe"
)

// Memory hands out the blocks. The zero Memory is ready to use.
type Memory struct {
	text []byte
	vals []any
	strs []string
	i32  []int32
	i64  []int64
	f64  []float64
	f32  []float32
}

// Block sizes: about 16 KiB each.
const (
	textBlock = 16 << 10
	anyBlock  = 1 << 10
	numBlock  = 2 << 10
)

// String returns a copy of s in the text block. A string of more than a
// quarter of a block gets an allocation of its own.
func (m *Memory) String(s string) string {
	switch {
	case len(s) == 0:
		return ""
	case len(s) > textBlock/4:
		return strings.Clone(s)
	case len(s) > cap(m.text)-len(m.text):
		m.text = make([]byte, 0, textBlock)
	}
	n := len(m.text)
	m.text = append(m.text, s...)
	return unsafe.String(&m.text[n], len(s))
}

// Values returns n values, nil, of the values block: a slice whose
// capacity is n, so that an append to it copies rather than write over
// the next one's.
func (m *Memory) Values(n int) []any {
	if n > cap(m.vals)-len(m.vals) {
		m.vals = make([]any, 0, max(anyBlock, n))
	}
	k := len(m.vals)
	m.vals = m.vals[:k+n]
	return m.vals[k : k+n : k+n]
}

// BoxString returns s as an any, its header in the strings block:
// converting a string to an any allocates the header on its own, which
// for a record of short fields costs as much as reading it. The any is
// what the conversion makes, a pointer to a string header beside its
// type.
func (m *Memory) BoxString(s string) any { return box(&m.strs, s, stringType) }

// BoxStringAs returns s as an any that holds a value of the type of
// like, a type whose underlying type is string (json.Number, say), its
// header in the strings block.
func (m *Memory) BoxStringAs(s string, like any) any { return box(&m.strs, s, typeOf(like)) }

// BoxInt32 returns v as an any (an int32), held in a block.
func (m *Memory) BoxInt32(v int32) any { return box(&m.i32, v, int32Type) }

// BoxUint32 returns v as an any (a uint32), held in a block.
func (m *Memory) BoxUint32(v uint32) any { return box(&m.i32, int32(v), uint32Type) }

// BoxInt64 returns v as an any (an int64), held in a block.
func (m *Memory) BoxInt64(v int64) any { return box(&m.i64, v, int64Type) }

// BoxUint64 returns v as an any (a uint64), held in a block.
func (m *Memory) BoxUint64(v uint64) any { return box(&m.i64, int64(v), uint64Type) }

// BoxFloat64 returns v as an any (a float64), held in a block.
func (m *Memory) BoxFloat64(v float64) any { return box(&m.f64, v, float64Type) }

// BoxFloat32 returns v as an any (a float32), held in a block.
func (m *Memory) BoxFloat32(v float32) any { return box(&m.f32, v, float32Type) }

// box appends v to the block *blk, a new one when it is full, and
// returns an any of type typ that points to it.
func box[T any](blk *[]T, v T, typ unsafe.Pointer) any {
	if len(*blk) == cap(*blk) {
		*blk = make([]T, 0, max(numBlock*8/int(unsafe.Sizeof(v)), anyBlock))
	}
	*blk = append(*blk, v)
	var x any
	e := (*eface)(unsafe.Pointer(&x))
	e.typ, e.data = typ, unsafe.Pointer(&(*blk)[len(*blk)-1])
	return x
}

// eface is the layout of an any: its dynamic type and a pointer to its
// value.
type eface struct {
	typ, data unsafe.Pointer
}

// typeOf returns the type word of v.
func typeOf(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

// The type words of the types that the boxes hold.
var (
	stringType  = typeOf("")
	int32Type   = typeOf(int32(0))
	uint32Type  = typeOf(uint32(0))
	int64Type   = typeOf(int64(0))
	uint64Type  = typeOf(uint64(0))
	float64Type = typeOf(float64(0))
	float32Type = typeOf(float32(0))
)
