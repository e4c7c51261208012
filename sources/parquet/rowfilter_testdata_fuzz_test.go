package parquet_test

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/internal/testutil/longtest"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sinks"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// FuzzRowFilterTestdata filters the files parquet-go ships in its testdata
// (and, in the long tests, those of the parquet-testing corpus when it is
// there), written by parquet-java, parquet-cpp, Impala, Rust and others,
// with their own statistics, page indexes, dictionaries and nulls. From a
// seed it draws a file, a filter of comparisons, In, Not, And and Or over
// the file's columns that a filter can compare, with literals drawn from
// the column's values (and their neighbours, prefixes and edges), a
// fragmentation (MaxRows) and, in some cases, Columns naming another
// column than those filtered.
//
// The oracle reads the file's values with parquet-go's row reader and
// evaluates the filter on them in Go, with SQL's three-valued logic (a
// null or a NaN unknown) and exact comparisons, as RowFilter's doc says.
// The filtered records, at parallelism 1 and 3, must be the unfiltered
// read's records of the rows the oracle keeps, with their IDs and in
// their order; the rows column batches mark kept must be those; and the
// ranks of a run must together give the single-rank read.
func FuzzRowFilterTestdata(f *testing.F) {
	n := 64
	if longtest.On() {
		n = 600 // every file, several times
	}
	for i := range testutil.FuzzSeeds(n) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 7)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		files := filterTestdataFiles(t)
		r := rand.New(rand.NewPCG(seed, seed^0x2545f4914f6cdd1d))
		path := files[r.IntN(len(files))]
		tf := loadFilterTestdata(t, path)
		if tf == nil || len(tf.cols) == 0 {
			return // parquet-go cannot read it, or no column compares
		}
		tf.check(t, r, seed)
	})
}

// filterTestdataFiles returns the files the fuzzer draws from: parquet-go's
// testdata, with the parquet-testing corpus in the long tests, without
// the files over a MiB unless the long tests run the seeds: with -fuzz,
// an input must take less than 10 seconds.
func filterTestdataFiles(t *testing.T) []string {
	dir := testutil.ParquetGoTestdata(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	if len(files) < 40 {
		t.Fatalf("%d files under %s", len(files), dir)
	}
	if longtest.On() {
		if dir, ok := testutil.LookupSharedCorpus(t); ok {
			corpus, _ := filepath.Glob(filepath.Join(dir, "data", "*.parquet"))
			files = append(files, corpus...)
		}
	}
	if fuzzing := flag.Lookup("test.fuzz"); !longtest.On() || fuzzing != nil && fuzzing.Value.String() != "" {
		files = slices.DeleteFunc(files, func(p string) bool {
			st, err := os.Stat(p)
			return err != nil || st.Size() > 1<<20
		})
	}
	return files
}

// tdCol is a column of a testdata file that a filter can compare.
type tdCol struct {
	name      string // dotted leaf path
	leaf      int
	kind      pq.Kind
	unsigned  bool
	date      bool
	perSecond int64 // a timestamp's units in a second; 0 if none
}

// tdFile is what the oracle knows of a file: its comparable columns and
// their values (per row, per column; a null is a null Value), and the
// unfiltered reads.
type tdFile struct {
	path   string
	cols   []tdCol
	others []string // the leaf columns of one value per row, for Columns
	vals   [][]pq.Value
	mu     sync.Mutex
	reads  map[string][]flow.Item[sources.Record] // by the Columns option
}

var (
	tdMu    sync.Mutex
	tdFiles = map[string]*tdFile{}
)

// loadFilterTestdata reads a file with parquet-go, or returns nil if
// parquet-go cannot.
func loadFilterTestdata(t *testing.T, path string) *tdFile {
	tdMu.Lock()
	defer tdMu.Unlock()
	if tf, ok := tdFiles[path]; ok {
		return tf
	}
	tf, err := readTestdata(path)
	if err != nil {
		t.Logf("%s: parquet-go: %v; not filtered", filepath.Base(path), err)
		tf = nil
	}
	if tf != nil {
		var n int64
		if err := flow.From(parquet.Read[sources.Record](path)).To(sinks.Count[sources.Record](&n)).Run(t.Context()); err != nil {
			// TestParquetGoTestdata and TestParquetTestingData check the
			// files that fail.
			t.Logf("%s: %v; not filtered", filepath.Base(path), err)
			tf = nil
		}
	}
	if tf != nil {
		tf.agree(t)
	}
	tdFiles[path] = tf
	return tf
}

// agree drops the columns whose values, as parquet-go reads them, differ
// from those of the unfiltered read, which other tests check: the oracle
// knows only the values both readers agree on.
func (tf *tdFile) agree(t *testing.T) {
	all := tf.unfiltered(t, "", nil)
	keep := make([]bool, len(tf.cols))
	for j := range tf.cols {
		c := &tf.cols[j]
		keep[j] = true
		for i, it := range all {
			v, _ := it.Value.Get(c.name)
			a, b := c.show(tf.vals[i][j]), showRecordValue(v)
			switch v.(type) {
			case int32, int64: // a time column read as its count of units
				if c.date || c.perSecond > 0 {
					a = c.showRaw(tf.vals[i][j])
				}
			}
			if a != b {
				t.Logf("%s: column %s, row %d: parquet-go reads %s, Read %s; not filtered", filepath.Base(tf.path), c.name, i, a, b)
				keep[j] = false
				break
			}
		}
	}
	k := 0
	for j := range tf.cols {
		if keep[j] {
			tf.cols[k] = tf.cols[j]
			for i := range tf.vals {
				tf.vals[i][k] = tf.vals[i][j]
			}
			k++
		}
	}
	tf.cols = tf.cols[:k]
	for i := range tf.vals {
		tf.vals[i] = tf.vals[i][:k]
	}
}

// show prints a value of the column as showRecordValue prints it.
func (c *tdCol) show(v pq.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case c.date:
		return showRecordValue(time.Unix(int64(v.Int32())*86400, 0))
	case c.perSecond > 0:
		return showRecordValue(unitTime(v.Int64(), c.perSecond))
	}
	switch c.kind {
	case pq.Boolean:
		return showRecordValue(v.Boolean())
	case pq.Int32:
		if c.unsigned {
			return showRecordValue(uint32(v.Int32()))
		}
		return showRecordValue(v.Int32())
	case pq.Int64:
		if c.unsigned {
			return showRecordValue(v.Uint64())
		}
		return showRecordValue(v.Int64())
	case pq.Float:
		return showRecordValue(float64(v.Float()))
	case pq.Double:
		return showRecordValue(v.Double())
	}
	return showRecordValue(v.ByteArray())
}

// showRaw prints the stored count of a date or timestamp.
func (c *tdCol) showRaw(v pq.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case c.kind == pq.Int32:
		return showRecordValue(v.Int32())
	}
	return showRecordValue(v.Int64())
}

// showRecordValue prints a value of a record, whatever its Go type.
func showRecordValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(v)
	case []byte:
		return strconv.Quote(string(v))
	case float32:
		return showRecordValue(float64(v))
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}

func readTestdata(path string) (tf *tdFile, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := pq.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	tf = &tdFile{path: path, reads: map[string][]flow.Item[sources.Record]{}}
	for i, p := range f.Schema().Columns() {
		lc, ok := f.Schema().Lookup(p...)
		if !ok || lc.MaxRepetitionLevel > 0 {
			continue
		}
		name := strings.Join(p, ".")
		tf.others = append(tf.others, name)
		if c, ok := filterable(lc.Node.Type()); ok {
			c.name, c.leaf = name, i
			tf.cols = append(tf.cols, c)
		}
	}
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		buf := make([]pq.Row, 64)
		for {
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				vals := make([]pq.Value, len(tf.cols))
				for j := range vals {
					vals[j] = pq.NullValue()
				}
				for _, v := range row {
					for j, c := range tf.cols {
						if v.Column() == c.leaf {
							vals[j] = v.Clone()
						}
					}
				}
				tf.vals = append(tf.vals, vals)
			}
			if err != nil {
				rows.Close()
				if !errors.Is(err, io.EOF) {
					return nil, err
				}
				break
			}
		}
	}
	if int64(len(tf.vals)) != f.NumRows() {
		return nil, fmt.Errorf("%d rows, the footer declares %d", len(tf.vals), f.NumRows())
	}
	return tf, nil
}

// filterable says whether RowFilter's doc lets a filter compare a column
// of type t, and how.
func filterable(t pq.Type) (tdCol, bool) {
	c := tdCol{kind: t.Kind()}
	switch c.kind {
	case pq.Boolean, pq.Int32, pq.Int64, pq.Float, pq.Double, pq.ByteArray, pq.FixedLenByteArray:
	default:
		return c, false
	}
	if lt := t.LogicalType(); lt != nil {
		switch v := lt.Value.(type) {
		case *format.DecimalType, *format.Float16Type:
			return c, false
		case *format.IntType:
			c.unsigned = !v.IsSigned
		case *format.DateType:
			c.date = true
		case *format.TimestampType:
			switch v.Unit.Value.(type) {
			case *format.MilliSeconds:
				c.perSecond = 1e3
			case *format.MicroSeconds:
				c.perSecond = 1e6
			case *format.NanoSeconds:
				c.perSecond = 1e9
			}
		}
	}
	if ct := t.ConvertedType(); ct != nil && t.LogicalType() == nil {
		switch *ct {
		case deprecated.Decimal, deprecated.Interval:
			return c, false
		case deprecated.Uint8, deprecated.Uint16, deprecated.Uint32, deprecated.Uint64:
			c.unsigned = true
		case deprecated.Date:
			c.date = true
		case deprecated.TimestampMillis:
			c.perSecond = 1e3
		case deprecated.TimestampMicros:
			c.perSecond = 1e6
		}
	}
	c.date = c.date && c.kind == pq.Int32
	if c.kind != pq.Int64 {
		c.perSecond = 0
	}
	return c, true
}

// tdFilter is a drawn filter with what it means.
type tdFilter struct {
	f    sources.Expr
	op   string // eq ne lt le gt ge in not and or
	col  int    // comparisons: an index into tdFile.cols
	lits []any
	kids []*tdFilter
}

func (tf *tdFile) draw(r *rand.Rand, depth int) *tdFilter {
	if depth > 0 && r.IntN(10) < 4 {
		n := &tdFilter{op: []string{"and", "or", "not"}[r.IntN(3)]}
		k := 1
		if n.op != "not" {
			k = r.IntN(4)
		}
		fs := make([]sources.Expr, k)
		for i := range k {
			n.kids = append(n.kids, tf.draw(r, depth-1))
			fs[i] = n.kids[i].f
		}
		n.f = boolExpr(n.op, fs)
		return n
	}
	n := &tdFilter{op: []string{"eq", "ne", "lt", "le", "gt", "ge", "in"}[r.IntN(7)], col: r.IntN(len(tf.cols))}
	typ := r.IntN(4)
	sample := tf.literal(r, n.col, typ)
	n.lits = []any{sample}
	if n.op == "in" {
		n.lits = n.lits[:0]
		for range r.IntN(4) {
			if l := tf.literal(r, n.col, typ); fmt.Sprintf("%T", l) == fmt.Sprintf("%T", sample) {
				n.lits = append(n.lits, l)
			}
		}
	}
	n.f = makeFilter(n.op, tf.cols[n.col].name, sample, n.lits)
	return n
}

// literal draws a literal for column j: mostly one of its values or a
// neighbour, in a Go type chosen by typ among those that compare with it.
func (tf *tdFile) literal(r *rand.Rand, j, typ int) any {
	c := &tf.cols[j]
	v := pq.NullValue()
	for range 8 {
		if len(tf.vals) == 0 {
			break
		}
		if x := tf.vals[r.IntN(len(tf.vals))][j]; !x.IsNull() {
			v = x
			break
		}
	}
	if r.IntN(3) == 0 { // the least or the greatest, a bound of the statistics
		greatest := r.IntN(2) == 0
		for _, row := range tf.vals {
			x := row[j]
			switch {
			case x.IsNull():
			case v.IsNull(), greatest && c.less(v, x), !greatest && c.less(x, v):
				v = x
			}
		}
	}
	switch c.kind {
	case pq.Boolean:
		if v.IsNull() {
			return r.IntN(2) == 1
		}
		return v.Boolean()
	case pq.ByteArray, pq.FixedLenByteArray:
		s := ""
		if !v.IsNull() {
			s = string(v.ByteArray())
		}
		switch r.IntN(5) {
		case 0:
			if len(s) > 0 {
				s = s[:r.IntN(len(s))]
			}
		case 1:
			s += "\x00"
		case 2:
			s += "\xff"
		}
		if typ%2 == 0 {
			return s
		}
		return []byte(s)
	case pq.Float, pq.Double:
		x := 0.0
		if !v.IsNull() {
			x = v.Double()
			if c.kind == pq.Float {
				x = float64(v.Float())
			}
		}
		switch r.IntN(8) {
		case 0:
			x = []float64{math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), 1e300, -1e-300}[r.IntN(6)]
		case 1:
			x = math.Nextafter(x, math.Inf(1))
		case 2:
			x = math.Nextafter(x, math.Inf(-1))
		}
		if math.IsNaN(x) {
			x = 0
		}
		switch typ {
		case 1:
			return float32(x)
		case 2:
			if math.Abs(x) < 1<<62 {
				return int64(x)
			}
		}
		return x
	}
	var x int64
	if !v.IsNull() {
		x = v.Int64()
		if c.kind == pq.Int32 {
			x = int64(v.Int32())
			if c.unsigned {
				x = int64(uint32(v.Int32()))
			}
		}
	}
	x += []int64{0, 0, 0, 1, -1}[r.IntN(5)]
	switch {
	case typ == 0 && c.date:
		return time.Unix(x*86400, 0).Add([]time.Duration{0, 0, time.Nanosecond, -time.Hour}[r.IntN(4)]).In(time.FixedZone("X", 3600))
	case typ == 0 && c.perSecond > 0:
		return unitTime(x, c.perSecond).Add([]time.Duration{0, 0, time.Nanosecond, -time.Nanosecond}[r.IntN(4)])
	case typ == 1:
		return float64(x) + []float64{0, 0.5, -0.5}[r.IntN(3)]
	case typ == 2 && c.unsigned:
		return uint64(x)
	}
	return x
}

// less orders the column's values as its statistics do; a NaN is
// neither less nor greater than anything.
func (c *tdCol) less(a, b pq.Value) bool {
	switch c.kind {
	case pq.Boolean:
		return !a.Boolean() && b.Boolean()
	case pq.Int32:
		if c.unsigned {
			return uint32(a.Int32()) < uint32(b.Int32())
		}
		return a.Int32() < b.Int32()
	case pq.Int64:
		if c.unsigned {
			return a.Uint64() < b.Uint64()
		}
		return a.Int64() < b.Int64()
	case pq.Float:
		return a.Float() < b.Float()
	case pq.Double:
		return a.Double() < b.Double()
	}
	return bytes.Compare(a.ByteArray(), b.ByteArray()) < 0
}

// unitTime returns the time of x units since the epoch, perSecond units
// to a second.
func unitTime(x, perSecond int64) time.Time {
	switch perSecond {
	case 1e3:
		return time.UnixMilli(x).UTC()
	case 1e6:
		return time.UnixMicro(x).UTC()
	}
	return time.Unix(0, x).UTC()
}

// eval evaluates the filter on row i, as RowFilter's doc says.
func (n *tdFilter) eval(tf *tdFile, i int) tri {
	if v, ok := evalBool(n.op, n.kids, func(k *tdFilter) tri { return k.eval(tf, i) }); ok {
		return v
	}
	v := tf.vals[i][n.col]
	if n.op == "in" { // false on a null when there are no literals
		out := tFalse
		for _, l := range n.lits {
			out = max(out, tdCompare("eq", &tf.cols[n.col], v, l))
		}
		return out
	}
	return tdCompare(n.op, &tf.cols[n.col], v, n.lits[0])
}

// tdCompare compares a column's value with a literal: unknown if the
// value is null or NaN.
func tdCompare(op string, c *tdCol, v pq.Value, lit any) tri {
	if v.IsNull() {
		return tUnknown
	}
	var s int
	switch c.kind {
	case pq.Boolean:
		s = boolInt(v.Boolean()) - boolInt(lit.(bool))
	case pq.ByteArray, pq.FixedLenByteArray:
		var b []byte
		if str, ok := lit.(string); ok {
			b = []byte(str)
		} else {
			b = lit.([]byte)
		}
		s = bytes.Compare(v.ByteArray(), b)
	default:
		var a *big.Float
		f := new(big.Float).SetPrec(256)
		switch {
		case c.kind == pq.Float:
			if math.IsNaN(float64(v.Float())) {
				return tUnknown
			}
			a = f.SetFloat64(float64(v.Float()))
			if l, ok := lit.(float64); ok {
				lit = float32(l)
			}
		case c.kind == pq.Double:
			if math.IsNaN(v.Double()) {
				return tUnknown
			}
			a = f.SetFloat64(v.Double())
		case c.kind == pq.Int32 && c.unsigned:
			a = f.SetUint64(uint64(uint32(v.Int32())))
		case c.kind == pq.Int32:
			a = f.SetInt64(int64(v.Int32()))
		case c.unsigned:
			a = f.SetUint64(v.Uint64())
		default:
			a = f.SetInt64(v.Int64())
		}
		if tm, ok := lit.(time.Time); ok {
			var at time.Time
			if c.date {
				at = time.Unix(int64(v.Int32())*86400, 0)
			} else {
				at = unitTime(v.Int64(), c.perSecond)
			}
			s = at.Compare(tm)
			break
		}
		s = a.Cmp(exact(lit))
	}
	ok := map[string]bool{"eq": s == 0, "ne": s != 0, "lt": s < 0, "le": s <= 0, "gt": s > 0, "ge": s >= 0}[op]
	if ok {
		return tTrue
	}
	return tFalse
}

// unfiltered returns the unfiltered read of the file with the options,
// named by key.
func (tf *tdFile) unfiltered(t *testing.T, key string, opts []parquet.Option) []flow.Item[sources.Record] {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if all, ok := tf.reads[key]; ok {
		return all
	}
	all := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](tf.path, opts...)))
	if len(all) != len(tf.vals) {
		t.Fatalf("%s: the unfiltered read gives %d rows, parquet-go %d", tf.path, len(all), len(tf.vals))
	}
	tf.reads[key] = all
	return all
}

func (tf *tdFile) check(t *testing.T, r *rand.Rand, seed uint64) {
	flt := tf.draw(r, 2)
	var opts []parquet.Option
	key := ""
	if r.IntN(3) == 0 && len(tf.others) > 0 {
		col := tf.others[r.IntN(len(tf.others))]
		opts, key = append(opts, parquet.Columns(col)), col
	}
	all := tf.unfiltered(t, key, opts)
	var want []flow.Item[sources.Record]
	for i := range all {
		if flt.eval(tf, i) == tTrue {
			want = append(want, all[i])
		}
	}
	maxRows := []int64{0, 1, 7, 100, 1000}[r.IntN(5)]
	if maxRows*200 < int64(len(all)) {
		maxRows = 0 // thousands of fragments: too long for a case
	}
	if maxRows > 0 {
		opts = append(opts, parquet.MaxRows(maxRows))
	}
	opts = append(opts, parquet.RowFilter(flt.f), sources.ChunkSize(1+r.IntN(300)))
	desc := fmt.Sprintf("seed %d: %s, %v, Columns(%q) MaxRows(%d): %d of %d rows kept", seed, filepath.Base(tf.path), flt.f, key, maxRows, len(want), len(all))
	for _, par := range []int{1, 3} {
		var got []flow.Item[sources.Record]
		for it, err := range flow.Items[sources.Record](t.Context(), flow.From(parquet.Read[sources.Record](tf.path, opts...)).Parallel(par)) {
			if err != nil {
				t.Fatalf("parallelism %d: %v\n%s", par, err, desc)
			}
			got = append(got, it)
		}
		sameRecords(t, fmt.Sprintf("parallelism %d", par), got, want, desc)
	}
	var kept, wantIDs []rowid.ID
	for _, it := range want {
		wantIDs = append(wantIDs, it.ID)
	}
	for b, err := range flow.Values[*parquet.ColumnBatch](t.Context(), flow.From(parquet.Read[*parquet.ColumnBatch](tf.path, opts...)).Parallel(2)) {
		if err != nil {
			t.Fatalf("column batches: %v\n%s", err, desc)
		}
		for i := range b.NumRows {
			if b.Kept(i) {
				kept = append(kept, b.RowID(i))
			}
		}
		b.Release()
	}
	if !slices.Equal(kept, wantIDs) {
		t.Fatalf("column batches keep %d rows, want %d\n%s", len(kept), len(wantIDs), desc)
	}
	world := 2 + r.IntN(3)
	var union []flow.Item[sources.Record]
	for rank := range world {
		p := flow.From(parquet.Read[sources.Record](tf.path, opts...)).Parallel(2).WithRank(rank, world)
		for it, err := range flow.Items[sources.Record](t.Context(), p) {
			if err != nil {
				t.Fatalf("rank %d of %d: %v\n%s", rank, world, err, desc)
			}
			union = append(union, it)
		}
	}
	slices.SortStableFunc(union, func(a, b flow.Item[sources.Record]) int { return cmp.Compare(a.Part, b.Part) })
	sameRecords(t, fmt.Sprintf("%d ranks", world), union, want, desc)
}

// sameRecords fails t unless got and want hold the same IDs and values,
// in order (NaNs equal).
func sameRecords(t *testing.T, what string, got, want []flow.Item[sources.Record], desc string) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if got[i].ID != want[i].ID {
			t.Fatalf("%s: item %d has ID %v, want %v (%d items, want %d)\n%s", what, i, got[i].ID, want[i].ID, len(got), len(want), desc)
		}
		if a, b := fmt.Sprint(got[i].Value), fmt.Sprint(want[i].Value); a != b {
			t.Fatalf("%s: item %d is %s, want %s\n%s", what, i, a, b, desc)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d items, want %d\n%s", what, len(got), len(want), desc)
	}
}
