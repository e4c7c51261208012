package shards

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/parquet/pqwrite"
	"github.com/rowflow/rowflow/rowid"
)

// Named leaf types: parquet-go and the plan go by a field's kind, so a
// named integer, string or bool is written as its kind is.
type (
	fuzzInt16  int16
	fuzzUint64 uint64
	fuzzText   string
	fuzzFlag   bool
)

// structPlanSeeds are FuzzStructPlan's seed corpus: each seed is a struct
// type and a run of values of it (see fuzzStructType and fuzzValues.rows).
//
// The last four found bugs of the plan, now fixed, and stay as
// regressions:
//   - 5778: struct { F1 *time.Time } with F1 math.MinInt64+1 ns, in the
//     first second of the nanosecond range, before its first whole
//     second: instantValue refused it;
//   - 12447: struct { F1 *float64; F2 time.Time } with F2 math.MaxInt64+1
//     ns: instantValue let sec*perSec + units wrap around;
//   - 15986: struct { F1 int32; struct { F3 interface{} } }: parquet-go's
//     Field.Value panics on the embedded interface field, and
//     newStructPlan with it;
//   - 16865: struct { F1 *struct { f2 string }; F3 []string }: a group
//     without leaves, which pqwrite refuses, was taken by the plan.
var structPlanSeeds = []uint64{
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39,
	40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
	5778, 12447, 15986, 16865,
}

// FuzzStructPlan is a differential test of the struct plan (newStructPlan,
// leafWriter.write) against parquet-go's own striping of the same values.
// Each input is a seed, from which it builds a random struct type at run
// time (reflect.StructOf: nested, embedded and optional structs, pointers,
// repeated fields and LISTs of every leaf kind the plan covers, with
// their tags, and rarely fields that it does not cover) and random values
// of it (nil pointers, empty and nil slices, zero values, long strings,
// extreme numbers and times). For each leaf column, the levels
// (repetition, definition) that the plan writes and its non-null values
// must be those of parquet-go (Schema.Deconstruct; see oracleEntries), but
// for the times that the column's unit cannot hold, which the plan must
// refuse, naming the struct. The plan's columns must then make a file
// (pqwrite) that parquet-go reads back as the same rows.
//
// Types that parquet.SchemaOf refuses (it panics), and types that the plan
// does not cover (newStructPlan returns nil, and parquet-go's
// GenericWriter writes them) are skipped. The census of the first
// fuzzCensus seeds' types, logged, fails if more than half are, so that
// the test cannot pass by skipping.
//
// go test -run FuzzStructPlan runs the seeds; go test -run '^$' -fuzz
// FuzzStructPlan explores.
func FuzzStructPlan(f *testing.F) {
	for _, seed := range structPlanSeeds {
		f.Add(seed)
	}
	var c fuzzCensusCounts
	for seed := range uint64(fuzzCensus) {
		c.add(fuzzPlanOf(seed))
	}
	f.Logf("census of %d random struct types: %d planned, %d not covered by the plan, %d refused by parquet.SchemaOf, "+
		"%d on which newStructPlan panics; parquet-go's striping from Deconstruct for %d, from its GenericWriter[any] for %d",
		fuzzCensus, c.planned, c.uncovered, c.refused, c.panicked, c.deconstruct, c.genericWriter)
	if skipped := c.uncovered + c.refused + c.panicked; 2*skipped > fuzzCensus {
		f.Fatalf("%d of %d random struct types skipped: the test checks too few", skipped, fuzzCensus)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		checkStructPlan(t, seed)
	})
}

// fuzzCensus is the number of seeds whose types FuzzStructPlan counts.
const fuzzCensus = 400

// fuzzCensusCounts counts the types of seeds by what the test does with
// them.
type fuzzCensusCounts struct {
	planned, uncovered, refused, panicked int
	deconstruct, genericWriter            int // of planned: parquet-go's striping that the plan is checked against
}

// add counts the type of one seed.
func (c *fuzzCensusCounts) add(p fuzzPlan) {
	switch {
	case p.refused != "":
		c.refused++
	case p.panicked != "":
		c.panicked++
	case p.plan == nil:
		c.uncovered++
	default:
		c.planned++
		if hasOptionalListElement(p.schema) {
			c.genericWriter++
		} else {
			c.deconstruct++
		}
	}
}

// fuzzPlan is the struct type of a seed, its schema and its plan.
type fuzzPlan struct {
	typ      reflect.Type
	schema   *parquet.Schema
	plan     *structPlan // nil if the plan does not cover typ
	refused  string      // parquet.SchemaOf's panic, if it refused typ
	panicked string      // newStructPlan's panic
}

// fuzzPlanOf returns the struct type of seed, with its schema and plan.
func fuzzPlanOf(seed uint64) (p fuzzPlan) {
	p.typ = fuzzStructType(seed)
	p.refused = catch(func() {
		p.schema = parquet.SchemaOf(reflect.New(p.typ).Elem().Interface())
		p.schema.Columns() // lays out the columns, which may panic too
	})
	if p.refused == "" {
		p.panicked = catch(func() { p.plan = newStructPlan(p.typ, p.schema, nil) })
	}
	return p
}

// catch calls f and returns its panic, if it panics.
func catch(f func()) (panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

// checkStructPlan checks the plan of seed's type on seed's values, leaf
// by leaf, against parquet-go's striping, then through a file.
func checkStructPlan(t *testing.T, seed uint64) {
	p := fuzzPlanOf(seed)
	if p.panicked != "" {
		t.Fatalf("seed %d: newStructPlan panicked: %s\ntype %v", seed, p.panicked, p.typ)
	}
	if p.plan == nil {
		return // counted by the census
	}
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	vals := (&fuzzValues{r: r}).rows(p.typ)
	n := vals.Len()
	exp := oracleEntries(t, p.schema, vals)
	cols := p.schema.Columns()
	failing := timeFailures(p.schema, vals)
	if len(p.plan.leaves) != len(cols) {
		t.Fatalf("seed %d: %d leaves for %d columns", seed, len(p.plan.leaves), len(cols))
	}
	base, stride := vals.UnsafePointer(), p.typ.Size()
	for j := range p.plan.leaves {
		l := &p.plan.leaves[j]
		leaf, _ := p.schema.Lookup(cols[j]...)
		if l.name != strings.Join(cols[j], ".") || l.maxRep != leaf.MaxRepetitionLevel || l.maxDef != leaf.MaxDefinitionLevel {
			t.Fatalf("seed %d: leaf %d is %s (max levels %d, %d), the column %s (%d, %d)", seed, j, l.name, l.maxRep, l.maxDef,
				strings.Join(cols[j], "."), leaf.MaxRepetitionLevel, leaf.MaxDefinitionLevel)
		}
		c := new(pqwrite.Column)
		var want []fuzzEntry
		for i := range n {
			if !failing[j][i] {
				want = append(want, exp[i][j]...)
			}
		}
		// Write the structs in runs of random lengths, as structWriter
		// writes a chunk's rows between batch ends. A run with a struct
		// that the column cannot hold must fail at that struct; the test
		// then drops what the run wrote, writes the run's structs before
		// that one, and goes on after it.
		for first := 0; first < n; {
			end := min(n, first+1+r.IntN(8))
			bad := -1
			for i := first; i < end && bad < 0; i++ {
				if failing[j][i] {
					bad = i
				}
			}
			at := unsafe.Add(base, uintptr(first)*stride)
			if bad < 0 {
				if k, err := l.write(c, at, stride, end-first); err != nil {
					t.Fatalf("seed %d: column %s: rows %d to %d: struct %d: %v\ntype %v\nrow %s",
						seed, l.name, first, end, first+k, err, p.typ, fuzzRowString(vals, first+k))
				}
				first = end
				continue
			}
			m := c.Mark()
			k, err := l.write(c, at, stride, end-first)
			if err == nil || first+k != bad || !strings.Contains(err.Error(), "out of the range") {
				t.Fatalf("seed %d: column %s: rows %d to %d: got (%d, %v), want an error out of the range at struct %d\ntype %v\nrow %s",
					seed, l.name, first, end, first+k, err, bad, p.typ, fuzzRowString(vals, bad))
			}
			c.Undo(m)
			if k, err := l.write(c, at, stride, bad-first); err != nil {
				t.Fatalf("seed %d: column %s: rows %d to %d: struct %d: %v", seed, l.name, first, bad, first+k, err)
			}
			first = bad + 1
		}
		got, err := planEntries(c, leaf)
		if err != nil {
			t.Fatalf("seed %d: column %s: %v\ntype %v", seed, l.name, err, p.typ)
		}
		if i, ok := firstDiff(got, want); !ok {
			row := rowOfEntry(exp, j, failing[j], i)
			t.Fatalf("seed %d: column %s (max levels %d, %d), entry %d (row %d):\nplan       %v\nparquet-go %v\ntype %v\n%v\nrow %s",
				seed, l.name, l.maxRep, l.maxDef, i, row, got, want, p.typ, p.schema, fuzzRowString(vals, row))
		}
	}
	checkStructFile(t, seed, p, vals, exp, failing)
	runtime.KeepAlive(vals)
}

// checkStructFile writes the structs of vals that every column holds
// (none of failing) with the plan to a file of rowflow's writer, in two
// row groups, and reads them back with parquet-go: the rows of exp.
func checkStructFile(t *testing.T, seed uint64, p fuzzPlan, vals reflect.Value, exp [][][]fuzzEntry, failing []map[int]bool) {
	var keep []int
	good := reflect.MakeSlice(vals.Type(), 0, vals.Len())
	for i := range vals.Len() {
		ok := true
		for _, f := range failing {
			ok = ok && !f[i]
		}
		if ok {
			keep = append(keep, i)
			good = reflect.Append(good, vals.Index(i))
		}
	}
	var buf bytes.Buffer
	opts := []pqwrite.Option{pqwrite.PageSize(64)} // pages of a few rows
	if seed%2 == 0 {
		opts = nil
	}
	w, err := pqwrite.NewWriter(&buf, p.schema, opts...)
	if err != nil {
		t.Fatalf("seed %d: pqwrite.NewWriter: %v\ntype %v\n%v", seed, err, p.typ, p.schema)
	}
	base, stride := good.UnsafePointer(), p.typ.Size()
	half := len(keep) / 2
	for _, group := range [][2]int{{0, half}, {half, len(keep)}} {
		cols := w.NewColumns()
		for j := range p.plan.leaves {
			l := &p.plan.leaves[j]
			if _, err := l.write(cols[j], unsafe.Add(base, uintptr(group[0])*stride), stride, group[1]-group[0]); err != nil {
				t.Fatalf("seed %d: column %s: %v", seed, l.name, err)
			}
		}
		if err := w.WriteRowGroup(context.Background(), cols); err != nil {
			t.Fatalf("seed %d: WriteRowGroup: %v\ntype %v", seed, err, p.typ)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	rows := readRows(t, buf.Bytes())
	if len(rows) != len(keep) {
		t.Fatalf("seed %d: read back %d rows, wrote %d", seed, len(rows), len(keep))
	}
	cols := p.schema.Columns()
	for k, i := range keep {
		got := rowEntries(rows[k], p.schema)
		for j := range got {
			if d, ok := firstDiff(got[j], exp[i][j]); !ok {
				t.Fatalf("seed %d: the file's row %d, column %s, entry %d:\nread back  %v\nparquet-go %v\ntype %v\nrow %s",
					seed, i, strings.Join(cols[j], "."), d, got[j], exp[i][j], p.typ, fuzzRowString(vals, i))
			}
		}
	}
	runtime.KeepAlive(good)
}

// fuzzEntry is one level entry of a column: its levels and, unless it is
// null, its value (see fuzzKey).
type fuzzEntry struct {
	rep, def int
	null     bool
	val      string
}

// String prints the entry as (rep,def value), or (rep,def null).
func (e fuzzEntry) String() string {
	if e.null {
		return fmt.Sprintf("(%d,%d null)", e.rep, e.def)
	}
	return fmt.Sprintf("(%d,%d %s)", e.rep, e.def, e.val)
}

// firstDiff returns the index of the first entry where got and want
// differ, and whether they are the same.
func firstDiff(got, want []fuzzEntry) (int, bool) {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return i, false
		}
	}
	if len(got) != len(want) {
		return min(len(got), len(want)), false
	}
	return 0, true
}

// rowOfEntry returns the row that holds entry i of column j, the entries
// of the rows of failing left out.
func rowOfEntry(exp [][][]fuzzEntry, j int, failing map[int]bool, i int) int {
	for row := range exp {
		if failing[row] {
			continue
		}
		if i < len(exp[row][j]) {
			return row
		}
		i -= len(exp[row][j])
	}
	return len(exp) - 1
}

// fuzzRowString prints row i of vals, if there is one.
func fuzzRowString(vals reflect.Value, i int) string {
	if i < 0 || i >= vals.Len() {
		return "-"
	}
	return fmt.Sprintf("%+v", vals.Index(i))
}

// oracleEntries returns parquet-go's level entries of each struct of
// vals, per struct and per column. They are Schema.Deconstruct's, but for
// a schema with a LIST of optional elements, whose levels Deconstruct gets
// wrong (it drops the elements' definition level, and panics on a pointer
// to a leaf): then they are those of the rows that parquet-go's
// GenericWriter[any] writes (its reflection path keeps the elements'
// optionality), read back.
func oracleEntries(t *testing.T, schema *parquet.Schema, vals reflect.Value) [][][]fuzzEntry {
	n := vals.Len()
	exp := make([][][]fuzzEntry, n)
	if !hasOptionalListElement(schema) {
		for i := range n {
			exp[i] = rowEntries(schema.Deconstruct(nil, vals.Index(i).Interface()), schema)
		}
		return exp
	}
	if n == 0 {
		return exp
	}
	b, err := genericWrite(schema, vals)
	if err != nil {
		t.Fatalf("no striping of parquet-go: %v\ntype %v", err, vals.Type().Elem())
	}
	read := readRows(t, b)
	if len(read) != n {
		t.Fatalf("parquet-go's GenericWriter[any] wrote %d rows of %d", len(read), n)
	}
	for i := range n {
		exp[i] = rowEntries(read[i], schema)
	}
	return exp
}

// genericWrite writes the structs of vals with parquet-go's
// GenericWriter[any] of the schema, and returns the file, or parquet-go's
// error or panic. It writes pointers to the structs, as structs of their
// type without uintptrs (see withoutUintptr): the writer's reflection
// path takes a [N]byte only where it is addressable, and no uintptr.
func genericWrite(schema *parquet.Schema, vals reflect.Value) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parquet-go's GenericWriter[any] panicked: %v", r)
		}
	}()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[any](&buf, schema)
	rows := make([]any, vals.Len())
	t := withoutUintptr(vals.Type().Elem())
	for i := range rows {
		rows[i] = reflect.NewAt(t, vals.Index(i).Addr().UnsafePointer()).Interface()
	}
	if _, err := w.Write(rows); err != nil {
		return nil, fmt.Errorf("parquet-go's GenericWriter[any]: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("parquet-go's GenericWriter[any]: %w", err)
	}
	return buf.Bytes(), nil
}

// withoutUintptr returns type t with uint64 for uintptr, wherever it is:
// the same memory and the same columns (parquet-go makes a UINT(64) of
// both).
func withoutUintptr(t reflect.Type) reflect.Type {
	switch t.Kind() {
	case reflect.Uintptr:
		return reflect.TypeFor[uint64]()
	case reflect.Pointer:
		return reflect.PointerTo(withoutUintptr(t.Elem()))
	case reflect.Slice:
		return reflect.SliceOf(withoutUintptr(t.Elem()))
	case reflect.Struct:
		if t.Name() != "" {
			return t // time.Time
		}
		fields := make([]reflect.StructField, t.NumField())
		for i := range fields {
			fields[i] = t.Field(i)
			fields[i].Type = withoutUintptr(fields[i].Type)
		}
		return reflect.StructOf(fields)
	}
	return t
}

// hasOptionalListElement reports whether a LIST under node n has
// optional elements.
func hasOptionalListElement(n parquet.Node) bool {
	if n.Leaf() {
		return false
	}
	if isList(n) {
		if list := n.Fields(); len(list) == 1 && len(list[0].Fields()) == 1 && list[0].Fields()[0].Optional() {
			return true
		}
	}
	for _, f := range n.Fields() {
		if hasOptionalListElement(f) {
			return true
		}
	}
	return false
}

// readRows reads the rows of a Parquet file with parquet-go.
func readRows(t *testing.T, b []byte) []parquet.Row {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("parquet-go cannot open the file: %v", err)
	}
	r := parquet.NewReader(f)
	defer r.Close()
	var out []parquet.Row
	rows := make([]parquet.Row, 16)
	for {
		n, err := r.ReadRows(rows)
		for _, row := range rows[:n] {
			out = append(out, row.Clone())
		}
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("parquet-go cannot read the file: %v", err)
		}
	}
}

// rowEntries returns the level entries of a row of parquet-go, per column
// of the schema.
func rowEntries(row parquet.Row, schema *parquet.Schema) [][]fuzzEntry {
	cols := schema.Columns()
	kinds := make([]parquet.Kind, len(cols))
	for j, path := range cols {
		leaf, _ := schema.Lookup(path...)
		kinds[j] = leaf.Node.Type().Kind()
	}
	out := make([][]fuzzEntry, len(cols))
	for _, v := range row {
		e := fuzzEntry{rep: v.RepetitionLevel(), def: v.DefinitionLevel(), null: v.IsNull()}
		if !e.null {
			e.val = fuzzKey(kinds[v.Column()], v)
		}
		out[v.Column()] = append(out[v.Column()], e)
	}
	return out
}

// fuzzKey returns a value of a column of kind k as the test compares it:
// numbers in full (floats in the shortest form that reads back, with the
// sign of a zero, but any NaN as NaN: parquet-go's Deconstruct converts a
// float32 through float64, which may quiet a NaN), and bytes quoted.
func fuzzKey(k parquet.Kind, v parquet.Value) string {
	switch k {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	}
	return strconv.Quote(string(v.ByteArray()))
}

// planEntries returns the level entries of column c of leaf, as the plan
// wrote it, after checking that it is well formed: values in the slice
// of the leaf's kind only, levels of each kind only where the leaf's
// maximum level of the kind is above 0, and one value per entry at the
// maximum definition level.
func planEntries(c *pqwrite.Column, leaf parquet.LeafColumn) ([]fuzzEntry, error) {
	k := leaf.Node.Type().Kind()
	held := []struct {
		kind parquet.Kind
		n    int
	}{
		{parquet.Boolean, len(c.Boolean)}, {parquet.Int32, len(c.Int32)}, {parquet.Int64, len(c.Int64)},
		{parquet.Float, len(c.Float)}, {parquet.Double, len(c.Double)},
	}
	for _, h := range held {
		if h.kind != k && h.n > 0 {
			return nil, fmt.Errorf("%d %v values in a column of %v", h.n, h.kind, k)
		}
	}
	if k != parquet.ByteArray && k != parquet.FixedLenByteArray && len(c.Bytes)+len(c.Offsets) > 0 {
		return nil, fmt.Errorf("%d bytes in a column of %v", len(c.Bytes), k)
	}
	var vals []string
	switch k {
	case parquet.Boolean:
		for _, v := range c.Boolean {
			vals = append(vals, fuzzKey(k, parquet.BooleanValue(v)))
		}
	case parquet.Int32:
		for _, v := range c.Int32 {
			vals = append(vals, fuzzKey(k, parquet.Int32Value(v)))
		}
	case parquet.Int64:
		for _, v := range c.Int64 {
			vals = append(vals, fuzzKey(k, parquet.Int64Value(v)))
		}
	case parquet.Float:
		for _, v := range c.Float {
			vals = append(vals, fuzzKey(k, parquet.FloatValue(v)))
		}
	case parquet.Double:
		for _, v := range c.Double {
			vals = append(vals, fuzzKey(k, parquet.DoubleValue(v)))
		}
	case parquet.ByteArray:
		if len(c.Offsets) == 0 && len(c.Bytes) > 0 || len(c.Offsets) > 0 && (c.Offsets[0] != 0 || int(c.Offsets[len(c.Offsets)-1]) != len(c.Bytes)) {
			return nil, fmt.Errorf("%d bytes, offsets %v", len(c.Bytes), c.Offsets)
		}
		for i := 1; i < len(c.Offsets); i++ {
			if c.Offsets[i] < c.Offsets[i-1] {
				return nil, fmt.Errorf("offsets %v", c.Offsets)
			}
			vals = append(vals, strconv.Quote(string(c.Bytes[c.Offsets[i-1]:c.Offsets[i]])))
		}
	case parquet.FixedLenByteArray:
		w := leaf.Node.Type().Length()
		if len(c.Offsets) > 0 || w == 0 || len(c.Bytes)%w != 0 {
			return nil, fmt.Errorf("%d bytes and %d offsets in a column of [%d]byte", len(c.Bytes), len(c.Offsets), w)
		}
		for i := 0; i < len(c.Bytes); i += w {
			vals = append(vals, strconv.Quote(string(c.Bytes[i:i+w])))
		}
	default:
		return nil, fmt.Errorf("a column of %v", k)
	}
	maxRep, maxDef := leaf.MaxRepetitionLevel, leaf.MaxDefinitionLevel
	if maxDef == 0 && len(c.DefLevels) > 0 || maxRep == 0 && len(c.RepLevels) > 0 {
		return nil, fmt.Errorf("%d definition and %d repetition levels in a column of maximum levels %d, %d",
			len(c.DefLevels), len(c.RepLevels), maxRep, maxDef)
	}
	if maxRep > 0 && len(c.RepLevels) != len(c.DefLevels) {
		return nil, fmt.Errorf("%d repetition levels for %d definition levels", len(c.RepLevels), len(c.DefLevels))
	}
	if maxDef == 0 {
		out := make([]fuzzEntry, len(vals))
		for i, v := range vals {
			out[i] = fuzzEntry{val: v}
		}
		return out, nil
	}
	var out []fuzzEntry
	for i, d := range c.DefLevels {
		e := fuzzEntry{def: int(d), null: int(d) != maxDef}
		if maxRep > 0 {
			e.rep = int(c.RepLevels[i])
		}
		if !e.null {
			if len(vals) == 0 {
				return nil, fmt.Errorf("more entries at the maximum definition level than the %d values", len(out))
			}
			e.val, vals = vals[0], vals[1:]
		}
		out = append(out, e)
	}
	if len(vals) > 0 {
		return nil, fmt.Errorf("%d values left over the entries at the maximum definition level", len(vals))
	}
	return out, nil
}

// timeFailures returns, per leaf column of the schema, the structs of
// vals that hold a time there that the column's unit cannot hold, which
// the plan must refuse.
func timeFailures(schema *parquet.Schema, vals reflect.Value) []map[int]bool {
	cols := schema.Columns()
	per := make([]int64, len(cols))
	for j, path := range cols {
		per[j] = unitNanos(schema, path)
	}
	failing := make([]map[int]bool, len(cols))
	for i := range vals.Len() {
		for j, vs := range goLeafValues(schema, vals.Index(i)) {
			for _, v := range vs {
				if tm, ok := v.Interface().(time.Time); ok && !timeFits(tm, per[j]) {
					if failing[j] == nil {
						failing[j] = map[int]bool{}
					}
					failing[j][i] = true
				}
			}
		}
	}
	return failing
}

// goLeafValues returns the Go values of struct v that each leaf column of
// the schema holds, in the order of its non-null entries: parquet-go's
// striping of a struct, without the levels.
func goLeafValues(schema *parquet.Schema, v reflect.Value) [][]reflect.Value {
	out := make([][]reflect.Value, len(schema.Columns()))
	goLeaves(schema, v, 0, out)
	return out
}

// goLeaves appends the Go values that node n holds in v (invalid if n is
// null) to out, per leaf column from column col, and returns the column
// after n's.
func goLeaves(n parquet.Node, v reflect.Value, col int, out [][]reflect.Value) int {
	if n.Optional() {
		switch {
		case !v.IsValid():
		case v.Kind() == reflect.Pointer && v.IsNil(), v.Kind() == reflect.Slice && v.IsNil(), v.IsZero():
			v = reflect.Value{}
		case v.Kind() == reflect.Pointer:
			v = v.Elem()
		}
		n = parquet.Required(n)
	}
	switch {
	case n.Repeated(), isList(n):
		elem := parquet.Required(n)
		if !n.Repeated() {
			elem = n.Fields()[0].Fields()[0]
		}
		for i := 0; v.IsValid() && i < v.Len(); i++ {
			goLeaves(elem, v.Index(i), col, out)
		}
		return col + numLeaves(n)
	case n.Leaf():
		if v.IsValid() {
			out[col] = append(out[col], v)
		}
		return col + 1
	}
	for _, f := range n.Fields() {
		fv := reflect.Value{}
		if v.IsValid() {
			fv = f.Value(v)
		}
		col = goLeaves(f, fv, col, out)
	}
	return col
}

// numLeaves returns the number of leaf columns of node n.
func numLeaves(n parquet.Node) int {
	if n.Leaf() {
		return 1
	}
	k := 0
	for _, f := range n.Fields() {
		k += numLeaves(f)
	}
	return k
}

// unitNanos returns the nanoseconds of the unit of a timestamp column,
// or 0 if it is not one.
func unitNanos(schema *parquet.Schema, path []string) int64 {
	leaf, _ := schema.Lookup(path...)
	if lt := leaf.Node.Type().LogicalType(); lt != nil {
		if ts, ok := lt.Value.(*pqformat.TimestampType); ok {
			switch ts.Unit.Value.(type) {
			case *pqformat.MilliSeconds:
				return 1e6
			case *pqformat.MicroSeconds:
				return 1e3
			}
			return 1
		}
	}
	return 0
}

// timeFits reports whether an int64 holds time tm as a number of units of
// per nanoseconds (its instant, rounded down to a unit); any time fits a
// column that is not a timestamp (per 0).
func timeFits(tm time.Time, per int64) bool {
	if per == 0 {
		return true
	}
	ns := new(big.Int).Mul(big.NewInt(tm.Unix()), big.NewInt(1e9))
	ns.Add(ns, big.NewInt(int64(tm.Nanosecond())))
	return new(big.Int).Div(ns, big.NewInt(per)).IsInt64() // Euclidean: rounds down
}

// fuzzTypes generates random struct types.
type fuzzTypes struct {
	r     *rand.Rand
	names int // fields named so far: every field of a type has its own name
}

// fuzzStructType returns the random struct type of seed.
func fuzzStructType(seed uint64) reflect.Type {
	g := fuzzTypes{r: rand.New(rand.NewPCG(seed, 0x7e57))}
	return g.structOf(1+g.r.IntN(3), 1+g.r.IntN(6))
}

// structOf returns a struct type of n fields, whose fields nest structs
// depth levels deep at most.
func (g *fuzzTypes) structOf(depth, n int) reflect.Type {
	fields := make([]reflect.StructField, n)
	for i := range fields {
		fields[i] = g.field(depth)
	}
	return reflect.StructOf(fields)
}

// field returns a random field: a leaf, a pointer to one, a struct
// (nested, optional, a pointer or embedded), a repeated field or a LIST
// (of leaves, of structs, of pointers, of LISTs; the list or its elements
// optional), and rarely a field that the plan does not cover or that no
// column holds (see odd). The column is named by the tag, or by the
// field.
func (g *fuzzTypes) field(depth int) reflect.StructField {
	r := g.r
	g.names++
	f := reflect.StructField{Name: fmt.Sprintf("F%d", g.names)}
	name := ""
	if r.IntN(4) > 0 {
		name = fmt.Sprintf("c%d", g.names)
	}
	var opts []string
	elem := ""
	optional := func() {
		if r.IntN(5) == 0 {
			opts = append(opts, "optional")
		}
	}
	switch s := r.IntN(100); {
	case s < 30 || depth == 0 && s < 60: // a leaf, maybe optional (null when zero)
		f.Type, opts = g.leaf(false)
		optional()
	case s < 42: // a pointer to a leaf
		var t reflect.Type
		t, opts = g.leaf(true)
		f.Type = reflect.PointerTo(t)
		optional()
	case s < 50: // a nested struct, maybe optional
		f.Type = g.structOf(depth-1, 1+r.IntN(4))
		optional()
	case s < 56: // a pointer to a struct
		f.Type = reflect.PointerTo(g.structOf(depth-1, 1+r.IntN(4)))
	case s < 61: // an embedded struct: its fields are the parent's
		f.Type, f.Anonymous, f.Name, name = g.structOf(depth-1, 1+r.IntN(3)), true, fmt.Sprintf("E%d", g.names), ""
	case s < 68: // a repeated leaf or struct (optional applies to its elements, and is dropped)
		f.Type = reflect.SliceOf(g.elem(depth, false))
		optional()
	case s < 84: // a LIST of leaves or structs, maybe optional, maybe of optional elements
		et := g.elem(depth, false)
		f.Type, opts, elem = reflect.SliceOf(et), []string{"list"}, g.elemTag(et)
		optional()
	case s < 90: // a LIST of pointers
		f.Type, opts = reflect.SliceOf(g.elem(depth, true)), []string{"list"}
		optional()
	case s < 94: // a LIST of LISTs
		t, _ := g.leaf(false)
		if depth > 0 && r.IntN(2) == 0 {
			t = g.structOf(depth-1, 1+r.IntN(2))
		}
		f.Type, opts = reflect.SliceOf(reflect.SliceOf(t)), []string{"list"}
		optional()
	default:
		f.Type, opts, name = g.odd()
		if f.Type == nil { // an unexported field
			f.Type, _ = g.leaf(false)
			f.Name, f.PkgPath = strings.ToLower(f.Name), "github.com/rowflow/rowflow/sinks/shards"
		}
	}
	if r.IntN(15) == 0 {
		opts = append(opts, fmt.Sprintf("id(%d)", g.names))
	}
	if !f.Anonymous {
		f.Tag = fuzzTag(name, opts, elem)
	}
	return f
}

// fuzzTag returns the struct tag of a field whose column is named name
// (the field's name if empty), with options opts, and elem the options of
// a LIST's elements.
func fuzzTag(name string, opts []string, elem string) reflect.StructTag {
	var tags []string
	if name != "" || len(opts) > 0 {
		tags = append(tags, fmt.Sprintf(`parquet:"%s"`, strings.Join(append([]string{name}, opts...), ",")))
	}
	if elem != "" {
		tags = append(tags, fmt.Sprintf(`parquet-element:"%s"`, elem))
	}
	return reflect.StructTag(strings.Join(tags, " "))
}

// elem returns the element type of a slice: a leaf or, with depth left,
// a struct, or pointers to them if ptr.
func (g *fuzzTypes) elem(depth int, ptr bool) reflect.Type {
	t, _ := g.leaf(false)
	if depth > 0 && g.r.IntN(3) == 0 {
		t = g.structOf(depth-1, 1+g.r.IntN(3))
	}
	if ptr {
		return reflect.PointerTo(t)
	}
	return t
}

// elemTag returns a random parquet-element tag for the elements of type t
// of a LIST: none, optional (null when zero), or a timestamp's unit.
func (g *fuzzTypes) elemTag(t reflect.Type) string {
	switch g.r.IntN(6) {
	case 0:
		return ",optional"
	case 1:
		if t == reflect.TypeFor[time.Time]() {
			return ",timestamp(millisecond)"
		}
	}
	return ""
}

// leaf returns a random leaf type and tag options for it (for a pointer
// to it if ptr): logical types, and rarely an encoding.
func (g *fuzzTypes) leaf(ptr bool) (reflect.Type, []string) {
	t, opts := g.leafType(ptr)
	if !ptr && g.r.IntN(10) == 0 {
		switch k := t.Kind(); {
		case g.r.IntN(2) == 0:
			opts = append(opts, []string{"plain", "dict"}[g.r.IntN(2)])
		case k >= reflect.Int && k <= reflect.Uint64 && k != reflect.Bool, k == reflect.String,
			k == reflect.Slice, t == reflect.TypeFor[time.Time]():
			opts = append(opts, "delta")
		case k == reflect.Float32, k == reflect.Float64:
			opts = append(opts, "split")
		}
	}
	return t, opts
}

// leafType returns a random leaf type, and the options of a logical type
// for it (for a pointer to it if ptr), some not covered by the plan.
func (g *fuzzTypes) leafType(ptr bool) (reflect.Type, []string) {
	r := g.r
	switch r.IntN(24) {
	case 0:
		return reflect.TypeFor[bool](), nil
	case 1:
		return reflect.TypeFor[int8](), nil
	case 2:
		return reflect.TypeFor[int16](), nil
	case 3:
		if !ptr && r.IntN(4) == 0 {
			return reflect.TypeFor[int32](), []string{"date"}
		}
		return reflect.TypeFor[int32](), nil
	case 4:
		if r.IntN(6) == 0 {
			return reflect.TypeFor[int64](), []string{"timestamp(millisecond)"}
		}
		return reflect.TypeFor[int64](), nil
	case 5:
		return reflect.TypeFor[int](), nil
	case 6:
		return reflect.TypeFor[uint8](), nil
	case 7:
		return reflect.TypeFor[uint16](), nil
	case 8:
		return reflect.TypeFor[uint32](), nil
	case 9:
		return reflect.TypeFor[uint64](), nil
	case 10:
		return []reflect.Type{reflect.TypeFor[uint](), reflect.TypeFor[uintptr]()}[r.IntN(2)], nil
	case 11:
		return reflect.TypeFor[float32](), nil
	case 12:
		return reflect.TypeFor[float64](), nil
	case 13, 14:
		if !ptr && r.IntN(5) == 0 {
			return reflect.TypeFor[string](), []string{[]string{"enum", "bytes", "json"}[r.IntN(3)]} // json: not covered
		}
		return reflect.TypeFor[string](), nil
	case 15:
		if !ptr && r.IntN(4) == 0 {
			return reflect.TypeFor[[]byte](), []string{"string"}
		}
		return reflect.TypeFor[[]byte](), nil
	case 16:
		size := []int{1, 3, 8, 12, 16, 16, 20}[r.IntN(7)]
		if size == 16 && !ptr && r.IntN(2) == 0 {
			return reflect.TypeFor[[16]byte](), []string{"uuid"}
		}
		return reflect.ArrayOf(size, reflect.TypeFor[byte]()), nil
	case 17, 18, 19:
		switch r.IntN(7) {
		case 0:
			return reflect.TypeFor[time.Time](), []string{"timestamp(millisecond)"}
		case 1:
			return reflect.TypeFor[time.Time](), []string{"timestamp(microsecond)"}
		case 2:
			return reflect.TypeFor[time.Time](), []string{"timestamp(nanosecond)"}
		case 3:
			return reflect.TypeFor[time.Time](), []string{"timestamp()"}
		case 4:
			if r.IntN(4) == 0 { // not adjusted to UTC: not covered
				return reflect.TypeFor[time.Time](), []string{"timestamp(millisecond:local)"}
			}
		}
		return reflect.TypeFor[time.Time](), nil // nanoseconds
	case 20:
		return reflect.TypeFor[time.Duration](), nil
	case 21:
		return []reflect.Type{reflect.TypeFor[fuzzInt16](), reflect.TypeFor[fuzzUint64]()}[r.IntN(2)], nil
	case 22:
		return reflect.TypeFor[fuzzText](), nil
	}
	return reflect.TypeFor[fuzzFlag](), nil
}

// odd returns a rare field's type, tag options and column name: a field
// that the plan does not cover (a map, an interface, a repeated pointer,
// a pointer to a slice, a compressed column), that parquet.SchemaOf
// refuses (a nested slice that is not a LIST), or that no column holds
// (tagged "-"); or a nil type, for an unexported field.
func (g *fuzzTypes) odd() (reflect.Type, []string, string) {
	leaf, _ := g.leafType(false)
	switch g.r.IntN(9) {
	case 0:
		return reflect.TypeFor[map[string]int](), nil, ""
	case 1:
		return reflect.TypeFor[any](), nil, ""
	case 2:
		return reflect.SliceOf(reflect.PointerTo(leaf)), nil, ""
	case 3:
		return reflect.PointerTo(reflect.SliceOf(leaf)), nil, ""
	case 4:
		return leaf, []string{"snappy"}, ""
	case 5:
		return reflect.SliceOf(reflect.SliceOf(reflect.TypeFor[int32]())), nil, ""
	case 6:
		return reflect.TypeFor[map[string]int](), nil, "-"
	case 7:
		return leaf, nil, "-"
	}
	return nil, nil, ""
}

// fuzzValues generates random values.
type fuzzValues struct {
	r *rand.Rand
	// plainTimes keeps times in the range of milliseconds and
	// microseconds, and their zeros in UTC.
	plainTimes bool
}

// rows returns a random run of structs of type t, as a slice: mostly
// short, sometimes of tens of structs.
func (g *fuzzValues) rows(t reflect.Type) reflect.Value {
	n := g.r.IntN(9)
	if g.r.IntN(8) == 0 {
		n = 20 + g.r.IntN(40)
	}
	vals := reflect.MakeSlice(reflect.SliceOf(t), n, n)
	for i := range n {
		g.fill(vals.Index(i), false)
	}
	return vals
}

// fill sets v, which is settable and zero, to a random value of its type,
// or leaves it zero. If optional, v is (in) a field tagged optional (or
// whose LIST elements are): then its times are not zero instants in a
// zone other than UTC, which the plan and Deconstruct write as values,
// parquet-go's GenericWriter as nulls (see pubOptTime).
func (g *fuzzValues) fill(v reflect.Value, optional bool) {
	r := g.r
	if r.IntN(8) == 0 {
		return // the zero value: a null where it is optional
	}
	t := v.Type()
	if t == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(g.time(optional)))
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		bits := t.Bits()
		switch r.IntN(5) {
		case 0:
			v.SetInt(-1 << (bits - 1))
		case 1:
			v.SetInt(1<<(bits-1) - 1)
		case 2:
			v.SetInt(int64(r.IntN(10)) - 5)
		default:
			v.SetInt(int64(r.Uint64()) >> (64 - bits))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		bits := t.Bits()
		switch r.IntN(4) {
		case 0:
			v.SetUint(math.MaxUint64 >> (64 - bits))
		case 1:
			v.SetUint(uint64(r.IntN(10)))
		default:
			v.SetUint(r.Uint64() >> (64 - bits))
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat([]float64{math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat32,
			math.SmallestNonzeroFloat64, r.NormFloat64(), r.NormFloat64() * 1e30}[r.IntN(8)])
	case reflect.String:
		v.SetString(g.text())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			if r.IntN(3) > 0 {
				v.SetBytes([]byte(g.text())) // an empty one is not nil
			}
			return
		}
		n := r.IntN(4)
		if r.IntN(10) == 0 {
			n = 5 + r.IntN(20)
		}
		s := reflect.MakeSlice(t, n, n) // with none, empty, not nil
		for i := range n {
			g.fill(s.Index(i), optional)
		}
		v.Set(s)
	case reflect.Array:
		for i := range v.Len() {
			if r.IntN(3) > 0 {
				v.Index(i).SetUint(uint64(r.Uint32()))
			}
		}
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		g.fill(p.Elem(), optional)
		v.Set(p)
	case reflect.Struct:
		for i := range v.NumField() {
			fv, tag := v.Field(i), t.Field(i).Tag
			if !fv.CanSet() { // unexported: set it all the same, no column holds it
				fv = reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem()
			}
			g.fill(fv, strings.Contains(tag.Get("parquet"), "optional") || strings.Contains(tag.Get("parquet-element"), "optional"))
		}
	case reflect.Map:
		v.Set(reflect.ValueOf(map[string]int{"k": r.IntN(9)}).Convert(t))
	case reflect.Interface:
		v.Set(reflect.ValueOf(r.IntN(9)))
	}
}

// text returns a random string: empty, short, long, not UTF-8, or not
// ASCII.
func (g *fuzzValues) text() string {
	r := g.r
	switch r.IntN(6) {
	case 0:
		return ""
	case 1:
		return strings.Repeat("long ", 50+r.IntN(400))
	case 2:
		return string([]byte{0, 0xff, byte(r.Uint32()), 'x'})
	case 3:
		return "héllo, 世界"
	}
	return strconv.FormatUint(r.Uint64()>>r.IntN(64), 36)
}

// time returns a random time: the zero time (null where optional, out of
// the range of nanoseconds), a zero instant in another zone (unless
// optional, see fill), times at the ends of each unit's range (see
// edgeTime), far times, or times of these centuries; in some zone.
func (g *fuzzValues) time(optional bool) time.Time {
	r := g.r
	zone := []*time.Location{time.UTC, time.FixedZone("east", 5*3600+1800), time.FixedZone("west", -7*3600)}[r.IntN(3)]
	switch k := r.IntN(10); {
	case k == 0:
		return time.Time{}
	case g.plainTimes:
	case k == 1 && !optional:
		return time.Time{}.In(zone) // the zero time's instant, but not the zero time.Time
	case k == 2, k == 3:
		return edgeTime(r, []int64{1, 1e3, 1e6}[r.IntN(3)]).In(zone)
	case k == 4:
		return time.Unix(r.Int64N(1<<50)-1<<49, r.Int64N(1e9)).In(zone)
	}
	return time.Unix(r.Int64N(8e9)-4e9, r.Int64N(1e9)).In(zone)
}

// edgeTime returns a random time at an end of the range of int64 units
// of per nanoseconds: one of the last units, a time in the first whole
// second of the range, or one just out of the range, also the times
// between an end of the range and the whole second next to it beyond
// the range, which instantValue got wrong (see structPlanSeeds).
func edgeTime(r *rand.Rand, per int64) time.Time {
	units := func(n int64) time.Time {
		switch per {
		case 1e6:
			return time.UnixMilli(n)
		case 1e3:
			return time.UnixMicro(n)
		}
		return time.Unix(0, n)
	}
	perSec, k := int64(1e9)/per, r.Int64N(3)
	unit := time.Duration(per)
	switch r.IntN(6) {
	case 1:
		return time.Unix(math.MaxInt64/perSec+1, r.Int64N(1e9)) // out of the range, a second or more after its end
	case 2:
		return time.Unix(math.MinInt64/perSec, r.Int64N(1e9)) // in the range's first whole second
	case 3:
		return units(math.MinInt64).Add(-unit * time.Duration(k+1)) // out of the range, before its first unit
	case 4:
		return units(math.MaxInt64).Add(time.Duration(1 + k)) // out of the range, in the second of its last unit
	case 5:
		return units(math.MinInt64).Add(unit * time.Duration(k)) // the range's first units, before its first whole second
	}
	return units(math.MaxInt64 - k) // the range's last units
}

// Struct types for TestStructPlanPublicPath.
type (
	pubPoint struct {
		X float64 `parquet:"x"`
		Y float32 `parquet:"y"`
	}
	pubEmbedded struct {
		Tag  fuzzText `parquet:"tag"`
		Rank int16
	}
	pubLeaves struct {
		B    bool          `parquet:"b"`
		I8   int8          `parquet:"i8"`
		I16  fuzzInt16     `parquet:"i16"`
		Days int32         `parquet:"days,date"`
		I    int           `parquet:"i,delta"`
		U8   uint8         `parquet:"u8"`
		U32  uint32        `parquet:"u32"`
		U64  fuzzUint64    `parquet:"u64"`
		F32  float32       `parquet:"f32"`
		F64  float64       `parquet:"f64,split"`
		S    string        `parquet:"s,enum"`
		T    fuzzText      `parquet:"t,dict"`
		Raw  []byte        `parquet:"raw"`
		Fix  [5]byte       `parquet:"fix"`
		UUID [16]byte      `parquet:"uuid,uuid"`
		Ms   time.Time     `parquet:"ms,timestamp(millisecond)"`
		Us   *time.Time    `parquet:"us,timestamp(microsecond)"`
		D    time.Duration `parquet:"d"`
		Flag *fuzzFlag     `parquet:"flag"`
	}
	pubNested struct {
		pubEmbedded
		ID  int64        `parquet:"id"`
		P   *pubPoint    `parquet:"p"`
		R   []pubPoint   `parquet:"r"`
		L   []*pubPoint  `parquet:"l,list"`
		LL  [][]int32    `parquet:"ll,list"`
		LP  []*string    `parquet:"lp,list"`
		LO  []*int64     `parquet:"lo,list"`
		OL  []fuzzText   `parquet:"ol,optional,list"`
		LT  []time.Time  `parquet:"lt,list" parquet-element:",timestamp(millisecond)"`
		RB  [][]byte     `parquet:"rb"`
		PLL *[]pubPoint  `parquet:"-"`
		In  pubInner     `parquet:"in"`
		Opt *pubInner    `parquet:"opt"`
		Grp [][]pubPoint `parquet:"grp,list"`
	}
	pubInner struct {
		A []fuzzText `parquet:"a"`
		B *int32     `parquet:"b"`
		C struct {
			D []uint16 `parquet:"d,list"`
			E *[8]byte `parquet:"e"`
		} `parquet:"c"`
	}
	// pubOptTime has optional times.
	//
	// A time.Time tagged optional that is a zero instant in a zone other
	// than UTC, such as time.Time{}.In(loc), is null, as for parquet-go's
	// GenericWriter (time.Time.IsZero); the plan took it for a value
	// (reflect.Value.IsZero, as parquet-go's Deconstruct does), which in
	// nanoseconds failed the run and in milliseconds wrote
	// -62135596800000.
	pubOptTime struct {
		Ns time.Time `parquet:"ns,optional"`
		Ms time.Time `parquet:"ms,optional,timestamp(millisecond)"`
	}
)

// TestStructPlanPublicPath writes random structs of a few types of many
// shapes with the writer of Parquet[T], rowflow's (the struct plan) and
// parquet-go's GenericWriter[T] (which Parquet used before, and uses for
// the types that the plan does not cover), and reads both files back with
// parquet-go: the same values and levels. The values are FuzzStructPlan's,
// with times that milliseconds and microseconds hold (where parquet-go
// wraps a time around, rowflow's writer fails the run).
//
// The types leave out what parquet-go's GenericWriter (v0.32.0) gets
// wrong, where it also disagrees with parquet-go's Deconstruct, which the
// plan follows: the optional tag on a value that is not a pointer (some
// zeros are written as values, not nulls: writeRowsFuncOfOptional takes
// the rest of a word of its null bitmap as values where the bits left,
// shifted down by n, equal 2ⁿ−1; a zero struct is never null; -0.0 is a
// value on amd64), an optional time.Time in an optional group (every such
// time is written as null), and a uintptr (the writer panics).
func TestStructPlanPublicPath(t *testing.T) {
	g := &fuzzValues{r: rand.New(rand.NewPCG(7, 8)), plainTimes: true}
	for range 20 {
		checkPublicPath(t, g.rows(reflect.TypeFor[pubLeaves]()).Interface().([]pubLeaves))
		checkPublicPath(t, g.rows(reflect.TypeFor[pubNested]()).Interface().([]pubNested))
	}
	zone := time.FixedZone("east", 3600)
	checkPublicPath(t, []pubOptTime{{}, {Ns: time.Time{}.In(zone), Ms: time.Time{}.In(zone)}, {Ms: time.UnixMilli(1)}})
}

// checkPublicPath writes rows with Parquet's own writer and with
// parquet-go's, as Parquet[T] writes them (see writeStructsWith), and
// checks that parquet-go reads the same values and levels from both.
func checkPublicPath[T any](t *testing.T, rows []T) {
	t.Helper()
	own := writeStructsWith(t, true, rows)
	theirs := writeStructsWith(t, false, rows)
	if len(own) != len(rows) || len(theirs) != len(rows) {
		t.Fatalf("%T: read back %d and %d rows, wrote %d", rows, len(own), len(theirs), len(rows))
	}
	schema := parquet.SchemaOf(*new(T))
	for i := range rows {
		a, b := rowEntries(own[i], schema), rowEntries(theirs[i], schema)
		for j := range a {
			if d, ok := firstDiff(a[j], b[j]); !ok {
				t.Fatalf("%T: row %d, column %s, entry %d:\nrowflow's   %v\nparquet-go's %v\nrow %+v",
					rows[0], i, strings.Join(schema.Columns()[j], "."), d, a[j], b[j], rows[i])
			}
		}
	}
}

// writeStructsWith writes rows with the writer of Parquet[T] (rowflow's
// if own, else parquet-go's GenericWriter) to a file, and reads its rows
// back with parquet-go.
func writeStructsWith[T any](t *testing.T, own bool, rows []T) []parquet.Row {
	t.Helper()
	defer SetOwnStructWriter(own)()
	p, err := newPQPlan[T]("out", nil)
	if err != nil {
		t.Fatalf("%T: %v", rows, err)
	}
	if (p.fields != nil) != own {
		t.Fatalf("%T: written by rowflow's writer: %v, want %v", rows, p.fields != nil, own)
	}
	var buf bytes.Buffer
	w := p.newWriter(&buf, "", nil)
	if err := w.write(rows, flow.ListIDs(make([]rowid.ID, len(rows)))); err != nil {
		t.Fatalf("%T, rowflow's writer %v: %v", rows, own, err)
	}
	if err := w.close(); err != nil {
		t.Fatalf("%T, rowflow's writer %v: %v", rows, own, err)
	}
	return readRows(t, buf.Bytes())
}
