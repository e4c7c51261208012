package determinism_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/operators"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

// fzPt is a padding-free struct: slices of it are encoded as raw memory.
type fzPt struct{ X, Y int32 }

// fzRow holds a field of each kind the encoding treats apart.
type fzRow struct {
	N    int64
	F    float64
	S    string
	Tags []string
	P    *int32
	M    map[string]int
	B    []byte
	Pts  []fzPt
	Any  any
	T    time.Time
}

// fzHook gives its own encoding. A Mode other than 0 makes AppendDigest
// panic, as a user's buggy method would.
type fzHook struct {
	N    uint16
	Mode uint8
}

var errFzHook = errors.New("fzHook: a user's error value, panicked with")

func (h *fzHook) AppendDigest(b []byte) []byte {
	switch h.Mode {
	case 1:
		panic("fzHook: a user's panic")
	case 2:
		panic(errFzHook)
	case 3:
		var p *fzHook
		return append(b, byte(p.N)) // a nil dereference
	}
	return binary.LittleEndian.AppendUint16(append(b, 'h'), h.N)
}

// fzEntry is a row of a source: the ID a SetIDs stage gives it and its value.
type fzEntry[T any] struct {
	ID rowid.ID
	V  T
}

// fzMut plants a change in a value: it returns the value the first
// pipeline has and the one the second has. same says the documentation
// makes them equal (nil and empty slices, NaNs of the same bits, ...).
type fzMut[T any] struct {
	name  string
	same  bool
	apply func(r *rand.Rand, v T) (T, T)
}

// fzKind is a value type with a generator, its encoding written from the
// package documentation, the changes to plant, and the Divergence path
// the documentation gives two values that differ.
type fzKind[T any] struct {
	gen  func(r *rand.Rand) T
	spec func(b []byte, v T) []byte
	muts []fzMut[T]
	path func(x, y T) string
	bump func(v T) T // a change that always shows
}

func specStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func specU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func flipSign(f float64) float64 { return math.Float64frombits(math.Float64bits(f) ^ 1<<63) }

// otherNaN returns a NaN whose bits differ from f's.
func otherNaN(r *rand.Rand, f float64) float64 {
	for {
		n := math.Float64frombits(0x7ff0000000000000 | 1 + r.Uint64N(1<<52-1) | r.Uint64N(2)<<63)
		if math.Float64bits(n) != math.Float64bits(f) {
			return n
		}
	}
}

func genFloat(r *rand.Rand) float64 {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.Float64frombits(0x7ff8000000000000 | r.Uint64N(4))
	case 3:
		return math.Inf(1 - 2*r.IntN(2))
	}
	return float64(r.IntN(5)) / 2
}

func genStr(r *rand.Rand) string {
	if r.IntN(10) == 0 {
		return strings.Repeat("é", 100+r.IntN(20)) // longer than a Divergence prints
	}
	b := make([]byte, r.IntN(4))
	for i := range b {
		b[i] = "ab"[r.IntN(2)]
	}
	return string(b)
}

var (
	fzInt64 = fzKind[int64]{
		gen:  func(r *rand.Rand) int64 { return r.Int64N(5) - 2 },
		spec: func(b []byte, v int64) []byte { return specU64(b, uint64(v)) },
		muts: []fzMut[int64]{
			{name: "flip a bit", apply: func(r *rand.Rand, v int64) (int64, int64) { return v, v ^ 1<<r.IntN(64) }},
		},
		path: func(int64, int64) string { return "" },
		bump: func(v int64) int64 { return ^v },
	}
	fzFloat = fzKind[float64]{
		gen:  genFloat,
		spec: func(b []byte, v float64) []byte { return specU64(b, math.Float64bits(v)) },
		muts: []fzMut[float64]{
			{name: "-0 and +0", apply: func(r *rand.Rand, v float64) (float64, float64) {
				z := math.Copysign(0, float64(1-2*r.IntN(2)))
				return z, flipSign(z)
			}},
			{name: "flip the sign", apply: func(_ *rand.Rand, v float64) (float64, float64) { return v, flipSign(v) }},
			{name: "another NaN payload", apply: func(r *rand.Rand, v float64) (float64, float64) {
				n := otherNaN(r, 0)
				return n, otherNaN(r, n)
			}},
			{name: "the same NaN", same: true, apply: func(r *rand.Rand, v float64) (float64, float64) {
				n := otherNaN(r, 0)
				return n, math.Float64frombits(math.Float64bits(n))
			}},
		},
		path: func(float64, float64) string { return "" },
		bump: flipSign,
	}
	fzString = fzKind[string]{
		gen:  genStr,
		spec: specStr,
		muts: []fzMut[string]{
			{name: "append a byte", apply: func(r *rand.Rand, v string) (string, string) { return v, v + "b" }},
			{name: "another string", apply: func(r *rand.Rand, v string) (string, string) {
				for {
					if w := genStr(r); w != v {
						return v, w
					}
				}
			}},
			{name: "a long string changed inside", apply: func(r *rand.Rand, v string) (string, string) {
				s := strings.Repeat("x", 300)
				i := r.IntN(len(s))
				return s, s[:i] + "y" + s[i+1:]
			}},
		},
		path: func(string, string) string { return "" },
		bump: func(v string) string { return v + "!" },
	}
	fzHooks = fzKind[fzHook]{
		gen: func(r *rand.Rand) fzHook { return fzHook{N: uint16(r.IntN(4))} },
		spec: func(b []byte, v fzHook) []byte {
			return append(binary.AppendUvarint(b, 3), 'h', byte(v.N), byte(v.N>>8))
		},
		muts: []fzMut[fzHook]{
			{name: "another N", apply: func(r *rand.Rand, v fzHook) (fzHook, fzHook) { return v, fzHook{N: v.N + 1} }},
		},
		path: func(fzHook, fzHook) string { return "" },
		bump: func(v fzHook) fzHook { return fzHook{N: ^v.N} },
	}
	fzRows = fzKind[fzRow]{gen: genRow, spec: specRow, muts: rowMuts, path: rowPath,
		bump: func(v fzRow) fzRow { v.N = ^v.N; return v }}
)

func genRow(r *rand.Rand) fzRow {
	var v fzRow
	v.N = r.Int64N(3)
	v.F = genFloat(r)
	v.S = genStr(r)
	if r.IntN(3) > 0 {
		v.Tags = make([]string, r.IntN(3))
		for i := range v.Tags {
			v.Tags[i] = genStr(r)
		}
	}
	if r.IntN(2) == 0 {
		p := int32(r.IntN(3))
		v.P = &p
	}
	if r.IntN(2) == 0 {
		v.M = map[string]int{}
		for range r.IntN(4) {
			v.M[genStr(r)] = r.IntN(3)
		}
	}
	if r.IntN(2) == 0 {
		v.B = []byte(genStr(r))
	}
	for range r.IntN(3) {
		v.Pts = append(v.Pts, fzPt{int32(r.IntN(2)), int32(r.IntN(2))})
	}
	switch r.IntN(5) {
	case 1:
		v.Any = int64(r.IntN(3))
	case 2:
		v.Any = r.IntN(3)
	case 3:
		v.Any = time.Duration(r.IntN(3))
	case 4:
		v.Any = genStr(r)
	}
	v.T = time.Unix(int64(r.IntN(3))-1, int64(r.IntN(2))).UTC()
	return v
}

// anyName is the name the encoding gives the dynamic types genRow puts in Any.
func anyName(v any) string {
	switch v.(type) {
	case int64:
		return "int64"
	case int:
		return "int"
	case time.Duration:
		return "time.Duration"
	case string:
		return "string"
	case *int:
		return "*int"
	}
	panic(fmt.Sprintf("no name for %T", v))
}

func specAny(b []byte, v any) []byte {
	if v == nil {
		return append(b, 0)
	}
	b = specStr(append(b, 1), anyName(v))
	switch x := v.(type) {
	case int64:
		return specU64(b, uint64(x))
	case int:
		return specU64(b, uint64(x))
	case time.Duration:
		return specU64(b, uint64(x))
	case string:
		return specStr(b, x)
	case *int:
		if x == nil {
			return append(b, 0)
		}
		return specU64(append(b, 1), uint64(*x))
	}
	panic("unreachable")
}

func specTags(b []byte, tags []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(tags)))
	for _, s := range tags {
		b = specStr(b, s)
	}
	return b
}

func specPtr(b []byte, p *int32) []byte {
	if p == nil {
		return append(b, 0)
	}
	return binary.LittleEndian.AppendUint32(append(b, 1), uint32(*p))
}

func specMap(b []byte, m map[string]int) []byte {
	var entries [][]byte
	for k, v := range m {
		entries = append(entries, specU64(specStr(nil, k), uint64(v)))
	}
	slices.SortFunc(entries, bytes.Compare)
	b = binary.AppendUvarint(b, uint64(len(m)))
	for _, e := range entries {
		b = append(b, e...)
	}
	return b
}

func specPt(b []byte, p fzPt) []byte {
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b, uint32(p.X)), uint32(p.Y))
}

func specPts(b []byte, pts []fzPt) []byte {
	b = binary.AppendUvarint(b, uint64(len(pts)))
	for _, p := range pts {
		b = specPt(b, p)
	}
	return b
}

func specTime(b []byte, t time.Time) []byte {
	return binary.LittleEndian.AppendUint32(specU64(b, uint64(t.Unix())), uint32(t.Nanosecond()))
}

// rowFields is the encoding of each field of v, in declaration order.
func rowFields(v fzRow) [][]byte {
	return [][]byte{
		specU64(nil, uint64(v.N)),
		specU64(nil, math.Float64bits(v.F)),
		specStr(nil, v.S),
		specTags(nil, v.Tags),
		specPtr(nil, v.P),
		specMap(nil, v.M),
		specStr(nil, string(v.B)),
		specPts(nil, v.Pts),
		specAny(nil, v.Any),
		specTime(nil, v.T),
	}
}

func specRow(b []byte, v fzRow) []byte {
	for _, f := range rowFields(v) {
		b = append(b, f...)
	}
	return b
}

// elemPath is the path to the first differing element of two sequences.
func elemPath(field string, na, nb int, differ func(i int) string) string {
	for i := range min(na, nb) {
		if p := differ(i); p != "" {
			return fmt.Sprintf("%s[%d]%s", field, i, strings.TrimPrefix(p, "."))
		}
	}
	return "len(" + field + ")"
}

// rowPath is the path the documentation gives the first difference of two
// rows that differ: the first field, in declaration order, whose encoding
// differs, then the element of a slice or the field of an element;
// pointers, maps and times are compared whole.
func rowPath(x, y fzRow) string {
	fx, fy := rowFields(x), rowFields(y)
	names := []string{".N", ".F", ".S", ".Tags", ".P", ".M", ".B", ".Pts", ".Any", ".T"}
	for i := range fx {
		if bytes.Equal(fx[i], fy[i]) {
			continue
		}
		switch names[i] {
		case ".Tags":
			return elemPath(".Tags", len(x.Tags), len(y.Tags), func(j int) string {
				if x.Tags[j] != y.Tags[j] {
					return "."
				}
				return ""
			})
		case ".B":
			return elemPath(".B", len(x.B), len(y.B), func(j int) string {
				if x.B[j] != y.B[j] {
					return "."
				}
				return ""
			})
		case ".Pts":
			return elemPath(".Pts", len(x.Pts), len(y.Pts), func(j int) string {
				switch {
				case x.Pts[j].X != y.Pts[j].X:
					return "..X"
				case x.Pts[j].Y != y.Pts[j].Y:
					return "..Y"
				}
				return ""
			})
		case ".Any":
			if x.Any != nil && y.Any != nil && anyName(x.Any) == anyName(y.Any) {
				return ".Any.(" + anyName(x.Any) + ")"
			}
		}
		return names[i]
	}
	return ""
}

// cloneRow copies the memory a row refers to, so that a planted change
// never reaches the other pipeline's row.
func cloneRow(v fzRow) fzRow {
	if v.Tags != nil {
		v.Tags = slices.Clone(v.Tags)
	}
	if v.P != nil {
		p := *v.P
		v.P = &p
	}
	if v.M != nil {
		m := make(map[string]int, len(v.M))
		for k, x := range v.M {
			m[k] = x
		}
		v.M = m
	}
	if v.B != nil {
		v.B = slices.Clone(v.B)
	}
	if v.Pts != nil {
		v.Pts = slices.Clone(v.Pts)
	}
	return v
}

var rowMuts = []fzMut[fzRow]{
	{name: "N", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) { w := cloneRow(v); w.N ^= 1 << r.IntN(64); return v, w }},
	{name: "F -0 and +0", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.F = math.Copysign(0, float64(1-2*r.IntN(2)))
		w := cloneRow(v)
		w.F = flipSign(v.F)
		return v, w
	}},
	{name: "F NaN payload", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.F = otherNaN(r, 0)
		w := cloneRow(v)
		w.F = otherNaN(r, v.F)
		return v, w
	}},
	{name: "F the same NaN", same: true, apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.F = otherNaN(r, 0)
		w := cloneRow(v)
		w.F = math.Float64frombits(math.Float64bits(v.F))
		return v, w
	}},
	{name: "S", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) { w := cloneRow(v); w.S += "a"; return v, w }},
	{name: "Tags nil and empty", same: true, apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.Tags = nil
		w := cloneRow(v)
		w.Tags = []string{}
		if r.IntN(2) == 0 {
			return w, v
		}
		return v, w
	}},
	{name: "Tags joined", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.Tags = []string{"a", "b"}
		w := cloneRow(v)
		w.Tags = []string{"ab"}
		return v, w
	}},
	{name: "Tags longer", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) { w := cloneRow(v); w.Tags = append(w.Tags, ""); return v, w }},
	{name: "Tags element", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.Tags = append(slices.Clone(v.Tags), "a")
		w := cloneRow(v)
		w.Tags[r.IntN(len(w.Tags))] += "b"
		return v, w
	}},
	{name: "P nil and a pointer to 0", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.P = nil
		w := cloneRow(v)
		w.P = new(int32)
		return v, w
	}},
	{name: "P another pointer to the same value", same: true, apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		if v.P == nil {
			v.P = new(int32)
		}
		return v, cloneRow(v)
	}},
	{name: "P pointee", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		if v.P == nil {
			v.P = new(int32)
		}
		w := cloneRow(v)
		*w.P++
		return v, w
	}},
	{name: "M nil and empty", same: true, apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.M = nil
		w := cloneRow(v)
		w.M = map[string]int{}
		return v, w
	}},
	{name: "M another insertion order", same: true, apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		keys := []string{"", "a", "b", "ab", "ba", "bb", "aaa"}
		v.M = map[string]int{}
		for _, k := range keys {
			v.M[k] = len(k)
		}
		w := cloneRow(v)
		w.M = map[string]int{}
		for _, i := range r.Perm(len(keys)) {
			w.M[keys[i]] = len(keys[i])
		}
		return v, w
	}},
	{name: "M entry", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		w := cloneRow(v)
		if w.M == nil {
			w.M = map[string]int{}
		}
		w.M["zz"]++
		return v, w
	}},
	{name: "B nil and empty", same: true, apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.B = nil
		w := cloneRow(v)
		w.B = []byte{}
		return v, w
	}},
	{name: "B byte", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.B = []byte("abc")
		w := cloneRow(v)
		w.B[r.IntN(3)] = 'z'
		return v, w
	}},
	{name: "Pts element", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.Pts = append(slices.Clone(v.Pts), fzPt{})
		w := cloneRow(v)
		i := r.IntN(len(w.Pts))
		if r.IntN(2) == 0 {
			w.Pts[i].X++
		} else {
			w.Pts[i].Y--
		}
		return v, w
	}},
	{name: "Any int64 and int", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.Any = int64(7)
		w := cloneRow(v)
		w.Any = 7
		return v, w
	}},
	{name: "Any nil and a nil *int", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.Any = nil
		w := cloneRow(v)
		w.Any = (*int)(nil)
		return v, w
	}},
	{name: "Any value", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		v.Any = time.Duration(3)
		w := cloneRow(v)
		w.Any = time.Duration(4)
		return v, w
	}},
	{name: "T another location", same: true, apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		w := cloneRow(v)
		w.T = v.T.In(time.FixedZone("fz", 3600*(1+r.IntN(5))))
		return v, w
	}},
	{name: "T a nanosecond later", apply: func(r *rand.Rand, v fzRow) (fzRow, fzRow) {
		w := cloneRow(v)
		w.T = v.T.Add(time.Nanosecond)
		return v, w
	}},
}

// fzCfg is how a pipeline reads its rows: partition and chunk sizes and
// the parallelism of its two stages (0: no stage).
type fzCfg struct {
	part, chunk int
	p1, p2      int
	epochs      int  // how many times the source is read
	take        int  // the number of items a Take stage lets through, or -1
	ordinal     bool // keep the source's own IDs: no SetIDs stage
}

func drawCfg(r *rand.Rand) fzCfg {
	return fzCfg{part: 1 + r.IntN(9), chunk: 1 + r.IntN(6), p1: r.IntN(4), p2: 1 + r.IntN(3), epochs: 1, take: -1}
}

const fzSource = "fz"

func fzOrdinal(i int) rowid.ID { return rowid.Ordinal(uint64(i)).Combine(rowid.FromString(fzSource)) }

// fzPipeline reads entries through an identity Map, SetIDs (unless the
// IDs are the source's) and a Map to the values, with change applied to
// each value on the way.
func fzPipeline[T any](entries []fzEntry[T], c fzCfg, change func(T) T) *flow.Pipeline {
	p := flow.From(sources.Slice(entries, sources.PartitionItems(c.part), sources.ChunkSize(c.chunk), sources.Named(fzSource)))
	if c.epochs > 1 {
		p = p.Epochs(int64(c.epochs))
	}
	if c.p1 > 0 {
		p = p.Via(operators.Map(func(e fzEntry[T]) (fzEntry[T], error) { return e, nil })).Parallel(c.p1)
	}
	if !c.ordinal {
		p = p.Via(operators.SetIDs(func(e fzEntry[T]) rowid.ID { return e.ID }))
	}
	p = p.Via(operators.Map(func(e fzEntry[T]) (T, error) {
		if change != nil {
			return change(e.V), nil
		}
		return e.V, nil
	})).Parallel(c.p2)
	if c.take >= 0 {
		p = p.Via(operators.Take[T](int64(c.take)))
	}
	return p
}

// FuzzDivergence draws rows of one of five value types (int64, float64,
// string, a struct of slices, pointers, a map, an interface and a time,
// and a type with its own AppendDigest), a pipeline a that reads them
// through parallel stages with random partition and chunk sizes, and a
// pipeline b that reads the same rows, with other chunk sizes and
// parallelisms, except for one planted difference: a value changed at
// row k (a change the documented encoding must notice, or one it must
// not: nil and empty, NaNs of the same bits, a time in another location),
// a row ID changed, two rows swapped, a row dropped, added or duplicated,
// at the start, middle or end, another partition size, the stream cut
// short by a Take (in any epoch, when the source is read several times),
// or nothing; and either way round.
//
// The oracle is the two expected streams, built from the rows and the
// planted difference, with values compared by an encoding written in the
// test from the package documentation. Compare and Bisect must report
// the first differing position, its items and the path to the differing
// field; CompareByID the smallest differing row ID; SumOf and Hasher the
// documented SHA-256 of each stream; CheckGolden must accept a and name
// b's first differing partition and row; Verify must pass on a and, on a
// copy of a whose Map changes the item that arrives k-th (a counter
// shared by the Map's workers) at one parallelism, name that parallelism.
// A panic in a user's AppendDigest must reach the caller of every
// function unchanged, never as a returned error.
func FuzzDivergence(f *testing.F) {
	for kind := range uint8(5) {
		for plant := range uint8(18) {
			f.Add(uint64(kind)*31+uint64(plant), kind, plant, plant%3)
		}
	}
	for i := range len(fzFloat.muts) {
		f.Add(uint64(i), uint8(1), uint8(1), uint8(3*i+1))
	}
	for i := range len(rowMuts) {
		f.Add(uint64(i), uint8(3), uint8(1), uint8(3*i+i%3))
	}
	// A row added at the end of each of 3 epochs: Bisect resumed both
	// streams in the epoch of the first one's differing partition.
	f.Add(uint64(244), uint8(1), uint8(5), uint8(2))
	f.Add(uint64(7), uint8(5), uint8(0), uint8(1)) // a user's panic in AppendDigest
	f.Add(uint64(8), uint8(5), uint8(0), uint8(2))
	f.Add(uint64(9), uint8(5), uint8(0), uint8(3))
	f.Fuzz(func(t *testing.T, seed uint64, kind, plant, where uint8) {
		r := rand.New(rand.NewPCG(seed, uint64(kind)<<16|uint64(plant)<<8|uint64(where)))
		switch kind % 6 {
		case 0:
			fuzzDivergence(t, r, fzInt64, plant, where)
		case 1:
			fuzzDivergence(t, r, fzFloat, plant, where)
		case 2:
			fuzzDivergence(t, r, fzString, plant, where)
		case 3:
			fuzzDivergence(t, r, fzRows, plant, where)
		case 4:
			fuzzDivergence(t, r, fzHooks, plant, where)
		case 5:
			fuzzUserPanic(t, r, where)
		}
	})
}

func fuzzDivergence[T any](t *testing.T, r *rand.Rand, kind fzKind[T], plant, where uint8) {
	ctx := context.Background()
	n := r.IntN(30)
	if r.IntN(8) == 0 {
		n = 0
	}
	ordinal := r.IntN(2) == 0
	seen := map[rowid.ID]bool{}
	freshID := func() rowid.ID {
		for {
			id := rowid.ID{Hi: r.Uint64N(4), Lo: r.Uint64N(64)}
			if !seen[id] {
				seen[id] = true
				return id
			}
		}
	}
	ea := make([]fzEntry[T], n)
	for i := range ea {
		id := fzOrdinal(i)
		if ordinal {
			seen[id] = true
		} else {
			id = freshID()
		}
		ea[i] = fzEntry[T]{ID: id, V: kind.gen(r)}
	}
	ca, cb := drawCfg(r), drawCfg(r)
	cb.part = ca.part // the partitions differ only where planted
	if r.IntN(3) == 0 {
		ca.epochs = 2 + r.IntN(2)
	}
	cb.epochs = ca.epochs
	ca.ordinal = ordinal && r.IntN(2) == 0
	pos := func(ext int) int { // the row where the change goes, among n+ext
		m := n + ext
		switch where % 3 {
		case 0:
			return 0
		case 1:
			return r.IntN(max(m, 1))
		}
		return max(m-1, 0)
	}

	// Plant the difference, and say where the streams must first differ
	// (-1: nowhere, -2: not known in advance).
	var eb []fzEntry[T]
	var what string
	want := -2
	switch plant % 9 {
	case 0:
		what, want = "nothing", -1
	case 1:
		if n == 0 {
			what, want = "nothing (no row to change)", -1
			break
		}
		k := pos(0)
		m := kind.muts[int(where/3)%len(kind.muts)]
		x, y := m.apply(r, ea[k].V)
		ea[k].V = x
		eb = slices.Clone(ea)
		eb[k].V = y
		what, want = fmt.Sprintf("value of row %d: %s", k, m.name), k
		if m.same {
			want = -1
		}
		// The oracle's encoding agrees with what the documentation says
		// of the change.
		if same := bytes.Equal(kind.spec(nil, x), kind.spec(nil, y)); same != m.same {
			t.Fatalf("the change %q of %+v to %+v: equal encodings %v, want %v", m.name, x, y, same, m.same)
		}
	case 2:
		if n == 0 {
			what, want = "nothing (no row to change)", -1
			break
		}
		k := pos(0)
		eb = slices.Clone(ea)
		eb[k].ID = freshID()
		what, want = fmt.Sprintf("ID of row %d", k), k
	case 3:
		if n < 2 {
			what, want = "nothing (no rows to swap)", -1
			break
		}
		k := min(pos(0), n-2)
		j := k + 1 + r.IntN(n-k-1)
		eb = slices.Clone(ea)
		eb[k], eb[j] = eb[j], eb[k]
		what, want = fmt.Sprintf("rows %d and %d swapped", k, j), k
	case 4:
		if n == 0 {
			what, want = "nothing (no row to drop)", -1
			break
		}
		k := pos(0)
		eb = slices.Delete(slices.Clone(ea), k, k+1)
		what, want = fmt.Sprintf("row %d dropped", k), k
	case 5:
		k := pos(1)
		eb = slices.Insert(slices.Clone(ea), k, fzEntry[T]{ID: freshID(), V: kind.gen(r)})
		what, want = fmt.Sprintf("a row added at %d", k), k
	case 6:
		if n == 0 {
			what, want = "nothing (no row to duplicate)", -1
			break
		}
		k, j := pos(1), r.IntN(n)
		eb = slices.Insert(slices.Clone(ea), k, ea[j])
		what = fmt.Sprintf("row %d duplicated at %d", j, k)
	case 7:
		for cb.part == ca.part {
			cb.part = 1 + r.IntN(9)
		}
		what = fmt.Sprintf("partitions of %d rows instead of %d", cb.part, ca.part)
		if want = min(ca.part, cb.part); want >= n {
			want = -1
		}
	case 8:
		total := n * ca.epochs
		cb.take = pos(0) + r.IntN(ca.epochs)*n // a cut in any epoch
		what = fmt.Sprintf("the stream cut after %d of its %d items", cb.take, total)
		if want = cb.take; want >= total {
			want = -1
		}
	}
	if eb == nil {
		eb = slices.Clone(ea)
	}
	if ordinal && !ca.ordinal && plant%9 == 0 {
		cb.ordinal = true // both read the source's own IDs
	}
	if plant/9%2 != 0 {
		// The difference the other way: a row missing from a, the
		// second value in a, ...
		ea, eb, ca, cb = eb, ea, cb, ca
		what += ", with a and b swapped"
	}
	t.Logf("%d rows, a %+v, b %+v; planted: %s", n, ca, cb, what)

	items := func(es []fzEntry[T], c fzCfg) []flow.Item[T] {
		var out []flow.Item[T]
		for ep := range c.epochs {
			for i, e := range es {
				// A run carries the epoch in the high 32 bits of the
				// partition number (see flow's Epochs).
				out = append(out, flow.Item[T]{Part: int64(ep)<<32 | int64(i/c.part), ID: e.ID, Value: e.V})
			}
		}
		if c.take >= 0 && c.take < len(out) {
			out = out[:c.take]
		}
		return out
	}
	A, B := items(ea, ca), items(eb, cb)
	enc := func(v T) []byte { return kind.spec(nil, v) }
	eq := func(x, y T) bool { return bytes.Equal(enc(x), enc(y)) }

	// The first position where the streams differ.
	first := -1
	for i := range max(len(A), len(B)) {
		if i >= len(A) || i >= len(B) || A[i].Part != B[i].Part || A[i].ID != B[i].ID || !eq(A[i].Value, B[i].Value) {
			first = i
			break
		}
	}
	if want != -2 && first != want {
		t.Fatalf("the oracle puts the first difference at %d, the planted change at %d", first, want)
	}

	a := func() *flow.Pipeline { return fzPipeline(ea, ca, nil) }
	b := func() *flow.Pipeline { return fzPipeline(eb, cb, nil) }
	checkDivergenceAt(t, "Compare", determinism.Compare[T](ctx, a(), b()), A, B, first, eq, kind.path)
	checkDivergenceAt(t, "Bisect", determinism.Bisect[T](ctx, a(), b()), A, B, first, eq, kind.path)
	checkByID(t, determinism.CompareByID[T](ctx, a(), b()), A, B, eq, kind.path)
	checkSums(t, a(), b(), A, B, kind.spec)
	checkGolden(t, a, b, ca, A, B, kind.spec, eq)
	whole := ca
	whole.take = -1
	checkVerify(t, r, ea, ca, items(ea, whole), kind, eq)
}

// checkDivergenceAt checks err, from Compare or Bisect, against the first
// differing position of A and B.
func checkDivergenceAt[T any](t *testing.T, fn string, err error, A, B []flow.Item[T], first int, eq func(x, y T) bool, path func(x, y T) string) {
	t.Helper()
	if first < 0 {
		if err != nil {
			t.Fatalf("%s of equal streams: %v", fn, err)
		}
		return
	}
	var d *determinism.Divergence
	if !errors.As(err, &d) {
		t.Fatalf("%s = %v, want a *Divergence at item %d", fn, err, first)
	}
	if d.Position != int64(first) || d.Parallelism != 0 || d.Round != 0 {
		t.Fatalf("%s: divergence at item %d (parallelism %d, round %d), want item %d:\n%v", fn, d.Position, d.Parallelism, d.Round, first, d)
	}
	obs := func(side string, o determinism.Observation, s []flow.Item[T]) {
		t.Helper()
		if first >= len(s) {
			if !o.Ended {
				t.Fatalf("%s: the %s stream has ended, the divergence says %v", fn, side, o)
			}
			return
		}
		v, ok := o.Value.(T)
		if o.Ended || !ok || o.Part != s[first].Part || o.ID != s[first].ID || !eq(v, s[first].Value) {
			t.Fatalf("%s: the %s stream has partition %d, row %v, value %+v; the divergence says %v",
				fn, side, s[first].Part, s[first].ID, s[first].Value, o)
		}
	}
	obs("first", d.Reference, A)
	obs("second", d.Candidate, B)
	msg := d.Error()
	var wantPath, wantMsg string
	switch {
	case first >= len(B):
		wantMsg = fmt.Sprintf("determinism: the second pipeline ended early, after %d items; the first pipeline has item %d: ", first, first)
	case first >= len(A):
		wantMsg = fmt.Sprintf("determinism: the second pipeline has an extra item %d after the first pipeline ended with %d items: ", first, first)
	default:
		var f []string
		if A[first].Part != B[first].Part {
			f = append(f, "partition")
		}
		if A[first].ID != B[first].ID {
			f = append(f, "row ID")
		}
		if !eq(A[first].Value, B[first].Value) {
			f = append(f, "value")
			wantPath = path(A[first].Value, B[first].Value)
		}
		wantMsg = fmt.Sprintf("determinism: item %d differs (%s): the first pipeline has partition %d, row %v, value ",
			first, strings.Join(f, ", "), A[first].Part, A[first].ID)
		if wantPath != "" && !strings.Contains(msg, "; the values first differ at "+wantPath+": ") {
			t.Errorf("%s: message %q does not name the path %s", fn, msg, wantPath)
		}
	}
	if d.Path != wantPath {
		t.Errorf("%s: path %q, want %q:\n%v", fn, d.Path, wantPath, d)
	}
	if !strings.HasPrefix(msg, wantMsg) {
		t.Errorf("%s: message\n%s\nwant it to begin\n%s", fn, msg, wantMsg)
	}
}

// checkByID checks CompareByID's error against the rows of A and B
// matched by ID, as its documentation describes.
func checkByID[T any](t *testing.T, err error, A, B []flow.Item[T], eq func(x, y T) bool, path func(x, y T) string) {
	t.Helper()
	at := func(s []flow.Item[T], id rowid.ID) []int {
		var out []int
		for i, it := range s {
			if it.ID == id {
				out = append(out, i)
			}
		}
		return out
	}
	var idSet []rowid.ID
	for _, it := range slices.Concat(A, B) {
		idSet = append(idSet, it.ID)
	}
	slices.SortFunc(idSet, rowid.ID.Compare)
	idSet = slices.Compact(idSet)
	type side struct {
		ended bool
		at    int
	}
	var want *struct {
		id            rowid.ID
		first, second side
		dup           bool
		path          string
	}
	for _, id := range idSet {
		ia, ib := at(A, id), at(B, id)
		w := &struct {
			id            rowid.ID
			first, second side
			dup           bool
			path          string
		}{id: id}
		switch {
		case len(ia) == 0:
			w.first.ended, w.second.at = true, ib[0]
		case len(ib) == 0:
			w.second.ended, w.first.at = true, ia[0]
		case len(ia) > 1:
			w.dup, w.first.at, w.second.ended = true, ia[1], true
		case len(ib) > 1:
			w.dup, w.second.at, w.first.ended = true, ib[1], true
		case !eq(A[ia[0]].Value, B[ib[0]].Value):
			w.first.at, w.second.at = ia[0], ib[0]
			w.path = path(A[ia[0]].Value, B[ib[0]].Value)
		default:
			continue
		}
		want = w
		break
	}
	if want == nil {
		if err != nil {
			t.Fatalf("CompareByID of the same rows: %v", err)
		}
		return
	}
	var d *determinism.RowDifference
	if !errors.As(err, &d) {
		t.Fatalf("CompareByID = %v, want a *RowDifference for row %v", err, want.id)
	}
	check := func(name string, o determinism.Observation, sd side, s []flow.Item[T]) {
		t.Helper()
		if sd.ended {
			if !o.Ended {
				t.Fatalf("CompareByID: %s side %v, want it marked ended:\n%v", name, o, d)
			}
			return
		}
		it := s[sd.at]
		v, ok := o.Value.(T)
		if o.Ended || !ok || o.Part != it.Part || o.ID != it.ID || !eq(v, it.Value) {
			t.Fatalf("CompareByID: %s side %v, want partition %d, row %v, value %+v", name, o, it.Part, it.ID, it.Value)
		}
	}
	if d.ID != want.id || d.Duplicate != want.dup || d.Path != want.path {
		t.Fatalf("CompareByID: row %v (duplicate %v, path %q), want row %v (duplicate %v, path %q):\n%v",
			d.ID, d.Duplicate, d.Path, want.id, want.dup, want.path, d)
	}
	check("first", d.First, want.first, A)
	check("second", d.Second, want.second, B)
	msg := d.Error()
	var wantMsg string
	switch {
	case want.dup && !want.first.ended:
		wantMsg = fmt.Sprintf("determinism: row %v appears twice in the first pipeline: ", want.id)
	case want.dup:
		wantMsg = fmt.Sprintf("determinism: row %v appears twice in the second pipeline: ", want.id)
	case want.second.ended:
		wantMsg = fmt.Sprintf("determinism: row %v is only in the first pipeline: ", want.id)
	case want.first.ended:
		wantMsg = fmt.Sprintf("determinism: row %v is only in the second pipeline: ", want.id)
	default:
		wantMsg = fmt.Sprintf("determinism: row %v differs: the first pipeline has partition %d, row %v",
			want.id, A[want.first.at].Part, want.id)
	}
	if !strings.HasPrefix(msg, wantMsg) {
		t.Fatalf("CompareByID: message\n%s\nwant it to begin\n%s", msg, wantMsg)
	}
}

const fzHeader = "rowflow digest v1\n"

// specItem is the documented encoding of an item: its row ID, Lo then
// Hi, then its value.
func specItem[T any](b []byte, it flow.Item[T], spec func([]byte, T) []byte) []byte {
	return spec(specU64(specU64(b, it.ID.Lo), it.ID.Hi), it.Value)
}

// specSum is the documented digest of a stream.
func specSum[T any](s []flow.Item[T], spec func([]byte, T) []byte) determinism.Sum {
	b := []byte(fzHeader)
	for _, it := range s {
		b = specItem(b, it, spec)
	}
	return determinism.Sum{Hash: sha256.Sum256(b), Count: int64(len(s))}
}

// checkSums checks SumOf and Hasher against the documented digests of A
// and B, which are equal exactly when the streams have the same IDs and
// values in the same order, whatever their partitions.
func checkSums[T any](t *testing.T, a, b *flow.Pipeline, A, B []flow.Item[T], spec func([]byte, T) []byte) {
	t.Helper()
	ctx := context.Background()
	wa, wb := specSum(A, spec), specSum(B, spec)
	sa, err := determinism.SumOf[T](ctx, a)
	if err != nil || sa != wa {
		t.Fatalf("SumOf(a) = %v (%d items), %v; want %v (%d items)", sa, sa.Count, err, wa, wa.Count)
	}
	sb, err := determinism.SumOf[T](ctx, b)
	if err != nil || sb != wb {
		t.Fatalf("SumOf(b) = %v (%d items), %v; want %v (%d items)", sb, sb.Count, err, wb, wb.Count)
	}
	equal := len(A) == len(B)
	for i := range min(len(A), len(B)) {
		equal = equal && A[i].ID == B[i].ID && bytes.Equal(spec(nil, A[i].Value), spec(nil, B[i].Value))
	}
	if (sa == sb) != equal {
		t.Fatalf("SumOf: a %v, b %v; the streams are equal: %v", sa, sb, equal)
	}

	// A Hasher fed item by item, with a Sum in the middle, and one fed
	// chunks that straddle partitions.
	h := determinism.NewHasher[T]()
	for i, it := range B {
		if i == len(B)/2 {
			if got, want := h.Sum(), specSum(B[:i], spec); got != want {
				t.Fatalf("Hasher.Sum after %d items = %v, want %v", i, got, want)
			}
		}
		if err := h.Add(it.ID, it.Value); err != nil {
			t.Fatalf("Hasher.Add of b's item %d: %v", i, err)
		}
	}
	if got := h.Sum(); got != wb || got.Count != int64(len(B)) {
		t.Fatalf("Hasher of b's items = %v (count %d), want %v", got, got.Count, wb)
	}
	determinism.ResetHasher(h)
	for lo := 0; lo < len(A); lo += 4 {
		hi := min(lo+4, len(A))
		c := flow.Chunk[T]{Part: int64(lo)}
		ids := []rowid.ID{}
		for _, it := range A[lo:hi] {
			ids = append(ids, it.ID)
			c.Values = append(c.Values, it.Value)
		}
		c.IDs = flow.ListIDs(ids)
		if err := determinism.AddChunk(h, &c); err != nil {
			t.Fatal(err)
		}
	}
	if got := h.Sum(); got != wa {
		t.Fatalf("Hasher of a's chunks = %v, want %v", got, wa)
	}
}

// checkGolden records a's golden file, checks a against it with other
// chunk sizes and parallelisms, and checks b, whose first differing
// partition and row the error must name.
func checkGolden[T any](t *testing.T, a, b func() *flow.Pipeline, ca fzCfg, A, B []flow.Item[T], spec func([]byte, T) []byte, eq func(x, y T) bool) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "fz.golden")
	if err := determinism.CheckGolden[T](ctx, a(), path, true); err != nil {
		t.Fatal(err)
	}
	if err := determinism.CheckGolden[T](ctx, a(), path, false); err != nil {
		t.Fatalf("CheckGolden of the recorded pipeline: %v", err)
	}
	type group struct {
		part  int64
		items []flow.Item[T]
	}
	groups := func(s []flow.Item[T]) []group {
		var out []group
		for _, it := range s {
			if len(out) == 0 || out[len(out)-1].part != it.Part {
				out = append(out, group{part: it.Part})
			}
			out[len(out)-1].items = append(out[len(out)-1].items, it)
		}
		return out
	}
	short := func(items []flow.Item[T]) string {
		s := specSum(items, spec)
		return hex.EncodeToString(s.Hash[:8])
	}
	itemDigest := func(it flow.Item[T]) string {
		s := sha256.Sum256(specItem(nil, it, spec))
		return hex.EncodeToString(s[:8])
	}
	sameItem := func(x, y flow.Item[T]) bool { return x.ID == y.ID && eq(x.Value, y.Value) }
	ga, gb := groups(A), groups(B)
	k, start := 0, 0
	for k < len(ga) && k < len(gb) && ga[k].part == gb[k].part && slices.EqualFunc(ga[k].items, gb[k].items, sameItem) {
		start += len(ga[k].items)
		k++
	}
	err := determinism.CheckGolden[T](ctx, b(), path, false)
	var want string
	switch {
	case k == len(ga) && k == len(gb):
		if err != nil {
			t.Fatalf("CheckGolden of an equal stream: %v", err)
		}
		return
	case k == len(ga):
		want = fmt.Sprintf(": the run has partition %d (part %d, %d items, from item %d) after the %d partitions the file records",
			k, gb[k].part, len(gb[k].items), start, len(ga))
	case k == len(gb):
		want = fmt.Sprintf(": the run ended after %d partitions (%d items); the file records partition %d: part %d, %d items, digest %s",
			k, start, k, ga[k].part, len(ga[k].items), short(ga[k].items))
	default:
		w, g := ga[k].items, gb[k].items
		want = fmt.Sprintf(": partition %d differs: the file records part %d, %d items, digest %s; the run has part %d, %d items, digest %s",
			k, ga[k].part, len(w), short(w), gb[k].part, len(g), short(g))
		i := 0
		for i < len(w) && i < len(g) && sameItem(w[i], g[i]) {
			i++
		}
		switch {
		case i < len(w) && i < len(g):
			want += fmt.Sprintf("; item %d (%d of the partition) differs: the file records row %v, item digest %s; the run has row %v, item digest %s, value ",
				start+i, i, w[i].ID, itemDigest(w[i]), g[i].ID, itemDigest(g[i]))
		case i < len(w):
			want += fmt.Sprintf("; the run's partition ends after %d items, where the file records item %d: row %v", i, start+i, w[i].ID)
		case i < len(g):
			want += fmt.Sprintf("; the run has an extra item %d (%d of the partition): row %v, value ", start+i, i, g[i].ID)
		}
	}
	if !errors.Is(err, determinism.ErrMismatch) || !strings.Contains(err.Error(), path+want) {
		t.Fatalf("CheckGolden of b =\n%v\nwant an ErrMismatch with\n%s", err, want)
	}
}

// checkVerify runs Verify on a, which must pass, and on a copy of a
// whose Map, at one parallelism, changes the item that reaches it k-th:
// a counter shared by the Map's workers decides which, so the change
// falls on another row from run to run. Verify must name that
// parallelism and the item.
//
// The changed copy has no Take stage: the workers of a Map before a Take
// can reach items that the Take then drops. A is its stream.
func checkVerify[T any](t *testing.T, r *rand.Rand, ea []fzEntry[T], ca fzCfg, A []flow.Item[T], kind fzKind[T], eq func(x, y T) bool) {
	t.Helper()
	ctx := context.Background()
	var ps []int
	for range 1 + r.IntN(3) {
		ps = append(ps, 1+r.IntN(4))
	}
	runs := 1 + r.IntN(2)
	build := func(bad, target int) func(int) *flow.Pipeline {
		return func(n int) *flow.Pipeline {
			c := ca
			c.p2 = n
			if c.p1 > 0 {
				c.p1 = n
			}
			var change func(T) T
			if n == bad {
				var count atomic.Int64
				change = func(v T) T {
					if count.Add(1) == int64(target) {
						return kind.bump(v)
					}
					return v
				}
			}
			return fzPipeline(ea, c, change)
		}
	}
	if err := determinism.Verify[T](ctx, build(-1, 0), determinism.Parallelisms(ps...), determinism.Runs(runs)); err != nil {
		t.Fatalf("Verify(parallelisms %v, %d runs) of a deterministic pipeline: %v", ps, runs, err)
	}
	if len(A) == 0 {
		return
	}
	ca.take = -1
	bad := ps[r.IntN(len(ps))]
	if bad == 1 {
		bad = 2
		ps = append(ps, bad)
	}
	err := determinism.Verify[T](ctx, build(bad, 1+r.IntN(len(A))), determinism.Parallelisms(ps...), determinism.Runs(runs))
	var d *determinism.Divergence
	if !errors.As(err, &d) {
		t.Fatalf("Verify(parallelisms %v) with a change at parallelism %d = %v, want a *Divergence", ps, bad, err)
	}
	if d.Parallelism != bad || d.Round != 1 || d.Position < 0 || d.Position >= int64(len(A)) {
		t.Fatalf("Verify(parallelisms %v) with a change at parallelism %d: %v", ps, bad, d)
	}
	it := A[d.Position]
	rv, ok1 := d.Reference.Value.(T)
	cv, ok2 := d.Candidate.Value.(T)
	if !ok1 || !ok2 || d.Reference.Part != it.Part || d.Reference.ID != it.ID || !eq(rv, it.Value) ||
		d.Candidate.Part != it.Part || d.Candidate.ID != it.ID || !eq(cv, kind.bump(it.Value)) {
		t.Fatalf("Verify: item %d is partition %d, row %v, value %+v, changed to %+v; the divergence says %v",
			d.Position, it.Part, it.ID, it.Value, kind.bump(it.Value), d)
	}
	if want := fmt.Sprintf("determinism: item %d differs (value): parallelism 1 has partition %d, row %v, value ", d.Position, it.Part, it.ID); !strings.HasPrefix(d.Error(), want) ||
		!strings.Contains(d.Error(), fmt.Sprintf("; parallelism %d (round 1) has partition %d, row %v, value ", bad, it.Part, it.ID)) {
		t.Fatalf("Verify: message %q does not name parallelism %d and the item", d.Error(), bad)
	}
}

// fuzzUserPanic checks that a panic in a user's AppendDigest reaches the
// caller of each function that encodes, with its value, and is not
// returned as an error about the data.
func fuzzUserPanic(t *testing.T, r *rand.Rand, where uint8) {
	ctx := context.Background()
	n := 1 + r.IntN(20)
	vals := make([]fzEntry[fzHook], n)
	for i := range vals {
		vals[i] = fzEntry[fzHook]{ID: fzOrdinal(i), V: fzHook{N: uint16(r.IntN(4))}}
	}
	mode := 1 + where%3
	k := r.IntN(n)
	vals[k].V.Mode = mode
	c := drawCfg(r)
	p := func() *flow.Pipeline { return fzPipeline(vals, c, nil) }
	dir := t.TempDir()
	wantPanic := func(name string, f func() error) {
		t.Helper()
		defer func() {
			v := recover()
			var ok bool
			switch mode {
			case 1:
				ok = v == "fzHook: a user's panic"
			case 2:
				ok = v == errFzHook
			case 3:
				err, isErr := v.(error)
				ok = isErr && strings.Contains(err.Error(), "nil pointer dereference")
			}
			if !ok {
				t.Fatalf("%s with a panic in AppendDigest at row %d of %d: recovered %v, want the user's panic", name, k, n, v)
			}
		}()
		err := f()
		t.Fatalf("%s returned %v instead of letting the user's panic go on", name, err)
	}
	wantPanic("AppendValue", func() error { determinism.AppendValue(nil, vals[k].V); return nil })
	wantPanic("Hasher.Add", func() error {
		h := determinism.NewHasher[fzHook]()
		for _, e := range vals {
			if err := h.Add(e.ID, e.V); err != nil {
				return err
			}
		}
		return nil
	})
	wantPanic("AddChunk", func() error {
		h := determinism.NewHasher[fzHook]()
		ch := flow.Chunk[fzHook]{IDs: flow.OrdinalIDs(rowid.FromString(fzSource), 0, n)}
		for _, e := range vals {
			ch.Values = append(ch.Values, e.V)
		}
		return determinism.AddChunk(h, &ch)
	})
	wantPanic("SumOf", func() error { _, err := determinism.SumOf[fzHook](ctx, p()); return err })
	wantPanic("Compare", func() error { return determinism.Compare[fzHook](ctx, p(), p()) })
	wantPanic("Bisect", func() error { return determinism.Bisect[fzHook](ctx, p(), p()) })
	wantPanic("CompareByID", func() error { return determinism.CompareByID[fzHook](ctx, p(), p()) })
	wantPanic("Verify", func() error {
		return determinism.Verify[fzHook](ctx, func(n int) *flow.Pipeline { return p().Parallel(n) }, determinism.Parallelisms(2))
	})
	wantPanic("CheckGolden (update)", func() error {
		return determinism.CheckGolden[fzHook](ctx, p(), filepath.Join(dir, "w.golden"), true)
	})
	// A file recorded without the panicking row, then checked with it.
	good := slices.Clone(vals)
	good[k].V.Mode = 0
	path := filepath.Join(dir, "c.golden")
	if err := determinism.CheckGolden[fzHook](ctx, fzPipeline(good, c, nil), path, true); err != nil {
		t.Fatal(err)
	}
	wantPanic("CheckGolden (check)", func() error { return determinism.CheckGolden[fzHook](ctx, p(), path, false) })
	// Compare and CompareByID of a clean pipeline with a panicking one:
	// the panic is in the second pipeline, found only once the first
	// difference is described, or in firstDiff.
	wantPanic("Compare, second pipeline", func() error {
		return determinism.Compare[fzHook](ctx, fzPipeline(good, c, nil), p())
	})

	// An interface holding a value with no encoding is the data's error,
	// returned, not a panic.
	bad := []any{1, 2, make(chan int)}
	size := 1 + r.IntN(3)
	bp := func() *flow.Pipeline { return flow.From(sources.Slice(bad, sources.PartitionItems(size))) }
	for name, err := range map[string]error{
		"Compare":     determinism.Compare[any](ctx, bp(), bp()),
		"Bisect":      determinism.Bisect[any](ctx, bp(), bp()),
		"CompareByID": determinism.CompareByID[any](ctx, bp(), bp()),
		"SumOf":       func() error { _, err := determinism.SumOf[any](ctx, bp()); return err }(),
		"CheckGolden": determinism.CheckGolden[any](ctx, bp(), filepath.Join(dir, "any.golden"), true),
	} {
		if err == nil || !strings.Contains(err.Error(), "chan int") {
			t.Fatalf("%s of a chan in an interface = %v, want an error naming chan int", name, err)
		}
	}
}
