package pqwrite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/internal/parquet/pqcol"
)

// FuzzWriter is a differential test of the writer against parquet-go's
// reader. Each input is a seed, from which it draws a schema of up to six
// leaves (every physical type; unsigned integers; strings; fixed-length
// arrays; INT96; integers that ask for DELTA_BINARY_PACKED), each
// required, optional, repeated or in a LIST, its values from one of a few
// distributions (random over the whole range; a few repeated values, the
// dictionary's case; sorted with small steps and rare jumps to the
// extremes, the delta encoding's; edge values: NaN, ±0, infinities, the
// integer extremes, empty and 0xFF strings; and for byte arrays, repeats
// long enough for a dictionary followed by distinct values that outgrow
// it), the rows' split into row groups, the page size and the codec. The
// file must be the same bytes at concurrency 1 and 3, and then:
//
//   - parquet-go decodes every page of every chunk to the levels and the
//     values written;
//   - each chunk's statistics hold its null count and the least and
//     greatest non-NaN values in parquet-go's order for the column's type
//     (NaN only when every value is NaN; a zero minimum -0.0 and a zero
//     maximum +0.0), whole;
//   - the column and offset indexes agree with the pages (checkChunkIndex),
//     and a boundary order they claim holds;
//   - pqcol reads each chunk, and a random range of its rows, back as the
//     columns written.
//
// go test -run FuzzWriter runs the seeds; go test -run '^$' -fuzz
// FuzzWriter explores.
func FuzzWriter(f *testing.F) {
	for i := range 40 {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 3)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkRandomFile(t, newRandomFile(seed))
	})
}

// Kinds of the random leaves.
const (
	fkBool = iota
	fkInt32
	fkUint32
	fkInt64
	fkUint64
	fkFloat
	fkDouble
	fkString
	fkBytes
	fkFixed
	fkInt96
	fkKinds
)

// Shapes of the random leaves, and their levels: the maximum definition
// level, and for a repeated leaf, the definition level at which its
// repeated node is present (below it, the row's list is null or empty).
var fuzzShapes = []struct {
	name         string
	wrap         func(parquet.Node) parquet.Node
	maxDef, dRep byte
	repeated     bool
}{
	{"required", func(n parquet.Node) parquet.Node { return n }, 0, 0, false},
	{"optional", parquet.Optional, 1, 0, false},
	{"repeated", parquet.Repeated, 1, 1, true},
	{"list", parquet.List, 1, 1, true},
	{"list of optional", func(n parquet.Node) parquet.Node { return parquet.List(parquet.Optional(n)) }, 2, 1, true},
	{"optional list", func(n parquet.Node) parquet.Node { return parquet.Optional(parquet.List(n)) }, 2, 2, true},
	{"optional list of optional", func(n parquet.Node) parquet.Node {
		return parquet.Optional(parquet.List(parquet.Optional(n)))
	}, 3, 2, true},
}

// fuzzEntry is one leaf entry: its levels and, at the maximum definition
// level, its value.
type fuzzEntry struct {
	rep, def byte
	v        parquet.Value
}

// fuzzLeaf is a random leaf and its rows' entries.
type fuzzLeaf struct {
	name  string
	kind  int
	width int // of a fixed-length array
	shape int
	delta bool
	mode  string
	rows  [][]fuzzEntry
}

func (l *fuzzLeaf) String() string {
	kinds := []string{"bool", "int32", "uint32", "int64", "uint64", "float", "double", "string", "bytes", "fixed", "int96"}
	s := fmt.Sprintf("%s %s %s", l.name, fuzzShapes[l.shape].name, kinds[l.kind])
	if l.kind == fkFixed {
		s += fmt.Sprint("(", l.width, ")")
	}
	if l.delta {
		s += " delta"
	}
	return s + " " + l.mode
}

// randomFile is a random schema, rows split into row groups, and writer
// options.
type randomFile struct {
	desc   string
	schema *parquet.Schema
	leaves map[string]*fuzzLeaf
	groups []int // the rows of each row group, in order
	opts   []Option
}

func newRandomFile(seed uint64) *randomFile {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	pick := func(vs ...int) int { return vs[r.IntN(len(vs))] }
	rows := pick(0, 1, 3, 40, 300, 2000, 5000)
	rf := &randomFile{leaves: map[string]*fuzzLeaf{}}
	group := parquet.Group{}
	var desc []string
	for i := range 1 + r.IntN(6) {
		l := &fuzzLeaf{name: fmt.Sprintf("c%d", i), kind: r.IntN(fkKinds), shape: r.IntN(len(fuzzShapes))}
		if r.IntN(3) == 0 {
			l.shape = 0
		}
		var node parquet.Node
		switch l.kind {
		case fkBool:
			node = parquet.Leaf(parquet.BooleanType)
		case fkInt32:
			node = parquet.Int(32)
		case fkUint32:
			node = parquet.Uint(32)
		case fkInt64:
			node = parquet.Int(64)
		case fkUint64:
			node = parquet.Uint(64)
		case fkFloat:
			node = parquet.Leaf(parquet.FloatType)
		case fkDouble:
			node = parquet.Leaf(parquet.DoubleType)
		case fkString:
			node = parquet.String()
		case fkBytes:
			node = parquet.Leaf(parquet.ByteArrayType)
		case fkFixed:
			l.width = pick(1, 3, 16, 20)
			node = parquet.Leaf(parquet.FixedLenByteArrayType(l.width))
		case fkInt96:
			node = parquet.Leaf(parquet.Int96Type)
		}
		if l.kind >= fkInt32 && l.kind <= fkUint64 && r.IntN(4) == 0 {
			l.delta = true
			node = parquet.Encoded(node, &parquet.DeltaBinaryPacked)
		}
		group[l.name] = fuzzShapes[l.shape].wrap(node)
		l.mode, l.rows = randomEntries(r, l, rows)
		rf.leaves[l.name] = l
		desc = append(desc, l.String())
	}
	rf.schema = parquet.NewSchema("t", group)
	for left := rows; left > 0 || len(rf.groups) == 0; {
		n := left
		if r.IntN(2) == 0 {
			n = r.IntN(left + 1)
		}
		rf.groups = append(rf.groups, n)
		left -= n
	}
	page := pick(1, 7, 100, 4<<10, DefaultPageSize)
	rf.opts = []Option{PageSize(page)}
	codec := []string{"none", "snappy", "zstd fastest", "adaptive zstd"}[r.IntN(4)]
	switch codec {
	case "snappy":
		rf.opts = append(rf.opts, Codec(new(snappy.Codec)))
	case "zstd fastest":
		rf.opts = append(rf.opts, Codec(NewZstd(zstd.SpeedFastest)))
	case "adaptive zstd":
		rf.opts = append(rf.opts, Codec(NewAdaptiveZstd()))
	}
	rf.desc = fmt.Sprintf("rows %v, page size %d, %s; %s", rf.groups, page, codec, strings.Join(desc, "; "))
	return rf
}

// randomEntries draws a distribution and the entries of rows rows of leaf
// l.
func randomEntries(r *rand.Rand, l *fuzzLeaf, rows int) (string, [][]fuzzEntry) {
	modes := []string{"random", "repeats", "sorted", "edges"}
	if l.kind == fkString || l.kind == fkBytes {
		modes = append(modes, "dictionary overflow")
	}
	mode := modes[r.IntN(len(modes))]
	if mode == "dictionary overflow" && rows < dictSample {
		mode = "repeats"
	}
	nullRate := []int{0, 2, 10, 1000}[r.IntN(4)] // one in n entries null; 1000: all
	gen := newValueGen(r, l, mode)
	sh := fuzzShapes[l.shape]
	out := make([][]fuzzEntry, rows)
	for i := range out {
		maybeNull := func(minDef byte) fuzzEntry {
			if sh.maxDef > minDef && (nullRate == 1000 || nullRate > 0 && r.IntN(nullRate) == 0) {
				return fuzzEntry{def: minDef + byte(r.IntN(int(sh.maxDef-minDef)))}
			}
			return fuzzEntry{def: sh.maxDef, v: gen(i)}
		}
		if !sh.repeated {
			out[i] = []fuzzEntry{maybeNull(0)}
			continue
		}
		k := r.IntN(5)
		if k == 0 {
			out[i] = []fuzzEntry{{def: byte(r.IntN(int(sh.dRep)))}} // a null or empty list
			continue
		}
		for j := range k {
			e := maybeNull(sh.dRep)
			e.rep = byte(min(j, 1))
			out[i] = append(out[i], e)
		}
	}
	return fmt.Sprintf("%s, nulls 1/%d", mode, nullRate), out
}

// newValueGen returns a function that draws the values of leaf l in mode,
// given the row.
func newValueGen(r *rand.Rand, l *fuzzLeaf, mode string) func(row int) parquet.Value {
	raw := func() uint64 { return r.Uint64() }
	switch mode {
	case "repeats":
		pool := make([]uint64, 1+r.IntN(8))
		for i := range pool {
			pool[i] = r.Uint64()
		}
		raw = func() uint64 { return pool[r.IntN(len(pool))] }
	case "sorted":
		var cur uint64 = r.Uint64() >> 8
		raw = func() uint64 {
			if r.IntN(300) == 0 {
				cur = []uint64{0, math.MaxInt64, 1 << 63, math.MaxUint64, math.MaxUint32, 1 << 31}[r.IntN(6)]
			} else {
				cur += uint64(r.IntN(5))
			}
			return cur
		}
	case "edges":
		raw = func() uint64 {
			return []uint64{0, 1, math.MaxUint64, math.MaxInt64, 1 << 63, math.MaxUint32, 1 << 31, math.MaxInt32,
				math.Float64bits(math.NaN()), math.Float64bits(math.Inf(1)), math.Float64bits(math.Inf(-1)),
				math.Float64bits(math.Copysign(0, -1)), uint64(math.Float32bits(float32(math.NaN()))),
				uint64(math.Float32bits(float32(math.Inf(-1)))), uint64(math.Float32bits(float32(math.Copysign(0, -1)))),
				1 << 52}[r.IntN(16)]
		}
	}
	// Byte arrays: their bytes come from raw, in lengths by mode.
	text := func(row int) []byte {
		switch mode {
		case "edges":
			return [][]byte{nil, {0}, {0xFF}, bytes.Repeat([]byte{0xFF}, 16), bytes.Repeat([]byte{0xFF}, 20),
				append(bytes.Repeat([]byte{0xFF}, 16), 'a'), []byte(strings.Repeat("z", 40)), []byte("a")}[r.IntN(8)]
		case "dictionary overflow":
			if row < dictSample {
				return []byte{byte('a' + r.IntN(3))}
			}
			return fmt.Appendf(nil, "%d-%s", row, strings.Repeat("x", 300+r.IntN(100)))
		}
		v := raw()
		n := int(v % 23)
		if mode == "random" {
			n = r.IntN(60)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(v>>(8*(i%8))) ^ byte(i)
		}
		if mode == "sorted" {
			b = fmt.Appendf(nil, "%020d", v)
		}
		return b
	}
	return func(row int) parquet.Value {
		switch l.kind {
		case fkBool:
			return parquet.BooleanValue(raw()&1 == 1)
		case fkInt32, fkUint32:
			return parquet.Int32Value(int32(raw()))
		case fkInt64, fkUint64:
			return parquet.Int64Value(int64(raw()))
		case fkFloat:
			v := raw()
			if mode == "random" || mode == "sorted" {
				return parquet.FloatValue(float32(int64(v)) / 1e9)
			}
			return parquet.FloatValue(math.Float32frombits(uint32(v)))
		case fkDouble:
			v := raw()
			if mode == "random" || mode == "sorted" {
				return parquet.DoubleValue(float64(int64(v)) / 1e9)
			}
			return parquet.DoubleValue(math.Float64frombits(v))
		case fkString, fkBytes:
			return parquet.ByteArrayValue(text(row))
		case fkFixed:
			b := text(row)
			b = append(b, make([]byte, l.width)...)[:l.width]
			return parquet.FixedLenByteArrayValue(b)
		default: // fkInt96
			v, w := raw(), raw()
			return parquet.Int96Value(deprecated.Int96{uint32(v), uint32(v >> 32), uint32(w)})
		}
	}
}

// fill sets c to the entries of rows of leaf l.
func fill(c *Column, l *fuzzLeaf, rows [][]fuzzEntry) {
	c.Reset()
	sh := fuzzShapes[l.shape]
	for _, row := range rows {
		for _, e := range row {
			if sh.maxDef > 0 {
				c.DefLevels = append(c.DefLevels, e.def)
			}
			if sh.repeated {
				c.RepLevels = append(c.RepLevels, e.rep)
			}
			if e.def != sh.maxDef {
				continue
			}
			c.AppendValue(e.v)
		}
	}
}

// leaf returns the random leaf of a column's path: the leaf named by its
// first element (the rest is a LIST's list.element).
func (rf *randomFile) leaf(path []string) *fuzzLeaf { return rf.leaves[path[0]] }

// write writes the file's row groups with opts and returns its bytes.
func (rf *randomFile) write(t *testing.T, opts ...Option) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, rf.schema, append(slices.Clone(rf.opts), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	cols := w.NewColumns()
	lo := 0
	for _, n := range rf.groups {
		for i, l := range w.Leaves() {
			fl := rf.leaf(l.Path)
			fill(cols[i], fl, fl.rows[lo:lo+n])
		}
		if err := w.WriteRowGroup(context.Background(), cols); err != nil {
			t.Fatalf("%s: row group of %d rows: %v", rf.desc, n, err)
		}
		lo += n
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func checkRandomFile(t *testing.T, rf *randomFile) {
	data := rf.write(t, Concurrency(1))
	if again := rf.write(t, Concurrency(3)); !bytes.Equal(data, again) {
		t.Fatalf("%s: %d bytes at concurrency 3 differ from the %d at concurrency 1", rf.desc, len(again), len(data))
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: parquet-go opens the file: %v", rf.desc, err)
	}
	pr, err := pqcol.Open("t.parquet", bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: pqcol opens the file: %v", rf.desc, err)
	}
	r := rand.New(rand.NewPCG(uint64(len(data)), 1))
	leaves := pr.Leaves()
	g, lo := 0, 0
	for _, n := range rf.groups {
		if n == 0 {
			continue // a row group of no rows is not written
		}
		if g >= len(f.RowGroups()) {
			t.Fatalf("%s: %d row groups, want more", rf.desc, len(f.RowGroups()))
		}
		rg := f.RowGroups()[g]
		if rg.NumRows() != int64(n) {
			t.Fatalf("%s: row group %d has %d rows, want %d", rf.desc, g, rg.NumRows(), n)
		}
		for c, cc := range rg.ColumnChunks() {
			l := rf.leaf(leaves[c].Path)
			where := fmt.Sprintf("%s: row group %d, leaf %s", rf.desc, g, l)
			want := slices.Concat(l.rows[lo : lo+n]...)
			checkPages(t, where, cc, want, fuzzShapes[l.shape].maxDef)
			checkStatistics(t, where, cc, f.Metadata().RowGroups[g].Columns[c].MetaData.Statistics, want, fuzzShapes[l.shape].maxDef)
			checkChunkIndex(t, g, c, cc, int64(n))
			checkBoundaryOrder(t, where, cc)
			from := r.IntN(n)
			to := from + r.IntN(n-from+1)
			checkPqcol(t, where, pr, g, c, l, l.rows[lo:lo+n], from, to)
		}
		g++
		lo += n
	}
	if g != len(f.RowGroups()) {
		t.Fatalf("%s: %d row groups, want %d", rf.desc, len(f.RowGroups()), g)
	}
}

// checkPages checks that parquet-go decodes the pages of cc to want.
func checkPages(t *testing.T, where string, cc parquet.ColumnChunk, want []fuzzEntry, maxDef byte) {
	t.Helper()
	pages := cc.Pages()
	defer pages.Close()
	var got []parquet.Value
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: parquet-go reads a page: %v", where, err)
		}
		vals := make([]parquet.Value, p.NumValues())
		n, err := p.Values().ReadValues(vals)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatalf("%s: parquet-go reads a page's values: %v", where, err)
		}
		for _, v := range vals[:n] {
			got = append(got, v.Clone())
		}
		parquet.Release(p)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries read, want %d", where, len(got), len(want))
	}
	for i, w := range want {
		v := got[i]
		if v.RepetitionLevel() != int(w.rep) || v.DefinitionLevel() != int(w.def) || v.IsNull() != (w.def != maxDef) ||
			!v.IsNull() && (v.Kind() != w.v.Kind() || !bytes.Equal(v.Bytes(), w.v.Bytes())) {
			t.Fatalf("%s: entry %d is %v (rep %d, def %d), want %v (rep %d, def %d)",
				where, i, v, v.RepetitionLevel(), v.DefinitionLevel(), w.v, w.rep, w.def)
		}
	}
}

// checkStatistics checks a chunk's statistics against its entries, in the
// order of parquet-go's type of the column.
func checkStatistics(t *testing.T, where string, cc parquet.ColumnChunk, st format.Statistics, want []fuzzEntry, maxDef byte) {
	t.Helper()
	typ := cc.Type()
	var nulls int64
	var lo, hi parquet.Value
	var vals, nans int
	for _, e := range want {
		switch {
		case e.def != maxDef:
			nulls++
		case isNaNValue(e.v):
			nans++
		case vals == 0:
			lo, hi = e.v, e.v
			vals++
		default:
			if typ.Compare(e.v, lo) < 0 {
				lo = e.v
			}
			if typ.Compare(e.v, hi) > 0 {
				hi = e.v
			}
			vals++
		}
	}
	if st.NullCount != nulls {
		t.Errorf("%s: statistics' null count %d, want %d", where, st.NullCount, nulls)
	}
	kind := typ.Kind()
	switch {
	case vals == 0 && nans == 0:
		if st.MinValue != nil || st.MaxValue != nil {
			t.Errorf("%s: statistics' bounds [% x, % x] for no values", where, st.MinValue, st.MaxValue)
		}
	case vals == 0:
		if !isNaNValue(kind.Value(st.MinValue)) || !isNaNValue(kind.Value(st.MaxValue)) {
			t.Errorf("%s: statistics' bounds [% x, % x], want NaNs", where, st.MinValue, st.MaxValue)
		}
	default:
		gotLo, gotHi := kind.Value(st.MinValue), kind.Value(st.MaxValue)
		if len(st.MinValue) != len(lo.Bytes()) || len(st.MaxValue) != len(hi.Bytes()) ||
			typ.Compare(gotLo, lo) != 0 || typ.Compare(gotHi, hi) != 0 || !zeroSigns(gotLo, gotHi) {
			t.Errorf("%s: statistics' bounds [% x, % x], want [% x, % x]", where, st.MinValue, st.MaxValue, lo.Bytes(), hi.Bytes())
		}
	}
}

// zeroSigns reports whether floating-point bounds that are zero have the
// signs the format asks writers for: -0.0 as a minimum, +0.0 as a
// maximum.
func zeroSigns(lo, hi parquet.Value) bool {
	switch lo.Kind() {
	case parquet.Float:
		return (lo.Float() != 0 || math.Signbit(float64(lo.Float()))) && (hi.Float() != 0 || !math.Signbit(float64(hi.Float())))
	case parquet.Double:
		return (lo.Double() != 0 || math.Signbit(lo.Double())) && (hi.Double() != 0 || !math.Signbit(hi.Double()))
	}
	return true
}

func isNaNValue(v parquet.Value) bool {
	switch v.Kind() {
	case parquet.Float:
		return v.Float() != v.Float()
	case parquet.Double:
		return math.IsNaN(v.Double())
	}
	return false
}

// checkBoundaryOrder checks that a chunk's column index, when it says its
// pages' bounds ascend or descend, is right about its pages that are not
// all null, and that their zero bounds have the signs of zeroSigns.
func checkBoundaryOrder(t *testing.T, where string, cc parquet.ColumnChunk) {
	t.Helper()
	ci, err := cc.ColumnIndex()
	if err != nil {
		t.Fatal(err)
	}
	typ := cc.Type()
	prev := -1
	for i := range ci.NumPages() {
		if ci.NullPage(i) {
			continue
		}
		if !zeroSigns(ci.MinValue(i), ci.MaxValue(i)) {
			t.Errorf("%s: page %d's bounds [%v, %v] in the column index", where, i, ci.MinValue(i), ci.MaxValue(i))
		}
		if prev >= 0 {
			up := typ.Compare(ci.MinValue(prev), ci.MinValue(i)) <= 0 && typ.Compare(ci.MaxValue(prev), ci.MaxValue(i)) <= 0
			down := typ.Compare(ci.MinValue(prev), ci.MinValue(i)) >= 0 && typ.Compare(ci.MaxValue(prev), ci.MaxValue(i)) >= 0
			if ci.IsAscending() && !up || ci.IsDescending() && !down {
				t.Errorf("%s: the column index says ascending %v, descending %v, but pages %d and %d are not so",
					where, ci.IsAscending(), ci.IsDescending(), prev, i)
			}
		}
		prev = i
	}
}

// checkPqcol checks that pqcol reads chunk (g, c) back as rows, and its
// rows [from, to) as those rows.
func checkPqcol(t *testing.T, where string, r *pqcol.Reader, g, c int, l *fuzzLeaf, rows [][]fuzzEntry, from, to int) {
	t.Helper()
	var want Column
	var got pqcol.Column
	for _, span := range [][2]int{{0, len(rows)}, {from, to}} {
		fill(&want, l, rows[span[0]:span[1]])
		var err error
		if span == [2]int{0, len(rows)} {
			err = r.ReadColumn(context.Background(), g, c, &got)
		} else {
			err = r.ReadColumnRange(context.Background(), g, c, int64(from), int64(to), &got)
		}
		if err != nil {
			t.Fatalf("%s: pqcol reads rows %v: %v", where, span, err)
		}
		if !sameColumn(&got, &want) {
			t.Fatalf("%s: pqcol reads rows %v back differently", where, span)
		}
	}
}

// bitsOf returns floats' bits, so that NaNs compare.
func bitsOf[F float32 | float64](vs []F) []uint64 {
	out := make([]uint64, len(vs))
	for i, v := range vs {
		switch v := any(v).(type) {
		case float32:
			out[i] = uint64(math.Float32bits(v))
		case float64:
			out[i] = math.Float64bits(v)
		}
	}
	return out
}
