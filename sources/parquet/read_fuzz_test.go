package parquet_test

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqwrite"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// fuzzRow is what FuzzReadStructs reads: a field of every Go type that a
// column can be read into, as a value, a pointer or a slice. Each case
// writes a column for each field, of a type that the field holds (see
// kindsFor), under the field's name.
type fuzzRow struct {
	Bool  bool      `parquet:"f00"`
	I8    int8      `parquet:"f01"`
	I16   int16     `parquet:"f02"`
	I32   int32     `parquet:"f03"`
	I64   int64     `parquet:"f04"`
	Int   int       `parquet:"f05"`
	U16   uint16    `parquet:"f06"`
	U32   uint32    `parquet:"f07"`
	U64   uint64    `parquet:"f08"`
	Uint  uint      `parquet:"f09"`
	F32   float32   `parquet:"f10"`
	F64   float64   `parquet:"f11"`
	Str   string    `parquet:"f12"`
	Bytes []byte    `parquet:"f13"`
	Time  time.Time `parquet:"f14"`

	PBool *bool      `parquet:"f15"`
	PI16  *int16     `parquet:"f16"`
	PI32  *int32     `parquet:"f17"`
	PI64  *int64     `parquet:"f18"`
	PU32  *uint32    `parquet:"f19"`
	PU64  *uint64    `parquet:"f20"`
	PF32  *float32   `parquet:"f21"`
	PF64  *float64   `parquet:"f22"`
	PStr  *string    `parquet:"f23"`
	PTime *time.Time `parquet:"f24"`

	SBool []bool    `parquet:"f25"`
	SI32  []int32   `parquet:"f26"`
	SI64  []int64   `parquet:"f27"`
	SU32  []uint32  `parquet:"f28"`
	SF32  []float32 `parquet:"f29"`
	SF64  []float64 `parquet:"f30"`
	SStr  []string  `parquet:"f31"`
}

// FuzzReadStructs is a differential test of parquet.Read over files that
// parquet-go writes. From a seed it draws, for each field of fuzzRow, a
// column of a type the field holds (a narrower integer, a FLOAT for a
// float64, text for []byte, a timestamp of any unit or a date for a
// time.Time), required or optional for a value or a pointer, a LIST or a
// bare repeated column for a slice, with an encoding (plain, dictionary,
// delta, byte stream split) and values that are sorted or not, with
// nulls, edges, NaNs and long strings that share prefixes; then files of
// random row groups, page sizes, page versions and codecs, and a reading
// with random fragments (MaxRows), chunks, parallelism and, in half the
// cases, a random RowFilter of comparisons, In, Not, And and Or over the
// columns, whose pruning by statistics and page indexes is what it most
// tests.
//
// The rows read, at parallelism 1 and at another, must be the rows
// written, converted to the fields' types as the package doc says (a null
// into a value is its zero), with the IDs the doc gives, and, with a
// filter, exactly those for which the filter, evaluated in Go on the
// values written with SQL's three-valued logic, is true.
func FuzzReadStructs(f *testing.F) {
	for i := range testutil.FuzzSeeds(48) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 1)
	}
	// The mismatches found, fixed, stay as regressions:
	//   - Not(In(col)) of no values dropped the rows where col is NaN (or
	//     null): In of nothing was unknown there, where it is false.
	f.Add(uint64(8316709377436687802))
	f.Fuzz(func(t *testing.T, seed uint64) {
		newReadCase(seed).check(t)
	})
}

// rkind is the Go type of a column as written, which decides its
// Parquet type.
type rkind int

const (
	rBool rkind = iota
	rInt8
	rInt16
	rInt32
	rInt64
	rUint16
	rUint32
	rUint64
	rFloat32
	rFloat64
	rString
	rBytes
	rTimeMs
	rTimeUs
	rTimeNs
	rDate
)

var rkindNames = [...]string{"bool", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float32",
	"float64", "string", "[]byte", "timestamp(ms)", "timestamp(us)", "timestamp(ns)", "date"}

var timeType = reflect.TypeFor[time.Time]()

// goType returns the Go type a column of kind k is written from: a
// date from an int32 of days since the epoch (parquet-go v0.32.0 writes
// a time.Time tagged date as the low 32 bits of its nanoseconds).
func (k rkind) goType() reflect.Type {
	switch k {
	case rBool:
		return reflect.TypeFor[bool]()
	case rInt8:
		return reflect.TypeFor[int8]()
	case rInt16:
		return reflect.TypeFor[int16]()
	case rInt32, rDate:
		return reflect.TypeFor[int32]()
	case rInt64:
		return reflect.TypeFor[int64]()
	case rUint16:
		return reflect.TypeFor[uint16]()
	case rUint32:
		return reflect.TypeFor[uint32]()
	case rUint64:
		return reflect.TypeFor[uint64]()
	case rFloat32:
		return reflect.TypeFor[float32]()
	case rFloat64:
		return reflect.TypeFor[float64]()
	case rString:
		return reflect.TypeFor[string]()
	case rBytes:
		return reflect.TypeFor[[]byte]()
	}
	return timeType
}

// kindsFor returns the column kinds that a field whose (element) type is t
// reads, by the table of the package doc.
func kindsFor(t reflect.Type) []rkind {
	switch t.Kind() {
	case reflect.Bool:
		return []rkind{rBool}
	case reflect.Int8:
		return []rkind{rInt8}
	case reflect.Int16:
		return []rkind{rInt8, rInt16}
	case reflect.Int32:
		return []rkind{rInt8, rInt16, rInt32, rUint16}
	case reflect.Int64, reflect.Int:
		return []rkind{rInt8, rInt16, rInt32, rInt64, rUint16, rUint32}
	case reflect.Uint16:
		return []rkind{rUint16}
	case reflect.Uint32:
		return []rkind{rUint16, rUint32}
	case reflect.Uint64, reflect.Uint:
		return []rkind{rUint16, rUint32, rUint64}
	case reflect.Float32:
		return []rkind{rFloat32}
	case reflect.Float64:
		return []rkind{rFloat32, rFloat64}
	case reflect.String, reflect.Slice:
		return []rkind{rString, rBytes}
	}
	return []rkind{rTimeMs, rTimeUs, rTimeNs, rDate}
}

// rshape is how a column holds its values.
type rshape int

const (
	rRequired rshape = iota
	rOptional
	rList     // a LIST of required elements
	rRepeated // a bare repeated column
)

// rcol is a column of a case: the field it is read into, how it is
// written, and its values (one per row, as the writer's field holds them).
type rcol struct {
	field    int
	kind     rkind
	shape    rshape
	encoding string // a parquet-go tag option, or ""
	name     string // the column's name in the files
	sorted   bool   // its values rise with the row
	vals     []reflect.Value
}

// scalar reports whether the column has one value or null per row, so
// that a filter can compare it.
func (c *rcol) scalar() bool { return c.shape == rRequired || c.shape == rOptional }

// readCase is one generated comparison.
type readCase struct {
	seed      uint64
	rows      int
	cols      []*rcol // in the files' order
	files     []int   // the rows of each file
	groupRows int64
	pageBytes int
	version   int
	codec     string
	writer    string // "parquet-go", or "rowflow" (internal/parquet/pqwrite, the sinks' writer)
	maxRows   int64  // 0: the default
	whole     bool   // sources.WholeFiles
	chunk     int
	par       int
	filter    *fnode // nil: none
}

// String describes the case, to reproduce and minimise a mismatch.
func (c *readCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: %d rows in files of %v written by %s; row groups of %d, pages of %d bytes, v%d, %s; MaxRows(%d) ChunkSize(%d) Parallel(%d) WholeFiles(%v)",
		c.seed, c.rows, c.files, c.writer, c.groupRows, c.pageBytes, c.version, c.codec, c.maxRows, c.chunk, c.par, c.whole)
	if c.filter != nil {
		fmt.Fprintf(&b, "\nfilter: %v", c.filter.f)
	}
	for _, col := range c.cols {
		fmt.Fprintf(&b, "\n  %s: %s %s %s (field %s)", col.name, rkindNames[col.kind],
			[...]string{"required", "optional", "list", "repeated"}[col.shape], col.encoding,
			reflect.TypeFor[fuzzRow]().Field(col.field).Name)
	}
	return b.String()
}

// rgen draws a case's values.
type rgen struct {
	r *rand.Rand
}

func (g *rgen) chance(p float64) bool { return g.r.Float64() < p }

func pickOf[T any](g *rgen, xs ...T) T { return xs[g.r.IntN(len(xs))] }

// edge strings: empty, beyond ASCII, all 0xff (which a truncated maximum
// cannot be rounded up from), and long ones sharing prefixes (which
// writers truncate in their page indexes).
var fuzzStrings = []string{"", "a", "ab", "b", "é", "\xff", "\xff\xff", "\x00", "z",
	strings.Repeat("a", 40) + "1", strings.Repeat("a", 40) + "2", strings.Repeat("a", 17), strings.Repeat("\xff", 20),
	strings.Repeat("\xff", 20) + "\x00", "Zürich", "日本"}

var fuzzEpoch = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// unit returns the unit of a time kind.
func (k rkind) unit() time.Duration {
	switch k {
	case rTimeMs:
		return time.Millisecond
	case rTimeUs:
		return time.Microsecond
	case rTimeNs:
		return time.Nanosecond
	}
	return 24 * time.Hour
}

// value returns the value of row i of n of a column of kind k: rising
// with i if sorted, else drawn from edges, a small range and the whole
// range of the type.
func (g *rgen) value(k rkind, i, n int, sorted bool) reflect.Value {
	t := k.goType()
	v := reflect.New(t).Elem()
	small := g.r.IntN(41) - 20
	if sorted {
		small = i/max(1, n/200) - 100 + g.r.IntN(3)
	}
	switch k {
	case rBool:
		v.SetBool(sorted && i > n/2 || !sorted && g.chance(0.5))
	case rInt8, rInt16, rInt32, rInt64:
		bits := t.Bits()
		lo, hi := -int64(1)<<(bits-1), int64(1)<<(bits-1)-1
		x := int64(small)
		switch {
		case sorted:
		case g.chance(0.1):
			x = pickOf(g, lo, hi, lo+1, hi-1, 0, -1)
		case g.chance(0.2):
			x = lo + int64(g.r.Uint64()>>(64-bits))
		}
		v.SetInt(max(lo, min(hi, x)))
	case rUint16, rUint32, rUint64:
		bits := t.Bits()
		hi := uint64(math.MaxUint64) >> (64 - bits)
		x := uint64(max(0, small+20))
		switch {
		case sorted:
		case g.chance(0.1):
			x = pickOf(g, 0, hi, hi-1, hi>>1, hi>>1+1)
		case g.chance(0.2):
			x = g.r.Uint64() >> (64 - bits)
		}
		v.SetUint(x)
	case rFloat32, rFloat64:
		x := float64(small) / 4
		switch {
		case sorted:
		case g.chance(0.1):
			x = pickOf(g, math.NaN(), math.Inf(1), math.Inf(-1), 5e-324, math.MaxFloat64, -math.MaxFloat64, 1e-45, 3.4e38)
		case g.chance(0.2):
			x = g.r.NormFloat64() * 1e6
		}
		v.SetFloat(x) // rounded to a float32 for FLOAT
	case rString, rBytes:
		s := fmt.Sprintf("k%04d", small+100)
		switch {
		case sorted:
		case g.chance(0.5):
			s = pickOf(g, fuzzStrings...)
		case g.chance(0.05):
			s = strings.Repeat(pickOf(g, "x", "é", "\xfe"), g.r.IntN(300))
		}
		if k == rString {
			v.SetString(s)
		} else {
			v.SetBytes([]byte(s))
		}
	case rDate:
		x := int32(small * 97)
		switch {
		case sorted:
		case g.chance(0.1):
			x = pickOf[int32](g, 0, -1, 1, -719162) // 0001-01-01
		case g.chance(0.3):
			x = g.r.Int32N(80*365) - 40*365
		}
		v.SetInt(int64(x))
	default:
		u := k.unit()
		x := time.Duration(small) * u * 997
		switch {
		case sorted:
		case g.chance(0.1):
			x = pickOf(g, 0, -u, u, -fuzzEpoch.Sub(time.Unix(0, 0)))
		case g.chance(0.3):
			x = time.Duration(g.r.Int64N(int64(80*365*24*time.Hour))) - 40*365*24*time.Hour
		}
		v.Set(reflect.ValueOf(fuzzEpoch.Add(x).Truncate(u).UTC()))
	}
	return v
}

// newReadCase draws a case from seed.
func newReadCase(seed uint64) *readCase {
	g := &rgen{r: rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))}
	c := &readCase{
		seed:      seed,
		rows:      pickOf(g, 0, 1, 3, 40, 200, 700, 1500),
		groupRows: pickOf[int64](g, 1, 7, 64, 300, 1<<20),
		pageBytes: pickOf(g, 1, 64, 512, 4096, 1<<20),
		version:   pickOf(g, 1, 2),
		codec:     pickOf(g, "uncompressed", "snappy", "zstd", "gzip"),
		maxRows:   pickOf[int64](g, 0, 1, 5, 33, 256),
		chunk:     pickOf(g, 1, 4, 100, 1024),
		par:       pickOf(g, 2, 3),
		whole:     g.chance(0.15),
	}
	c.files = []int{0} // no rows: one empty file
	for n := c.rows; n > 0; {
		k := min(n, 1+g.r.IntN(c.rows))
		c.files = append(c.files[:len(c.files):len(c.files)], k)
		n -= k
	}
	if c.rows > 0 {
		c.files = c.files[1:]
	}
	rt := reflect.TypeFor[fuzzRow]()
	for i := range rt.NumField() {
		ft := rt.Field(i).Type
		col := &rcol{field: i, name: rt.Field(i).Tag.Get("parquet")}
		elem := ft
		switch {
		case ft.Kind() == reflect.Pointer:
			elem = ft.Elem()
			col.shape = pickOf(g, rRequired, rOptional, rOptional)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8:
			elem = ft.Elem()
			col.shape = pickOf(g, rList, rList, rRepeated)
		default:
			col.shape = pickOf(g, rRequired, rOptional)
		}
		col.kind = pickOf(g, kindsFor(elem)...)
		if col.shape == rRequired && g.chance(0.5) {
			col.encoding = pickOf(g, col.encodings()...)
		}
		sorted, nulls := g.chance(0.4), pickOf(g, 0, 0.1, 0.5, 1)
		col.sorted = sorted
		for i := range c.rows {
			var v reflect.Value
			switch col.shape {
			case rRequired:
				v = g.value(col.kind, i, c.rows, sorted)
			case rOptional:
				v = reflect.New(reflect.PointerTo(col.kind.goType())).Elem()
				if !g.chance(nulls) {
					v.Set(reflect.New(col.kind.goType()))
					v.Elem().Set(g.value(col.kind, i, c.rows, sorted))
				}
			default:
				v = reflect.MakeSlice(reflect.SliceOf(col.kind.goType()), 0, 4)
				for range g.r.IntN(5) {
					v = reflect.Append(v, g.value(col.kind, i, c.rows, sorted))
				}
			}
			col.vals = append(col.vals, v)
		}
		c.cols = append(c.cols, col)
	}
	g.r.Shuffle(len(c.cols), func(i, j int) { c.cols[i], c.cols[j] = c.cols[j], c.cols[i] })
	if g.chance(0.5) {
		c.filter = g.filter(c, 2)
	}
	// Drawn last, so that the other draws of a seed stay those of the
	// cases before there was a choice.
	c.writer = pickOf(g, "parquet-go", "rowflow")
	return c
}

// encodings returns the encodings parquet-go writes a required column of
// the kind with.
func (c *rcol) encodings() []string {
	switch c.kind {
	case rBool:
		return []string{"plain"}
	case rInt32, rInt64:
		return []string{"plain", "dict", "delta", "split"}
	case rInt8, rInt16, rUint16, rUint32, rUint64, rString, rBytes, rTimeMs, rTimeUs, rTimeNs:
		return []string{"plain", "dict", "delta"}
	case rFloat32, rFloat64:
		return []string{"plain", "dict", "split"}
	}
	return []string{"plain", "dict"}
}

// writerType returns the struct type the case's files are written from.
func (c *readCase) writerType() reflect.Type {
	var fields []reflect.StructField
	for k, col := range c.cols {
		t := col.kind.goType()
		opts := []string{col.name}
		switch col.shape {
		case rOptional:
			t = reflect.PointerTo(t)
		case rList:
			t = reflect.SliceOf(t)
			opts = append(opts, "list")
		case rRepeated:
			t = reflect.SliceOf(t)
		}
		switch col.kind {
		case rTimeMs:
			opts = append(opts, "timestamp(millisecond)")
		case rTimeUs:
			opts = append(opts, "timestamp(microsecond)")
		case rTimeNs:
			opts = append(opts, "timestamp(nanosecond)")
		case rDate:
			opts = append(opts, "date")
		}
		if col.encoding != "" {
			opts = append(opts, col.encoding)
		}
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("C%d", k), Type: t,
			Tag: reflect.StructTag(`parquet:"` + strings.Join(opts, ",") + `"`)})
	}
	return reflect.StructOf(fields)
}

// write writes the case's files under a new directory, and returns it
// and the files' names.
func (c *readCase) write(t *testing.T) (string, []string) {
	t.Helper()
	wt := c.writerType()
	schema := pq.SchemaOf(reflect.New(wt).Interface())
	root := t.TempDir()
	var names []string
	row := 0
	for k, n := range c.files {
		var buf bytes.Buffer
		if c.writer == "rowflow" {
			c.writeRowflow(t, &buf, schema, wt, row, n)
		} else {
			c.writeParquetGo(t, &buf, schema, wt, row, n)
		}
		name := fmt.Sprintf("part-%d.parquet", k)
		if err := os.WriteFile(filepath.Join(root, name), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		row += n
	}
	return root, names
}

// row returns row i of the case as a value of wt, the writer's type.
func (c *readCase) row(wt reflect.Type, i int) any {
	v := reflect.New(wt)
	for f, col := range c.cols {
		v.Elem().Field(f).Set(col.vals[i])
	}
	return v.Interface()
}

// writeParquetGo writes rows [row, row+n) as a file with parquet-go.
func (c *readCase) writeParquetGo(t *testing.T, buf *bytes.Buffer, schema *pq.Schema, wt reflect.Type, row, n int) {
	t.Helper()
	codecs := map[string]pq.WriterOption{"uncompressed": pq.Compression(&pq.Uncompressed),
		"snappy": pq.Compression(&pq.Snappy), "zstd": pq.Compression(&pq.Zstd), "gzip": pq.Compression(&pq.Gzip)}
	w := pq.NewWriter(buf, schema, pq.MaxRowsPerRowGroup(c.groupRows), pq.PageBufferSize(c.pageBytes),
		pq.DataPageVersion(c.version), codecs[c.codec])
	for i := row; i < row+n; i++ {
		if err := w.Write(c.row(wt, i)); err != nil {
			t.Fatalf("parquet-go: %v\n%s", err, c)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("parquet-go: %v\n%s", err, c)
	}
}

// writeRowflow writes rows [row, row+n) as a file with rowflow's writer,
// as the sinks do (data pages v1 whatever the case's version; of the
// encodings a column asks for, only DELTA_BINARY_PACKED), its columns
// shredded by parquet-go's Deconstruct.
func (c *readCase) writeRowflow(t *testing.T, buf *bytes.Buffer, schema *pq.Schema, wt reflect.Type, row, n int) {
	t.Helper()
	codecs := map[string]pqwrite.Option{"uncompressed": pqwrite.Codec(&pq.Uncompressed),
		"snappy": pqwrite.Codec(&pq.Snappy), "zstd": pqwrite.Codec(pqwrite.NewAdaptiveZstd()), "gzip": pqwrite.Codec(&pq.Gzip)}
	w, err := pqwrite.NewWriter(buf, schema, pqwrite.PageSize(c.pageBytes), codecs[c.codec])
	if err != nil {
		t.Fatalf("pqwrite: %v\n%s", err, c)
	}
	leaves, cols := w.Leaves(), w.NewColumns()
	flush := func() {
		if err := w.WriteRowGroup(context.Background(), cols); err != nil {
			t.Fatalf("pqwrite: %v\n%s", err, c)
		}
		for _, col := range cols {
			col.Reset()
		}
	}
	var values pq.Row
	for i := row; i < row+n; i++ {
		values = schema.Deconstruct(values[:0], c.row(wt, i))
		for _, v := range values {
			col, l := cols[v.Column()], &leaves[v.Column()]
			if l.MaxDefinitionLevel > 0 {
				col.DefLevels = append(col.DefLevels, byte(v.DefinitionLevel()))
			}
			if l.MaxRepetitionLevel > 0 {
				col.RepLevels = append(col.RepLevels, byte(v.RepetitionLevel()))
			}
			if !v.IsNull() {
				col.AppendValue(v)
			}
		}
		if int64(i-row+1)%c.groupRows == 0 {
			flush()
		}
	}
	flush()
	if err := w.Close(); err != nil {
		t.Fatalf("pqwrite: %v\n%s", err, c)
	}
}

// expected returns the items the case must read: the rows the filter
// keeps, converted to fuzzRow, with their IDs.
func (c *readCase) expected(names []string) []flow.Item[fuzzRow] {
	var out []flow.Item[fuzzRow]
	row := 0
	for k, n := range c.files {
		file := rowid.FromString(names[k])
		for i := range n {
			if c.filter == nil || c.filter.eval(c, row+i) == tTrue {
				var r fuzzRow
				rv := reflect.ValueOf(&r).Elem()
				for _, col := range c.cols {
					convertInto(rv.Field(col.field), col.kind, col.vals[row+i])
				}
				out = append(out, flow.Item[fuzzRow]{Value: r, ID: rowid.Ordinal(uint64(i)).Combine(file)})
			}
		}
		row += n
	}
	return out
}

// convertInto sets dst, a field of fuzzRow, to the written value v of a
// column of kind k as the field reads it: a nil pointer into a value is
// its zero.
func convertInto(dst reflect.Value, k rkind, v reflect.Value) {
	switch {
	case v.Kind() == reflect.Pointer && v.IsNil():
		return
	case v.Kind() == reflect.Pointer:
		v = v.Elem()
	}
	switch {
	case dst.Kind() == reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		convertInto(p.Elem(), k, v)
		dst.Set(p)
	case dst.Kind() == reflect.Slice && dst.Type().Elem().Kind() != reflect.Uint8:
		s := reflect.MakeSlice(dst.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			convertInto(s.Index(i), k, v.Index(i))
		}
		dst.Set(s)
	case k == rDate:
		dst.Set(reflect.ValueOf(dateOf(v)))
	default:
		dst.Set(v.Convert(dst.Type()))
	}
}

// dateOf returns the midnight (UTC) of the days since the epoch v.
func dateOf(v reflect.Value) time.Time { return time.Unix(v.Int()*86400, 0).UTC() }

// show prints a value so that equal values print alike: NaNs as NaN,
// times with their location, nil and empty slices alike.
func show(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		return "&" + show(v.Elem())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return fmt.Sprintf("%q", v.Bytes())
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = show(v.Index(i))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Float32, reflect.Float64:
		if math.IsNaN(v.Float()) {
			return "NaN"
		}
		return strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits())
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Struct:
		tm := v.Interface().(time.Time)
		return tm.Format(time.RFC3339Nano) + "@" + tm.Location().String()
	}
	return fmt.Sprint(v.Interface())
}

// same reports whether show prints a and b alike, without printing them
// unless they are times.
func same(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Pointer:
		return a.IsNil() == b.IsNil() && (a.IsNil() || same(a.Elem(), b.Elem()))
	case reflect.Slice:
		if a.Type().Elem().Kind() == reflect.Uint8 {
			return bytes.Equal(a.Bytes(), b.Bytes())
		}
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !same(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		return math.IsNaN(x) && math.IsNaN(y) || x == y && math.Signbit(x) == math.Signbit(y)
	case reflect.String:
		return a.String() == b.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return a.Uint() == b.Uint()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	}
	return show(a) == show(b)
}

// diff describes the first difference between two items' values, or "".
func diff(got, want fuzzRow) string {
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		if same(g.Field(i), w.Field(i)) {
			continue
		}
		if a, b := show(g.Field(i)), show(w.Field(i)); a != b {
			return fmt.Sprintf("field %s is %s, want %s", g.Type().Field(i).Name, a, b)
		}
	}
	return ""
}

// check reads the case's files at parallelism 1 and c.par and compares
// what each gives with what it must.
func (c *readCase) check(t *testing.T) {
	root, names := c.write(t)
	want := c.expected(names)
	opts := []parquet.Option{sources.ChunkSize(c.chunk)}
	if c.maxRows > 0 {
		opts = append(opts, parquet.MaxRows(c.maxRows))
	}
	if c.whole {
		opts = append(opts, sources.WholeFiles())
	}
	if c.filter != nil {
		opts = append(opts, parquet.RowFilter(c.filter.f))
	}
	for _, par := range []int{1, c.par} {
		var got []flow.Item[fuzzRow]
		for it, err := range flow.Items[fuzzRow](t.Context(), flow.From(parquet.Read[fuzzRow](root, opts...)).Parallel(par)) {
			if err != nil {
				t.Fatalf("parallelism %d: %v\n%s", par, err, c)
			}
			got = append(got, it)
		}
		for i := range min(len(got), len(want)) {
			if got[i].ID != want[i].ID {
				t.Fatalf("parallelism %d: item %d has ID %v, want %v (%d items, want %d)\n%s", par, i, got[i].ID, want[i].ID, len(got), len(want), c)
			}
			if d := diff(got[i].Value, want[i].Value); d != "" {
				t.Fatalf("parallelism %d: item %d: %s\n%s", par, i, d, c)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("parallelism %d: %d items, want %d\n%s", par, len(got), len(want), c)
		}
	}
	c.checkResume(t, root, opts, want)
	c.checkRanks(t, root, opts, want)
	c.checkRewrite(t, root, opts, want)
	if c.filter == nil {
		return
	}
	// Records and column batches keep the same rows.
	var recs, cols []rowid.ID
	for it, err := range flow.Items[sources.Record](t.Context(), flow.From(parquet.Read[sources.Record](root, opts...)).Parallel(c.par)) {
		if err != nil {
			t.Fatalf("records: %v\n%s", err, c)
		}
		recs = append(recs, it.ID)
	}
	for b, err := range flow.Values[*parquet.ColumnBatch](t.Context(), flow.From(parquet.Read[*parquet.ColumnBatch](root, opts...)).Parallel(c.par)) {
		if err != nil {
			t.Fatalf("column batches: %v\n%s", err, c)
		}
		for i := range b.NumRows {
			if b.Kept(i) {
				cols = append(cols, b.RowID(i))
			}
		}
		b.Release()
	}
	ids := make([]rowid.ID, len(want))
	for i, it := range want {
		ids[i] = it.ID
	}
	if !slices.Equal(recs, ids) || !slices.Equal(cols, ids) {
		t.Fatalf("Read kept %d rows, Read[sources.Record] %d and Read[*ColumnBatch] %d, not the same\n%s", len(ids), len(recs), len(cols), c)
	}
}

// checkRanks reads the files as 2 to 4 ranks of one run: their items,
// merged by partition number, must be want, IDs, values and order.
func (c *readCase) checkRanks(t *testing.T, root string, opts []parquet.Option, want []flow.Item[fuzzRow]) {
	world := 2 + int(c.seed>>8%3)
	var union []flow.Item[fuzzRow]
	for rank := range world {
		p := flow.From(parquet.Read[fuzzRow](root, opts...)).Parallel(c.par).WithRank(rank, world)
		for it, err := range flow.Items[fuzzRow](t.Context(), p) {
			if err != nil {
				t.Fatalf("rank %d of %d: %v\n%s", rank, world, err, c)
			}
			union = append(union, it)
		}
	}
	slices.SortStableFunc(union, func(a, b flow.Item[fuzzRow]) int { return cmp.Compare(a.Part, b.Part) })
	for i := range min(len(union), len(want)) {
		if union[i].ID != want[i].ID || diff(union[i].Value, want[i].Value) != "" {
			t.Fatalf("%d ranks: item %d of the merged ranks is %v, want %v (%d items, want %d)\n%s",
				world, i, union[i].ID, want[i].ID, len(union), len(want), c)
		}
	}
	if len(union) != len(want) {
		t.Fatalf("%d ranks: %d items together, want %d\n%s", world, len(union), len(want), c)
	}
}

// checkRewrite writes what the case reads, as records
// (shards.Parquet[sources.Record]) or as column batches
// (shards.Parquet[*parquet.ColumnBatch]),
// with the schema RecordSchema gives, and reads each output back: the
// values must be want's, in order. One writer writes each output, so
// that its files, read in name order, hold the rows in stream order.
func (c *readCase) checkRewrite(t *testing.T, root string, opts []parquet.Option, want []flow.Item[fuzzRow]) {
	schema, err := parquet.RecordSchema(root)
	if err != nil {
		t.Fatalf("RecordSchema: %v\n%s", err, c)
	}
	sinkOpts := []shards.ParquetOption{shards.Schema(schema), shards.Writers(1), shards.RowsPerFile(int64(1 + c.seed%500)), shards.RowGroupRows(int(min(c.groupRows, 1<<20)))}
	for _, way := range []string{"records", "column batches"}[c.seed%2:][:1] { // one way per case, for time
		out := filepath.Join(t.TempDir(), "out")
		p := flow.From(parquet.Read[sources.Record](root, opts...)).Parallel(c.par).To(shards.Parquet[sources.Record](out, sinkOpts...))
		if way == "column batches" {
			p = flow.From(parquet.Read[*parquet.ColumnBatch](root, opts...)).Parallel(c.par).To(shards.Parquet[*parquet.ColumnBatch](out, sinkOpts...))
		}
		if err := p.Run(t.Context()); err != nil {
			t.Fatalf("writing the %s read: %v\n%s", way, err, c)
		}
		if len(want) == 0 {
			continue // no rows, no files to read
		}
		i := 0
		for it, err := range flow.Items[fuzzRow](t.Context(), flow.From(parquet.Read[fuzzRow](out))) {
			if err != nil {
				t.Fatalf("reading the %s written: %v\n%s", way, err, c)
			}
			if i >= len(want) {
				t.Fatalf("the %s written read back as more than %d items\n%s", way, len(want), c)
			}
			if d := diff(it.Value, want[i].Value); d != "" {
				t.Fatalf("the %s written: item %d: %s\n%s", way, i, d, c)
			}
			i++
		}
		if i != len(want) {
			t.Fatalf("the %s written read back as %d items, want %d\n%s", way, i, len(want), c)
		}
	}
}

// tri is a truth value of SQL's three-valued logic.
type tri int

const (
	tFalse tri = iota
	tUnknown
	tTrue
)

// evalBool evaluates a node of op "not", "and" or "or" of the generated
// filters from its kids, eval giving a kid's value; ok is false for
// other ops (comparisons, which each test evaluates itself).
func evalBool[N any](op string, kids []N, eval func(N) tri) (v tri, ok bool) {
	switch op {
	case "not":
		return tTrue - eval(kids[0]), true
	case "and":
		v = tTrue
		for _, k := range kids {
			v = min(v, eval(k))
		}
		return v, true
	case "or":
		v = tFalse
		for _, k := range kids {
			v = max(v, eval(k))
		}
		return v, true
	}
	return 0, false
}

// boolExpr is the expression of a node of op "and", "or" or "not" of
// the generated filters, given its kids' expressions.
func boolExpr(op string, fs []sources.Expr) sources.Expr {
	switch op {
	case "and":
		return sources.And(fs...)
	case "or":
		return sources.Or(fs...)
	}
	return sources.Not(fs[0])
}

// fnode is a generated filter with what it means: f, and the tree that
// eval walks.
type fnode struct {
	f    sources.Expr
	op   string // eq ne lt le gt ge in not and or
	col  *rcol
	lits []any
	kids []*fnode
}

// filter draws a filter over the case's scalar columns, of depth up to
// depth.
func (g *rgen) filter(c *readCase, depth int) *fnode {
	if depth > 0 && g.chance(0.4) {
		op := pickOf(g, "and", "or", "not")
		n := &fnode{op: op}
		k := 1
		if op != "not" {
			k = g.r.IntN(4)
		}
		fs := make([]sources.Expr, k)
		for i := range k {
			n.kids = append(n.kids, g.filter(c, depth-1))
			fs[i] = n.kids[i].f
		}
		n.f = boolExpr(op, fs)
		return n
	}
	// Mostly a sorted column, whose pages and row groups the statistics
	// tell apart.
	var scalars, sorted []*rcol
	for _, col := range c.cols {
		if col.scalar() {
			scalars = append(scalars, col)
			if col.sorted {
				sorted = append(sorted, col)
			}
		}
	}
	if len(sorted) > 0 && g.chance(0.7) {
		scalars = sorted
	}
	col := pickOf(g, scalars...)
	n := &fnode{op: pickOf(g, "eq", "ne", "lt", "le", "gt", "ge", "in"), col: col}
	typ := g.r.IntN(4)
	sample := g.literal(c, col, typ)
	n.lits = []any{sample}
	if n.op == "in" { // 0 to 3 literals, of the sample's type
		n.lits = n.lits[:0]
		for range g.r.IntN(4) {
			if l := g.literal(c, col, typ); reflect.TypeOf(l) == reflect.TypeOf(sample) {
				n.lits = append(n.lits, l)
			}
		}
	}
	n.f = makeFilter(n.op, col.name, sample, n.lits)
	return n
}

// literal returns a literal that compares with col: mostly one of its
// values, in one of the Go types that compare with its type (chosen by
// typ), else an edge.
func (g *rgen) literal(c *readCase, col *rcol, typ int) any {
	var v reflect.Value
	for range 4 {
		if c.rows == 0 {
			break
		}
		if x := col.vals[g.r.IntN(c.rows)]; x.Kind() != reflect.Pointer || !x.IsNil() {
			v = reflect.Indirect(x)
			break
		}
	}
	if !v.IsValid() || g.chance(0.15) {
		v = g.value(col.kind, g.r.IntN(max(c.rows, 1)), max(c.rows, 1), false)
	}
	switch col.kind {
	case rBool:
		return v.Bool()
	case rInt8, rInt16, rInt32, rInt64:
		x := v.Int()
		switch typ {
		case 0:
			return x
		case 1:
			return float64(x) + pickOf(g, 0, 0.5, -0.5)
		case 2:
			if x >= 0 {
				return uint64(x)
			}
		}
		return int(x) + pickOf(g, 0, 1, -1)
	case rUint16, rUint32, rUint64:
		x := v.Uint()
		switch typ {
		case 0:
			return x
		case 1:
			return float64(x) + pickOf(g, 0, 0.5, -0.5)
		case 2:
			return int64(x) // negative beyond MaxInt64
		}
		return uint32(x)
	case rFloat32, rFloat64:
		x := v.Float()
		if math.IsNaN(x) {
			x = pickOf(g, 0, 1.5, math.Inf(1))
		}
		switch typ {
		case 0:
			return x
		case 1:
			return float32(x)
		case 2:
			if math.Abs(x) < 1<<62 {
				return int64(x)
			}
		}
		return x + pickOf(g, 0, 0.1, -0.1)
	case rString, rBytes:
		var s string
		if col.kind == rString {
			s = v.String()
		} else {
			s = string(v.Bytes())
		}
		if g.chance(0.2) && len(s) > 0 {
			s = s[:g.r.IntN(len(s))]
		}
		if typ%2 == 0 {
			return s
		}
		return []byte(s)
	}
	var tm time.Time
	if col.kind == rDate {
		tm = dateOf(v)
	} else {
		tm = v.Interface().(time.Time)
	}
	switch {
	case typ == 0:
		return tm.Add(pickOf(g, 0, time.Nanosecond, -time.Nanosecond, time.Hour))
	case typ == 1:
		return tm.In(time.FixedZone("X", 5400))
	case col.kind == rDate:
		return int32(tm.Unix() / 86400)
	}
	return unitsOf(col.kind, tm)
}

// unitsOf returns tm as a count of the kind's unit since the epoch.
func unitsOf(k rkind, tm time.Time) int64 {
	switch k {
	case rTimeMs:
		return tm.UnixMilli()
	case rTimeUs:
		return tm.UnixMicro()
	}
	return tm.UnixNano()
}

// makeFilter builds the comparison op of column col with lits, which
// have the type of sample.
func makeFilter(op, col string, sample any, lits []any) sources.Expr {
	switch sample.(type) {
	case bool:
		return cmpFilter[bool](op, col, lits)
	case int:
		return cmpFilter[int](op, col, lits)
	case int32:
		return cmpFilter[int32](op, col, lits)
	case int64:
		return cmpFilter[int64](op, col, lits)
	case uint32:
		return cmpFilter[uint32](op, col, lits)
	case uint64:
		return cmpFilter[uint64](op, col, lits)
	case float32:
		return cmpFilter[float32](op, col, lits)
	case float64:
		return cmpFilter[float64](op, col, lits)
	case string:
		return cmpFilter[string](op, col, lits)
	case []byte:
		return cmpFilter[[]byte](op, col, lits)
	}
	return cmpFilter[time.Time](op, col, lits)
}

func cmpFilter[V sources.Literal](op, col string, lits []any) sources.Expr {
	vs := make([]V, len(lits))
	for i, l := range lits {
		vs[i] = l.(V)
	}
	switch op {
	case "eq":
		return sources.Eq(col, vs[0])
	case "ne":
		return sources.Ne(col, vs[0])
	case "lt":
		return sources.Lt(col, vs[0])
	case "le":
		return sources.Le(col, vs[0])
	case "gt":
		return sources.Gt(col, vs[0])
	case "ge":
		return sources.Ge(col, vs[0])
	}
	return sources.In(col, vs...)
}

// eval evaluates the filter on row i of the case, as the package doc
// says: comparisons exact, with a null or a NaN unknown.
func (n *fnode) eval(c *readCase, i int) tri {
	if v, ok := evalBool(n.op, n.kids, func(k *fnode) tri { return k.eval(c, i) }); ok {
		return v
	}
	if n.op == "in" { // Or of Eqs: with no literals, false even on a null
		out := tFalse
		for _, l := range n.lits {
			out = max(out, compareRow("eq", n.col, i, l))
		}
		return out
	}
	return compareRow(n.op, n.col, i, n.lits[0])
}

// compareRow compares the value of col in row i with a literal: unknown
// if it is null.
func compareRow(op string, col *rcol, i int, lit any) tri {
	v := col.vals[i]
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return tUnknown
		}
		v = v.Elem()
	}
	return compareAs(op, col.kind, v, lit)
}

// compareAs compares a column's value v with a literal.
func compareAs(op string, k rkind, v reflect.Value, lit any) tri {
	var c int
	switch k {
	case rBool:
		a, b := v.Bool(), lit.(bool)
		c = boolInt(a) - boolInt(b)
	case rString, rBytes:
		var a, b []byte
		if k == rString {
			a = []byte(v.String())
		} else {
			a = v.Bytes()
		}
		if s, ok := lit.(string); ok {
			b = []byte(s)
		} else {
			b = lit.([]byte)
		}
		c = bytes.Compare(a, b)
	case rTimeMs, rTimeUs, rTimeNs, rDate:
		var tm time.Time
		if k == rDate {
			tm = dateOf(v)
		} else {
			tm = v.Interface().(time.Time)
		}
		switch l := lit.(type) {
		case time.Time:
			c = tm.Compare(l)
		case int32:
			c = cmpInt(tm.Unix()/86400, int64(l))
		default:
			c = cmpInt(unitsOf(k, tm), l.(int64))
		}
	default:
		a := exact(v.Interface())
		if a == nil {
			return tUnknown // NaN
		}
		if k == rFloat32 {
			switch l := lit.(type) {
			case float64:
				lit = float32(l) // rounded to the column's precision
			}
		}
		b := exact(lit)
		c = a.Cmp(b)
	}
	var ok bool
	switch op {
	case "eq":
		ok = c == 0
	case "ne":
		ok = c != 0
	case "lt":
		ok = c < 0
	case "le":
		ok = c <= 0
	case "gt":
		ok = c > 0
	default:
		ok = c >= 0
	}
	if ok {
		return tTrue
	}
	return tFalse
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// exact returns a number as an exact big.Float, or nil for a NaN.
func exact(x any) *big.Float {
	f := new(big.Float).SetPrec(256)
	switch x := x.(type) {
	case int8:
		return f.SetInt64(int64(x))
	case int16:
		return f.SetInt64(int64(x))
	case int32:
		return f.SetInt64(int64(x))
	case int64:
		return f.SetInt64(x)
	case int:
		return f.SetInt64(int64(x))
	case uint16:
		return f.SetUint64(uint64(x))
	case uint32:
		return f.SetUint64(uint64(x))
	case uint64:
		return f.SetUint64(x)
	case float32:
		if math.IsNaN(float64(x)) {
			return nil
		}
		return f.SetFloat64(float64(x))
	case float64:
		if math.IsNaN(x) {
			return nil
		}
		return f.SetFloat64(x)
	}
	panic(fmt.Sprintf("exact: %T", x))
}

// checkResume takes a checkpoint after a random item of a run at the
// case's parallelism, and checks that a run resumed from it at
// parallelism 1 gives the items after it.
func (c *readCase) checkResume(t *testing.T, root string, opts []parquet.Option, want []flow.Item[fuzzRow]) {
	if len(want) == 0 {
		return
	}
	k := 1 + int(c.seed%uint64(len(want)))
	ck, err := testutil.CheckpointAfter[fuzzRow](t.Context(), flow.From(parquet.Read[fuzzRow](root, opts...)).Parallel(c.par), k)
	if err != nil {
		t.Fatalf("parallelism %d, checkpoint after item %d: %v\n%s", c.par, k, err, c)
	}
	i := k
	for it, err := range flow.Items[fuzzRow](t.Context(), flow.From(parquet.Read[fuzzRow](root, opts...)).Resume(ck)) {
		if err != nil {
			t.Fatalf("resumed after item %d: %v\n%s", k, err, c)
		}
		if i >= len(want) || it.ID != want[i].ID || diff(it.Value, want[i].Value) != "" {
			t.Fatalf("resumed after item %d of %d: item %d differs\n%s", k, len(want), i, c)
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("resumed after item %d: gave items up to %d, want %d\n%s", k, i, len(want), c)
	}
}
