package sources_test

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// FuzzFilterText draws a random filter tree from seed (Eq … Ge, In with 0
// to 4 values, Not, And and Or nested; literals of every Literal type:
// integers of each width, unsigned integers beyond int64, floats with -0
// and ±Inf, strings and []byte with quotes, backslashes, unicode and
// bytes that are not UTF-8, bools, times in several zones; column names
// with spaces, quotes, dots, keywords, digits first and non-UTF-8 bytes)
// and checks that ParseExpr(f.String()) succeeds and prints the same
// text. It then writes a random Hive-partitioned JSON Lines dataset of
// one line per file under col=value directories and reads it with
// sources.Where of the drawn filter and of the parsed one: both must keep
// exactly the files that a naive three-valued evaluation of the drawn
// tree keeps (each partition value read as its literal's type, numbers
// compared exactly with big.Rat), and fail where it says a value does not
// read as its literal's type. Last, it parses text as a filter: that must
// not panic, and a filter it accepts must print text that parses back
// into the same text.
func FuzzFilterText(f *testing.F) {
	f.Add(uint64(1), "score > 0.5 and lang = 'en'")
	f.Add(uint64(2), `not (id between 100 and 200) or "a b" in ('x''y', x'ff00')`)
	f.Add(uint64(3), "day >= date '2024-01-31' and ts < timestamp '2024-02-01T12:00:00Z'")
	f.Add(uint64(4), "a in () or not true and false")
	f.Add(uint64(5), "x = -1.5e+300 or y <> 18446744073709551615")
	f.Add(uint64(6), `"" = '' or """" = 'é\'`)
	for s := uint64(7); s < 30; s++ {
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, seed uint64, src string) {
		rng := rand.New(rand.NewPCG(seed, seed>>32^0x9e3779b97f4a7c15))
		ds := randomDataset(rng)
		tree := randomNode(rng, ds, 3)
		checkTree(t, ds, tree)
		checkText(t, src)
	})
}

// checkText parses src: a filter it accepts prints text that parses back
// into a filter printing the same text.
func checkText(t *testing.T, src string) {
	f, err := sources.ParseExpr(src)
	if err != nil {
		return
	}
	text := f.String()
	back, err := sources.ParseExpr(text)
	if err != nil {
		t.Fatalf("ParseExpr(%q) = %s, which does not parse: %v", src, text, err)
	}
	if got := back.String(); got != text {
		t.Fatalf("ParseExpr(%q) = %s, which parses back into %s", src, text, got)
	}
}

func checkTree(t *testing.T, ds *hiveDataset, tree *fnode) {
	orig := tree.filter()
	text := orig.String()
	nan := tree.hasNaN()
	parsed, err := sources.ParseExpr(text)
	switch {
	case nan:
		// A NaN literal is an error of the filter; its text is not a filter.
	case err != nil:
		t.Fatalf("%#v: ParseExpr(%q): %v", tree, text, err)
	case parsed.String() != text:
		t.Fatalf("%#v: String() = %q, ParseExpr of it prints %q", tree, text, parsed.String())
	}

	dir := ds.write(t)
	want, wantErr := ds.keep(tree)
	got, gotErr := readWhere(dir, orig)
	if nan {
		if gotErr == nil {
			t.Fatalf("Where(%s) with a NaN literal: no error", text)
		}
		return
	}
	compareKept(t, "Where("+text+")", got, gotErr, want, wantErr)
	got, gotErr = readWhere(dir, parsed)
	compareKept(t, "Where(ParseExpr("+strconv.Quote(text)+"))", got, gotErr, want, wantErr)
}

func compareKept(t *testing.T, what string, got []int, gotErr error, want []int, wantErr error) {
	t.Helper()
	switch {
	case wantErr != nil && gotErr == nil:
		t.Fatalf("%s kept files %v, want an error: %v", what, got, wantErr)
	case wantErr == nil && gotErr != nil:
		t.Fatalf("%s: %v, want files %v", what, gotErr, want)
	case wantErr == nil && !slices.Equal(got, want):
		t.Fatalf("%s kept files %v, want %v", what, got, want)
	}
}

type idLine struct {
	ID int `json:"id"`
}

// readWhere reads the dataset at dir with Where(f) and returns the ids of
// the lines read, sorted.
func readWhere(dir string, f sources.Expr) ([]int, error) {
	var ids []int
	for it, err := range flow.Items[idLine](context.Background(), flow.From(text.JSONL[idLine](dir, sources.Where(f)))) {
		if err != nil {
			return nil, err
		}
		ids = append(ids, it.Value.ID)
	}
	slices.Sort(ids)
	return ids, nil
}

// A hiveDataset is a list of files, each with a value (or null) for every
// partition column.
type hiveDataset struct {
	cols  []hiveCol
	files [][]hiveValue // files[i][c]: file i's value of column c
}

type hiveCol struct {
	name string
	kind byte // 'n' numbers, 's' text, 'b' bools, 't' times
}

type hiveValue struct {
	text string
	null bool
}

// colNames are partition column names, bare and ones String must quote.
var colNames = []string{"a", "lang", "x.y", "_u", "1st", "with space", `q"uote`, "it's", "ünï", "\xff\xfe",
	"and", "TRUE", "in", "date", "x", "ts", ".dot", "a=b", "per%cent", "sl/ash", "tab\t", "٣rd", "e1", "-", "~t"}

var partitionValues = map[byte][]string{
	'n': {"0", "-0", "07", "-3", "+5", "1", "2", "1.5", "-2.25", "0.1", "1e2", "2E-1", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "18446744073709551615", "1e300", "-7.0", "3.0000000000000004"},
	's': {"en", "fr", "it's", `a\b`, `"q"`, "ü", "日本", "\xff", "~x", "%", "a/b", "a b", "a=b", "__HIVE_DEFAULT_PARTITION__x", "__HIVE_DEFAULT_PARTITION__", "EN", "0"},
	'b': {"true", "false", "1", "0", "t", "F", "TRUE", "False"},
	't': {"2024-01-31", "2024-01-31T12:00:00Z", "2024-01-31 12:00:00", "2024-01-31T12:00:00+02:00",
		"2024-01-31T12:00:00.5Z", "2023-12-31T23:59:59.999999999-01:00", "1970-01-01T00:00:00Z", "2024-02-01"},
}

func randomDataset(rng *rand.Rand) *hiveDataset {
	ds := &hiveDataset{}
	names := slices.Clone(colNames)
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for _, name := range names[:1+rng.IntN(3)] {
		ds.cols = append(ds.cols, hiveCol{name: name, kind: "nsbt"[rng.IntN(4)]})
	}
	for range 1 + rng.IntN(8) {
		var file []hiveValue
		for _, c := range ds.cols {
			if rng.IntN(8) == 0 {
				file = append(file, hiveValue{null: true})
				continue
			}
			vs := partitionValues[c.kind]
			file = append(file, hiveValue{text: vs[rng.IntN(len(vs))]})
		}
		ds.files = append(ds.files, file)
	}
	return ds
}

// hiveEscape escapes every byte but ASCII letters and digits as %XX.
func hiveEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// write writes file i as <col>=<value>/…/part-i.jsonl holding {"id": i}.
func (ds *hiveDataset) write(t *testing.T) string {
	root := t.TempDir()
	for i, file := range ds.files {
		dir := root
		for c, v := range file {
			val := "__HIVE_DEFAULT_PARTITION__"
			if !v.null {
				val = hiveEscape(v.text)
			}
			dir = filepath.Join(dir, hiveEscape(ds.cols[c].name)+"="+val)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", i)), fmt.Appendf(nil, "{\"id\": %d}\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// keep returns the files that tree makes true, or an error if it names a
// column the dataset does not have or a value does not read as the type
// of a literal it is compared with.
func (ds *hiveDataset) keep(tree *fnode) ([]int, error) {
	for _, col := range tree.columns() {
		if !slices.ContainsFunc(ds.cols, func(c hiveCol) bool { return c.name == col }) {
			return nil, fmt.Errorf("no partition column %q", col)
		}
	}
	var kept []int
	for i, file := range ds.files {
		get := func(col string) hiveValue {
			return file[slices.IndexFunc(ds.cols, func(c hiveCol) bool { return c.name == col })]
		}
		v, err := tree.eval(get)
		if err != nil {
			return nil, err
		}
		if v == triTrue {
			kept = append(kept, i)
		}
	}
	return kept, nil
}

// Three-valued logic: false < unknown < true.
const (
	triFalse = 0
	triNull  = 1
	triTrue  = 2
)

// fnode is a drawn filter: a comparison (op "=", "!=", "<", "<=", ">",
// ">=", "in") of col with lits, or "not", "and", "or" of subs.
type fnode struct {
	op   string
	col  string
	lits []flit
	subs []*fnode
}

// flit is a literal: kind 'i' (Go type by width: 0 int, 8, 16, 32, 64),
// 'u' (0 uint, 8 … 64), 'f' (32 or 64), 's' string, 'y' []byte, 'b' bool,
// 't' time.Time.
type flit struct {
	kind  byte
	width int
	i     int64
	u     uint64
	f     float64
	s     string
	b     bool
	t     time.Time
}

var compareOps = []string{"=", "!=", "<", "<=", ">", ">="}

func randomNode(rng *rand.Rand, ds *hiveDataset, depth int) *fnode {
	if depth > 0 && rng.IntN(3) > 0 {
		switch rng.IntN(3) {
		case 0:
			return &fnode{op: "not", subs: []*fnode{randomNode(rng, ds, depth-1)}}
		default:
			n := &fnode{op: []string{"and", "or"}[rng.IntN(2)]}
			for range rng.IntN(4) {
				n.subs = append(n.subs, randomNode(rng, ds, depth-1))
			}
			return n
		}
	}
	col := ds.cols[rng.IntN(len(ds.cols))]
	kind := map[byte]string{'n': "iuf", 's': "sy", 'b': "b", 't': "t"}[col.kind]
	name := col.name
	switch rng.IntN(40) {
	case 0:
		kind = "iufsybt" // a literal of any type: a mismatch is an error
	case 1:
		name = colNames[rng.IntN(len(colNames))] // perhaps a column the dataset does not have
	}
	k := kind[rng.IntN(len(kind))]
	width := randomWidth(rng, k)
	n := &fnode{col: name}
	if rng.IntN(4) == 0 {
		n.op = "in"
		for range rng.IntN(5) {
			n.lits = append(n.lits, randomLit(rng, k, width))
		}
		return n
	}
	n.op = compareOps[rng.IntN(len(compareOps))]
	n.lits = []flit{randomLit(rng, k, width)}
	return n
}

func randomWidth(rng *rand.Rand, k byte) int {
	switch k {
	case 'i', 'u':
		return []int{0, 8, 16, 32, 64}[rng.IntN(5)]
	case 'f':
		return []int{32, 64}[rng.IntN(2)]
	}
	return 0
}

var litStrings = []string{"", "en", "fr", "it's", "''", `a\b`, `\`, `"q"`, "ü", "日本", "\xff", "\xc3", "~x", "%", "a/b",
	"a b", "a=b", "__HIVE_DEFAULT_PARTITION__", "__HIVE_DEFAULT_PARTITION__x", "EN", "0", "line\nbreak", "\x00", " or 1 = 1"}

var litTimes = []string{"2024-01-31T00:00:00Z", "2024-01-31T12:00:00Z", "2024-01-31T10:00:00Z", "2024-01-31T12:00:00.5Z",
	"2024-01-01T00:59:59.999999999Z", "1970-01-01T00:00:00Z", "2024-02-01T00:00:00+00:00", "0001-01-01T00:00:00Z"}

func randomLit(rng *rand.Rand, k byte, width int) flit {
	l := flit{kind: k, width: width}
	switch k {
	case 'i':
		vals := []int64{0, 1, -1, 2, 5, 7, -3, 100, math.MaxInt64, math.MinInt64}
		l.i = vals[rng.IntN(len(vals))]
		switch width {
		case 8:
			l.i = int64(int8(l.i))
		case 16:
			l.i = int64(int16(l.i))
		case 32:
			l.i = int64(int32(l.i))
		}
	case 'u':
		vals := []uint64{0, 1, 2, 5, 7, 255, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64, 100}
		l.u = vals[rng.IntN(len(vals))]
		switch width {
		case 8:
			l.u = uint64(uint8(l.u))
		case 16:
			l.u = uint64(uint16(l.u))
		case 32:
			l.u = uint64(uint32(l.u))
		}
	case 'f':
		vals := []float64{0, math.Copysign(0, -1), 0.1, 1.5, -2.25, 100, 1e300, 0.2, 7, -3,
			math.Inf(1), math.Inf(-1), 0x1p63, 0x1p64, 3.0000000000000004, math.SmallestNonzeroFloat64, math.MaxFloat64}
		l.f = vals[rng.IntN(len(vals))]
		if rng.IntN(200) == 0 {
			l.f = math.NaN()
		}
		if width == 32 {
			l.f = float64(float32(l.f))
		}
	case 's', 'y':
		l.s = litStrings[rng.IntN(len(litStrings))]
	case 'b':
		l.b = rng.IntN(2) == 0
	case 't':
		tm, err := time.Parse(time.RFC3339Nano, litTimes[rng.IntN(len(litTimes))])
		if err != nil {
			panic(err)
		}
		zones := []*time.Location{time.UTC, time.FixedZone("", 2*3600), time.FixedZone("X", -5*3600-30*60), time.FixedZone("LMT", 3600+30)}
		l.t = tm.In(zones[rng.IntN(len(zones))])
	}
	return l
}

func (n *fnode) hasNaN() bool {
	for _, l := range n.lits {
		if l.kind == 'f' && math.IsNaN(l.f) {
			return true
		}
	}
	return slices.ContainsFunc(n.subs, (*fnode).hasNaN)
}

func (n *fnode) columns() []string {
	if n.op != "and" && n.op != "or" && n.op != "not" {
		return []string{n.col}
	}
	var cols []string
	for _, s := range n.subs {
		cols = append(cols, s.columns()...)
	}
	return cols
}

// filter builds n with the constructors of package sources.
func (n *fnode) filter() sources.Expr {
	switch n.op {
	case "not":
		return sources.Not(n.subs[0].filter())
	case "and", "or":
		var fs []sources.Expr
		for _, s := range n.subs {
			fs = append(fs, s.filter())
		}
		if n.op == "and" {
			return sources.And(fs...)
		}
		return sources.Or(fs...)
	}
	if len(n.lits) == 0 {
		return sources.In[int](n.col)
	}
	l := n.lits[0]
	switch {
	case l.kind == 'i' && l.width == 0:
		return build(n, func(l flit) int { return int(l.i) })
	case l.kind == 'i' && l.width == 8:
		return build(n, func(l flit) int8 { return int8(l.i) })
	case l.kind == 'i' && l.width == 16:
		return build(n, func(l flit) int16 { return int16(l.i) })
	case l.kind == 'i' && l.width == 32:
		return build(n, func(l flit) int32 { return int32(l.i) })
	case l.kind == 'i':
		return build(n, func(l flit) int64 { return l.i })
	case l.kind == 'u' && l.width == 0:
		return build(n, func(l flit) uint { return uint(l.u) })
	case l.kind == 'u' && l.width == 8:
		return build(n, func(l flit) uint8 { return uint8(l.u) })
	case l.kind == 'u' && l.width == 16:
		return build(n, func(l flit) uint16 { return uint16(l.u) })
	case l.kind == 'u' && l.width == 32:
		return build(n, func(l flit) uint32 { return uint32(l.u) })
	case l.kind == 'u':
		return build(n, func(l flit) uint64 { return l.u })
	case l.kind == 'f' && l.width == 32:
		return build(n, func(l flit) float32 { return float32(l.f) })
	case l.kind == 'f':
		return build(n, func(l flit) float64 { return l.f })
	case l.kind == 's':
		return build(n, func(l flit) string { return l.s })
	case l.kind == 'y':
		return build(n, func(l flit) []byte { return []byte(l.s) })
	case l.kind == 'b':
		return build(n, func(l flit) bool { return l.b })
	}
	return build(n, func(l flit) time.Time { return l.t })
}

func build[V sources.Literal](n *fnode, conv func(flit) V) sources.Expr {
	vs := make([]V, len(n.lits))
	for i, l := range n.lits {
		vs[i] = conv(l)
	}
	switch n.op {
	case "=":
		return sources.Eq(n.col, vs[0])
	case "!=":
		return sources.Ne(n.col, vs[0])
	case "<":
		return sources.Lt(n.col, vs[0])
	case "<=":
		return sources.Le(n.col, vs[0])
	case ">":
		return sources.Gt(n.col, vs[0])
	case ">=":
		return sources.Ge(n.col, vs[0])
	}
	return sources.In(n.col, vs...)
}

// eval is the documented three-valued logic: And the minimum, Or the
// maximum, Not the reflection; In is true if a literal equals the value,
// else false (even for null when it has no literal).
func (n *fnode) eval(get func(string) hiveValue) (int, error) {
	switch n.op {
	case "not":
		v, err := n.subs[0].eval(get)
		return triTrue - v, err
	case "and", "or":
		acc := triFalse
		if n.op == "and" {
			acc = triTrue
		}
		for _, s := range n.subs {
			v, err := s.eval(get)
			if err != nil {
				return 0, err
			}
			if n.op == "and" {
				acc = min(acc, v)
			} else {
				acc = max(acc, v)
			}
		}
		return acc, nil
	}
	val := get(n.col)
	if n.op == "in" {
		for _, l := range n.lits {
			if val.null {
				return triNull, nil
			}
			c, err := l.comparePartition(val.text)
			if err != nil {
				return 0, err
			}
			if c == 0 {
				return triTrue, nil
			}
		}
		return triFalse, nil
	}
	if val.null {
		return triNull, nil
	}
	c, err := n.lits[0].comparePartition(val.text)
	if err != nil {
		return 0, err
	}
	holds := map[string]bool{"=": c == 0, "!=": c != 0, "<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[n.op]
	if holds {
		return triTrue, nil
	}
	return triFalse, nil
}

// comparePartition returns the sign of (s - l) with the partition value s
// read as l's type: numbers exactly (integers as integers, other decimals
// as float64), text and bytes byte by byte, bools with ParseBool, times as
// RFC 3339, "2006-01-02 15:04:05" or a date.
func (l flit) comparePartition(s string) (int, error) {
	bad := fmt.Errorf("%q does not read as a %c literal", s, l.kind)
	switch l.kind {
	case 's', 'y':
		return strings.Compare(s, l.s), nil
	case 'b':
		b, err := strconv.ParseBool(s)
		if err != nil {
			return 0, bad
		}
		switch {
		case b == l.b:
			return 0, nil
		case b:
			return 1, nil
		}
		return -1, nil
	case 't':
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", time.DateOnly} {
			if tm, err := time.Parse(layout, s); err == nil {
				return tm.Compare(l.t), nil
			}
		}
		return 0, bad
	}
	var x big.Rat
	if i, ok := new(big.Int).SetString(s, 10); ok {
		x.SetInt(i)
	} else {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, bad
		}
		x.SetFloat64(f)
	}
	var lit big.Rat
	switch l.kind {
	case 'i':
		lit.SetInt64(l.i)
	case 'u':
		lit.SetUint64(l.u)
	default:
		if math.IsInf(l.f, 0) {
			return -int(math.Copysign(1, l.f)), nil
		}
		lit.SetFloat64(l.f)
	}
	return x.Cmp(&lit), nil
}

// TestFilterTextRegressions holds filters whose text did not parse back
// into the same filter: an and or or of one operand written in
// parentheses, which Parse reads as the operand alone; a column name
// starting with '.', written bare and read as a number; the infinities,
// written +Inf and -Inf, which Parse did not read; and a time in a zone
// whose offset has seconds, which RFC 3339 drops.
func TestFilterTextRegressions(t *testing.T) {
	ds := &hiveDataset{
		cols: []hiveCol{{".dot", 'n'}, {"t", 't'}},
		files: [][]hiveValue{
			{{text: "0"}, {text: "2024-01-31T12:00:00Z"}},
			{{text: "1.5"}, {text: "2024-01-31T12:00:30Z"}},
			{{text: "-3"}, {null: true}},
			{{null: true}, {text: "2024-01-31"}},
		},
	}
	num := func(op string, f float64) *fnode {
		return &fnode{op: op, col: ".dot", lits: []flit{{kind: 'f', width: 64, f: f}}}
	}
	lmt := time.Date(2024, 1, 31, 13, 0, 30, 0, time.FixedZone("LMT", 3600+30))
	trees := []*fnode{
		{op: "or", subs: []*fnode{{op: "and", subs: []*fnode{{op: "or", subs: []*fnode{num("<", 1), num(">", 5)}}}}, num("=", 1.5)}},
		{op: "and", subs: []*fnode{{op: "and", subs: []*fnode{num("<", 1), num(">", -5)}}}},
		{op: "not", subs: []*fnode{{op: "or", subs: []*fnode{num("=", 0)}}}},
		num(">", math.Inf(-1)),
		{op: "in", col: ".dot", lits: []flit{{kind: 'f', width: 32, f: math.Inf(1)}, {kind: 'f', width: 64, f: math.Inf(-1)}}},
		{op: "=", col: "t", lits: []flit{{kind: 't', t: lmt}}},
	}
	for i, tree := range trees {
		t.Run(strconv.Itoa(i), func(t *testing.T) { checkTree(t, ds, tree) })
	}
}

// TestWhereHiveDefaultPartitionString: the string
// "__HIVE_DEFAULT_PARTITION__", whose directory value is escaped
// (%5F_HIVE_DEFAULT_PARTITION__), is that string, not null, for Where as
// for the records; only the unescaped directory value is null.
func TestWhereHiveDefaultPartitionString(t *testing.T) {
	ds := &hiveDataset{
		cols:  []hiveCol{{"s", 's'}},
		files: [][]hiveValue{{{text: "__HIVE_DEFAULT_PARTITION__"}}, {{null: true}}, {{text: "x"}}},
	}
	str := func(op, s string) *fnode { return &fnode{op: op, col: "s", lits: []flit{{kind: 's', s: s}}} }
	for i, tree := range []*fnode{
		str("=", "__HIVE_DEFAULT_PARTITION__"),
		{op: "not", subs: []*fnode{str("=", "x")}},
		{op: "in", col: "s", lits: []flit{{kind: 'y', s: "__HIVE_DEFAULT_PARTITION__"}}},
	} {
		t.Run(strconv.Itoa(i), func(t *testing.T) { checkTree(t, ds, tree) })
	}
	if kept, err := readWhere(ds.write(t), sources.Eq("s", "__HIVE_DEFAULT_PARTITION__")); err != nil || !slices.Equal(kept, []int{0}) {
		t.Errorf("Where(s = '__HIVE_DEFAULT_PARTITION__') kept %v, %v; want [0]", kept, err)
	}
}
