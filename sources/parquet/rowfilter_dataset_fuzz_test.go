package parquet_test

import (
	"cmp"
	"fmt"
	"maps"
	"math"
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
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/parquet"
)

// dsRow is a row of FuzzReadHiveFiltered's files: an unsigned 8-bit
// integer, floats with NaNs, zeros of both signs and infinities, strings
// longer than the page index's bounds that share prefixes, a fixed-length
// byte array and a timestamp.
type dsRow struct {
	ID  int64     `parquet:"id"`
	U8  *uint8    `parquet:"u8,optional"`
	F   *float64  `parquet:"f,optional"`
	F32 float32   `parquet:"f32"`
	S   *string   `parquet:"s,optional"`
	D   string    `parquet:"d"`
	Fix [4]byte   `parquet:"fix"`
	TS  time.Time `parquet:"ts,timestamp(millisecond)"`
}

// dsDictRow is dsRow with dictionary encodings, but for the floats:
// parquet-go v0.32.0 (on amd64) writes the statistics of a dictionary
// page of floats that holds a NaN wrong, leaving out values before the
// NaN (min -9 for the values -12.25, NaN, -9), which a reader cannot
// tell from right ones.
type dsDictRow struct {
	ID  int64     `parquet:"id,dict"`
	U8  *uint8    `parquet:"u8,optional,dict"`
	F   *float64  `parquet:"f,optional"`
	F32 float32   `parquet:"f32"`
	S   *string   `parquet:"s,optional,dict"`
	D   string    `parquet:"d,dict"`
	Fix [4]byte   `parquet:"fix,dict"`
	TS  time.Time `parquet:"ts,timestamp(millisecond),dict"`
}

// dsFile is a file of a case: its path under the root and its rows.
type dsFile struct {
	rel    string
	region string // "" for the default partition (null)
	day    string
	rows   []dsRow
}

// dsCase is one dataset and one way to read it.
type dsCase struct {
	seed    uint64
	files   []dsFile // sorted by rel
	renameS bool     // Rename("s", "name"), or Rename("s", "region") with renameR
	renameR bool     // Rename("region", "reg")
	swap    bool     // the file column s takes the Hive column's name
	columns []string // nil: no Columns
	filter  *fnode
	where   *wnode
	wcols   map[string]*rcol // the columns the filters name, by their user names
	maxRows int64
	whole   bool
	chunk   int
	window  int      // ShuffleWindow
	pick    []string // Files, or nil
	bad     bool     // a file that is not Parquet, read with SkipBad
}

var dsStrings = []string{"", "a", "ab", "b", "\xff", "\xff\xff\x00", strings.Repeat("p", 30) + "1", strings.Repeat("p", 30) + "2",
	strings.Repeat("p", 16), strings.Repeat("p", 15) + "\xff\xff", strings.Repeat("p", 15) + "\xff\xff\xff1", "q" + strings.Repeat("\xff", 40),
	"q" + strings.Repeat("\xff", 15) + "a", strings.Repeat("\xff", 20) + "\x00"}

// FuzzReadHiveFiltered reads a dataset of Parquet files in Hive partition
// directories (region, with a default partition that is null, and day,
// whose values compare as numbers) with a random RowFilter on the file
// columns, a random Where on the partition columns, Rename of a file and
// of a Hive column, Columns, MaxRows, WholeFiles, ShuffleWindow, Files
// and SkipBad over a file that is not Parquet. The files, written by
// parquet-go with small pages and row groups, plain or dictionary encoded,
// have sorted and unsorted columns, nulls, NaNs, negative zeros, an
// unsigned column, a fixed-length byte array and long strings with common
// prefixes and 0xff bytes, which page index bounds truncate.
//
// The oracle is the unfiltered read of the whole dataset, with the same
// Rename and Columns, whose IDs must be those the package doc gives (a
// row's ordinal combined with its file's path), and the filters evaluated
// in Go on the values written, in SQL's three-valued logic: the records
// read, at parallelism 1 and 3, must be its records of the rows of the
// files selected that both filters keep, with their IDs, in its order
// (without shuffling) or in the same order at both parallelisms (with);
// column batches must mark the same rows kept, and the ranks of a run
// must together read what one reads.
func FuzzReadHiveFiltered(f *testing.F) {
	for i := range testutil.FuzzSeeds(24) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15 + 3)
	}
	// Where(Not(In("region"))), of no values, keeps the default partition,
	// whose region is null: In of nothing is false even there.
	f.Add(uint64(2624))
	// Rename("s", "region") and Rename("region", "reg"): Where(reg = 'b')
	// filters the Hive column, RowFilter(not region >= 'kkk…') the file's.
	f.Add(uint64(2276))
	f.Fuzz(func(t *testing.T, seed uint64) {
		newDsCase(seed).check(t)
	})
}

// newDsCase draws a case from seed.
func newDsCase(seed uint64) *dsCase {
	g := &rgen{r: rand.New(rand.NewPCG(seed, seed^0x7f4a7c159e3779b9))}
	c := &dsCase{seed: seed, chunk: pickOf(g, 1, 5, 100), maxRows: pickOf[int64](g, 0, 1, 6, 50), whole: g.chance(0.15)}
	var dirs []string
	for _, region := range []string{"a", "b", ""} {
		for _, day := range []string{"1", "2", "10"} {
			if g.chance(0.4) {
				dirs = append(dirs, region+"/"+day)
			}
		}
	}
	if len(dirs) == 0 {
		dirs = []string{"a/1"}
	}
	id := int64(g.r.IntN(100)) - 50
	for _, d := range dirs {
		region, day, _ := strings.Cut(d, "/")
		hr := region
		if hr == "" {
			hr = "__HIVE_DEFAULT_PARTITION__"
		}
		for k := range 1 + g.r.IntN(2) {
			f := dsFile{rel: fmt.Sprintf("region=%s/day=%s/part-%d.parquet", hr, day, k), region: region, day: day}
			n := pickOf(g, 0, 1, 5, 40, 150)
			sorted := g.chance(0.5)
			for i := range n {
				f.rows = append(f.rows, g.dsRow(id, i, n, sorted))
				id++
			}
			c.files = append(c.files, f)
		}
	}
	slices.SortFunc(c.files, func(a, b dsFile) int { return strings.Compare(a.rel, b.rel) })
	c.renameS, c.renameR = g.chance(0.3), g.chance(0.3)
	c.swap = c.renameS && c.renameR && g.chance(0.5)
	if g.chance(0.4) {
		names := []string{"id", "u8", "f", "f32", c.userS(), "d", "fix", "ts", c.userR(), "day"}
		g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		c.columns = names[:1+g.r.IntN(len(names))]
	}
	c.wcols = c.filterColumns()
	if g.chance(0.7) {
		c.filter = g.filter(c.flat(), 2)
	}
	if g.chance(0.5) {
		c.where = c.drawWhere(g, 2)
	}
	c.window = pickOf(g, 0, 0, 0, -1, 2)
	if g.chance(0.2) {
		for _, f := range c.files {
			if g.chance(0.5) {
				c.pick = append(c.pick, f.rel)
			}
		}
		if len(c.pick) == 0 {
			c.pick = nil
		}
	}
	c.bad = g.chance(0.2)
	return c
}

func (c *dsCase) userS() string {
	switch {
	case c.swap:
		return "region"
	case c.renameS:
		return "name"
	}
	return "s"
}

func (c *dsCase) userR() string {
	if c.renameR {
		return "reg"
	}
	return "region"
}

// dsRow draws row i of n of a file; id is its id.
func (g *rgen) dsRow(id int64, i, n int, sorted bool) dsRow {
	r := dsRow{ID: id, F32: float32(g.value(rFloat32, i, n, sorted).Float()), D: pickOf(g, "x", "y", "zz", strings.Repeat("d", 20))}
	if !g.chance(0.2) {
		u := uint8(g.r.IntN(8))
		if sorted {
			u = uint8(i * 255 / max(1, n-1))
		} else if g.chance(0.2) {
			u = pickOf[uint8](g, 0, 127, 128, 255)
		}
		r.U8 = &u
	}
	if !g.chance(0.2) {
		x := g.value(rFloat64, i, n, sorted).Float()
		if g.chance(0.15) {
			x = pickOf(g, math.Copysign(0, -1), 0, math.NaN())
		}
		r.F = &x
	}
	if g.chance(0.15) {
		r.F32 = float32(pickOf(g, math.Copysign(0, -1), 0, math.NaN(), math.Inf(-1)))
	}
	if !g.chance(0.2) {
		s := pickOf(g, dsStrings...)
		if sorted {
			s = fmt.Sprintf("%s%05d", strings.Repeat("k", 20), i)
		}
		r.S = &s
	}
	copy(r.Fix[:], pickOf(g, "\x00\x00\x00\x00", "abcd", "abce", "\xff\xff\xff\xff", "\xff\xff\xff\x00", "a\xff\xff\xff"))
	r.TS = g.value(rTimeMs, i, n, sorted).Interface().(time.Time)
	return r
}

// filterColumns returns the file columns, under their user names, with
// all the rows' values in file order, as the filters of read_fuzz_test.go
// draw and evaluate them.
func (c *dsCase) filterColumns() map[string]*rcol {
	cols := map[string]*rcol{}
	add := func(name string, kind rkind, val func(r *dsRow) any) {
		col := &rcol{name: name, kind: kind, shape: rOptional, sorted: true}
		for _, f := range c.files {
			for i := range f.rows {
				col.vals = append(col.vals, reflect.ValueOf(val(&f.rows[i])))
			}
		}
		cols[name] = col
	}
	add("id", rInt64, func(r *dsRow) any { return r.ID })
	add("u8", rUint16, func(r *dsRow) any {
		if r.U8 == nil {
			return (*uint16)(nil)
		}
		u := uint16(*r.U8)
		return &u
	})
	add("f", rFloat64, func(r *dsRow) any { return r.F })
	add("f32", rFloat32, func(r *dsRow) any { return r.F32 })
	add(c.userS(), rString, func(r *dsRow) any { return r.S })
	add("d", rString, func(r *dsRow) any { return r.D })
	add("fix", rBytes, func(r *dsRow) any { return slices.Clone(r.Fix[:]) })
	add("ts", rTimeMs, func(r *dsRow) any { return r.TS })
	return cols
}

// flat returns the case as a readCase of all its rows, for the filters
// of read_fuzz_test.go to draw from.
func (c *dsCase) flat() *readCase {
	rc := &readCase{}
	for _, name := range slices.Sorted(maps.Keys(c.wcols)) {
		rc.cols = append(rc.cols, c.wcols[name])
	}
	rc.rows = len(rc.cols[0].vals)
	return rc
}

// wnode is a drawn Where filter on the Hive columns, with what it means.
type wnode struct {
	f    sources.Expr
	op   string // eq ne lt le gt ge in not and or
	col  string // region or day, by its raw name
	lits []any  // strings, or numbers for day
	kids []*wnode
}

func (c *dsCase) drawWhere(g *rgen, depth int) *wnode {
	if depth > 0 && g.chance(0.4) {
		n := &wnode{op: pickOf(g, "and", "or", "not")}
		k := 1
		if n.op != "not" {
			k = g.r.IntN(3)
		}
		fs := make([]sources.Expr, k)
		for i := range k {
			n.kids = append(n.kids, c.drawWhere(g, depth-1))
			fs[i] = n.kids[i].f
		}
		n.f = boolExpr(n.op, fs)
		return n
	}
	n := &wnode{op: pickOf(g, "eq", "ne", "lt", "le", "gt", "ge", "in"), col: pickOf(g, "region", "day")}
	var sample any
	lit := func() any {
		if n.col == "region" {
			return pickOf(g, "a", "b", "c", "")
		}
		switch g.r.IntN(4) {
		case 0:
			return pickOf(g, "1", "10", "2", "3")
		case 1:
			return pickOf(g, 1.5, 2.0, 10.0, 0.5)
		}
		return pickOf[int64](g, 0, 1, 2, 3, 9, 10, 11)
	}
	sample = lit()
	n.lits = []any{sample}
	if n.op == "in" {
		n.lits = n.lits[:0]
		for range g.r.IntN(4) {
			if l := lit(); reflect.TypeOf(l) == reflect.TypeOf(sample) {
				n.lits = append(n.lits, l)
			}
		}
	}
	name := n.col
	if name == "region" {
		name = c.userR()
	}
	n.f = makeFilter(n.op, name, sample, n.lits)
	return n
}

// eval evaluates the Where filter on a file's partition values, as
// sources.Where says: a value is read as its literal's type, the default
// partition is null.
func (n *wnode) eval(f *dsFile) tri {
	if v, ok := evalBool(n.op, n.kids, func(k *wnode) tri { return k.eval(f) }); ok {
		return v
	}
	if n.op == "in" && len(n.lits) == 0 {
		return tFalse // even on a null
	}
	text := f.day
	if n.col == "region" {
		if f.region == "" {
			return tUnknown
		}
		text = f.region
	}
	cmpLit := func(lit any) int {
		switch l := lit.(type) {
		case string:
			return strings.Compare(text, l)
		case float64:
			x, err := strconv.ParseFloat(text, 64)
			if err != nil {
				panic(err)
			}
			return cmp.Compare(x, l)
		}
		x, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			panic(err)
		}
		return cmp.Compare(x, lit.(int64))
	}
	if n.op == "in" {
		out := tFalse
		for _, l := range n.lits {
			if cmpLit(l) == 0 {
				out = tTrue
			}
		}
		return out
	}
	s := cmpLit(n.lits[0])
	if map[string]bool{"eq": s == 0, "ne": s != 0, "lt": s < 0, "le": s <= 0, "gt": s > 0, "ge": s >= 0}[n.op] {
		return tTrue
	}
	return tFalse
}

func (c *dsCase) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d: files", c.seed)
	for _, f := range c.files {
		fmt.Fprintf(&b, " %s(%d)", f.rel, len(f.rows))
	}
	fmt.Fprintf(&b, "\nRename s %v (to %s) region %v; Columns %q; MaxRows(%d) WholeFiles %v ChunkSize(%d) ShuffleWindow(%d) Files %q bad %v",
		c.renameS, c.userS(), c.renameR, c.columns, c.maxRows, c.whole, c.chunk, c.window, c.pick, c.bad)
	if c.filter != nil {
		fmt.Fprintf(&b, "\nRowFilter: %v", c.filter.f)
	}
	if c.where != nil {
		fmt.Fprintf(&b, "\nWhere: %v", c.where.f)
	}
	return b.String()
}

// write writes the case's files under a new root.
func (c *dsCase) write(t *testing.T) string {
	root := t.TempDir()
	g := &rgen{r: rand.New(rand.NewPCG(c.seed, 1))}
	for _, f := range c.files {
		opts := []pq.WriterOption{pq.PageBufferSize(pickOf(g, 64, 256, 4096)), pq.DataPageVersion(pickOf(g, 1, 2))}
		groups := pickOf(g, 3, 16, 1000)
		path := filepath.Join(root, filepath.FromSlash(f.rel))
		if g.chance(0.5) {
			rows := make([]dsDictRow, len(f.rows))
			for i, r := range f.rows {
				rows[i] = dsDictRow(r)
			}
			testutil.WriteParquet(t, path, rows, groups, opts...)
		} else {
			testutil.WriteParquet(t, path, f.rows, groups, opts...)
		}
	}
	return root
}

// badFile is where the case's file that is not Parquet goes.
const badFile = "region=b/day=2/bad.parquet"

// options returns the read options of the case: those of the unfiltered
// read (Rename, Columns) first, then the others.
func (c *dsCase) options(report *sources.SkipReport) (base, all []parquet.Option) {
	if c.renameS {
		base = append(base, parquet.Rename("s", c.userS()))
	}
	if c.renameR {
		base = append(base, parquet.Rename("region", "reg"))
	}
	if c.columns != nil {
		base = append(base, parquet.Columns(c.columns...))
	}
	all = append(slices.Clip(base), sources.ChunkSize(c.chunk))
	if c.maxRows > 0 {
		all = append(all, parquet.MaxRows(c.maxRows))
	}
	if c.whole {
		all = append(all, sources.WholeFiles())
	}
	if c.filter != nil {
		all = append(all, parquet.RowFilter(c.filter.f))
	}
	if c.where != nil {
		all = append(all, sources.Where(c.where.f))
	}
	if c.window != 0 {
		all = append(all, sources.ShuffleWindow(c.window))
	}
	if c.pick != nil {
		all = append(all, sources.Files(c.pick...))
	}
	if report != nil {
		all = append(all, sources.SkipBad(report))
	}
	return base, all
}

func (c *dsCase) check(t *testing.T) {
	root := c.write(t)
	base, _ := c.options(nil)
	all := testutil.Items[sources.Record](t, flow.From(parquet.Read[sources.Record](root, base...)))
	// The unfiltered read: every row, with the IDs the doc gives.
	var want []flow.Item[sources.Record]
	row, badKept := 0, false
	for _, f := range c.files {
		picked := c.pick == nil || slices.Contains(c.pick, f.rel)
		whereOK := c.where == nil || c.where.eval(&f) == tTrue
		for i := range f.rows {
			if row >= len(all) {
				t.Fatalf("the unfiltered read has %d rows\n%s", len(all), c)
			}
			if id := rowid.Ordinal(uint64(i)).Combine(rowid.FromString(f.rel)); all[row].ID != id {
				t.Fatalf("the unfiltered read's item %d (row %d of %s) has ID %v, want %v\n%s", row, i, f.rel, all[row].ID, id, c)
			}
			if picked && whereOK && (c.filter == nil || c.filter.eval(c.flat(), row) == tTrue) {
				want = append(want, all[row])
			}
			row++
		}
	}
	if row != len(all) {
		t.Fatalf("the unfiltered read has %d rows, want %d\n%s", len(all), row, c)
	}
	var report *sources.SkipReport
	if c.bad {
		bad := filepath.Join(root, filepath.FromSlash(badFile))
		if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bad, []byte("not a parquet file, but long enough to have a footer"), 0o644); err != nil {
			t.Fatal(err)
		}
		badKept = c.pick == nil && (c.where == nil || c.where.eval(&dsFile{region: "b", day: "2"}) == tTrue)
		report = new(sources.SkipReport)
	}
	_, opts := c.options(report)
	var first []flow.Item[sources.Record]
	for _, par := range []int{1, 3} {
		var got []flow.Item[sources.Record]
		for it, err := range flow.Items[sources.Record](t.Context(), flow.From(parquet.Read[sources.Record](root, opts...)).Parallel(par)) {
			if err != nil {
				t.Fatalf("parallelism %d: %v\n%s", par, err, c)
			}
			got = append(got, it)
		}
		if c.bad && (report.FilesLost != map[bool]int{false: 0, true: 1}[badKept] || report.RowsLost != 0) {
			t.Fatalf("parallelism %d: the report lost %d files and %d rows; want the file %s lost: %v\n%s", par, report.FilesLost, report.RowsLost, badFile, badKept, c)
		}
		if c.window == 0 {
			sameRecords(t, fmt.Sprintf("parallelism %d", par), got, want, c.String())
			continue
		}
		if first == nil {
			first = got
		} else {
			sameRecords(t, "parallelism 3 against 1, shuffled", got, first, c.String())
		}
		byID := slices.Clone(got)
		slices.SortFunc(byID, func(a, b flow.Item[sources.Record]) int { return a.ID.Compare(b.ID) })
		sorted := slices.Clone(want)
		slices.SortFunc(sorted, func(a, b flow.Item[sources.Record]) int { return a.ID.Compare(b.ID) })
		sameRecords(t, fmt.Sprintf("parallelism %d, shuffled, by ID", par), byID, sorted, c.String())
	}
	var kept, wantIDs []rowid.ID
	for _, it := range want {
		wantIDs = append(wantIDs, it.ID)
	}
	for b, err := range flow.Values[*parquet.ColumnBatch](t.Context(), flow.From(parquet.Read[*parquet.ColumnBatch](root, opts...)).Parallel(2)) {
		if err != nil {
			t.Fatalf("column batches: %v\n%s", err, c)
		}
		for i := range b.NumRows {
			if b.Kept(i) {
				kept = append(kept, b.RowID(i))
			}
		}
		b.Release()
	}
	if c.window != 0 {
		slices.SortFunc(kept, rowid.ID.Compare)
		slices.SortFunc(wantIDs, rowid.ID.Compare)
	}
	if !slices.Equal(kept, wantIDs) {
		t.Fatalf("column batches keep %d rows, want %d\n%s", len(kept), len(wantIDs), c)
	}
	if c.window != 0 {
		return
	}
	world := 2 + int(c.seed%3)
	var union []flow.Item[sources.Record]
	for rank := range world {
		p := flow.From(parquet.Read[sources.Record](root, opts...)).Parallel(2).WithRank(rank, world)
		for it, err := range flow.Items[sources.Record](t.Context(), p) {
			if err != nil {
				t.Fatalf("rank %d of %d: %v\n%s", rank, world, err, c)
			}
			union = append(union, it)
		}
	}
	slices.SortStableFunc(union, func(a, b flow.Item[sources.Record]) int { return cmp.Compare(a.Part, b.Part) })
	sameRecords(t, fmt.Sprintf("%d ranks", world), union, want, c.String())
}
