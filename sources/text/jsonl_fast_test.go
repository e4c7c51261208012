package text

import (
	"encoding/json"
	"fmt"
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
	"unsafe"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/io/chunkmem"
	"github.com/rowflow/rowflow/internal/io/dataset"
	"github.com/rowflow/rowflow/sources"
)

// jsonRow has a field of every kind the fast path decodes, and optional
// fields it leaves to encoding/json.
type jsonRow struct {
	I64   int64     `json:"i64"`
	I32   int32     `json:"i32"`
	I8    int8      `json:"i8"`
	U16   uint16    `json:"u16"`
	U64   uint64    // keyed by its Go name
	F64   float64   `json:"f64"`
	F32   float32   `json:"f32"`
	B     bool      `json:"b"`
	S     string    `json:"s"`
	T     time.Time `json:"t"`
	PS    *string   `json:"ps"`
	PI    *int64    `json:"pi"`
	Name  string    `json:"Name"` // matched in any case
	List  []int     `json:"list"`
	Num   *json.Number
	Inner *struct{ A int }
	Q     int `json:"q,string,omitempty"`
	skip  int
	Dash  int `json:"-"`
}

// jsonKeys are the keys the generator uses: the fields' keys, in other
// cases, escaped, unknown and not ASCII.
var jsonKeys = []string{"i64", "i32", "i8", "u16", "U64", "f64", "f32", "b", "s", "t", "ps", "pi", "Name",
	"list", "Num", "Inner", "q", "I64", "u64", "NAME", "name", "nAmE", "S", "other", "", "Dash", "skip",
	`\u0069\u0036\u0034`, `na\u006de`, "s\u212a", "\xff", "k\u00e9y", "Q", "F64"}

// jsonGen makes lines of JSON Lines from a seed: mostly objects of the
// keys of jsonRow with values of their types, at the edges of their
// ranges, with escapes, surrogates, bytes that are not UTF-8, then keys
// missing, twice, unknown, values of other types, nesting and damage.
type jsonGen struct{ r *rand.Rand }

func (g jsonGen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

func (g jsonGen) space() string {
	if g.r.IntN(8) == 0 {
		return g.pick(" ", "\t", "  ", "\r", " \t ")
	}
	return ""
}

func (g jsonGen) integer() string {
	switch g.r.IntN(12) {
	case 0:
		return g.pick("0", "-0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "32767", "65535", "65536",
			"2147483647", "2147483648", "-2147483648", "-2147483649", "9223372036854775807", "9223372036854775808",
			"-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
			"999999999999999999", "1000000000000000000", "-999999999999999999", "00", "01", "-", "+1", "1.0", "1e2", "0x10", "1_0")
	case 1:
		return strconv.FormatInt(g.r.Int64(), 10)
	case 2:
		return strconv.FormatUint(g.r.Uint64(), 10)
	}
	return strconv.Itoa(g.r.IntN(200) - 100)
}

func (g jsonGen) float() string {
	switch g.r.IntN(6) {
	case 0:
		return g.pick("0", "-0", "0.0", "1e308", "1e309", "-1e400", "5e-324", "1e-400", "3.4028234663852886e38",
			"3.5e38", "1.0E+2", "1e-2", "1.", ".5", "1.e3", "-.5", "2.5E", "1e+", "123456789012345678901234567890",
			"0.1234567890123456789", "9007199254740993", `"NaN"`, `"+Inf"`, `"-Inf"`, `"1"`)
	case 1:
		return strconv.FormatFloat(g.r.NormFloat64()*1e6, 'g', -1, 64)
	case 2:
		return strconv.FormatFloat(float64(g.r.Float32()), 'e', -1, 32)
	case 3:
		return strconv.FormatFloat(g.r.Float64()*1000, 'f', g.r.IntN(18), 64)
	case 4:
		return strconv.FormatFloat(math.Float64frombits(g.r.Uint64()&^(0x7ff<<52)|uint64(g.r.IntN(0x7fe)+1)<<52), 'g', -1, 64)
	}
	return g.integer()
}

func (g jsonGen) str() string {
	var b strings.Builder
	b.WriteByte('"')
	for range g.r.IntN(12) {
		switch g.r.IntN(14) {
		case 0:
			b.WriteString(g.pick(`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\'`, `\x`, `\u00e9`, `\u0041`, `\uFFFF`, `\u12G4`))
		case 1:
			b.WriteString(g.pick(`\ud83d\ude00`, `\ud83d`, `\ude00`, `\ud83dx`, `\ud83d\u0041`, `\udc00\ud800`, `\ud800\ud800\udc00`))
		case 2:
			b.WriteString(g.pick("é", "日本", "😀", "\u212a", "\u2028"))
		case 3:
			b.WriteString(g.pick("\xff", "\xc3", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe6\x97"))
		case 4:
			if g.r.IntN(20) == 0 {
				b.WriteString(g.pick("\x01", "\x1f", "\t", "\x7f"))
			}
		default:
			b.WriteByte("abcxyz 019,:{}[]"[g.r.IntN(16)])
		}
	}
	b.WriteByte('"')
	return b.String()
}

func (g jsonGen) timestamp() string {
	if g.r.IntN(20) == 0 {
		return g.pick(`"2024-13-01T00:00:00Z"`, `"2024-01-02"`, `"2024-01-02 03:04:05Z"`, `1`, `"x"`, `"2024-01-02T03:04:05\u005a"`, `"2024-01-02T03:04:05.123456789-07:30"`)
	}
	t := time.Unix(g.r.Int64N(4e9), g.r.Int64N(1e9)).In(time.FixedZone("", 60*(g.r.IntN(1500)-750)))
	if g.r.IntN(2) == 0 {
		t = t.UTC()
	}
	return `"` + t.Format(time.RFC3339Nano) + `"`
}

// value returns a value for key, of its field's type unless wrong.
func (g jsonGen) value(key string, wrong bool) string {
	if wrong {
		return g.pick("null", "true", "false", g.integer(), g.float(), g.str(), `{"a":1}`, `[1,2]`, `{"a":1,"a":2}`, `[]`, `{}`, "nul", "tru", "[", `{"x":[{"y":null}]}`)
	}
	switch strings.ToLower(key) {
	case "i64", "i32", "i8", "u16", "u64", "pi":
		return g.integer()
	case "f64", "f32":
		return g.float()
	case "b":
		return g.pick("true", "false")
	case "s", "ps", "name":
		return g.str()
	case "t":
		return g.timestamp()
	case "list":
		return g.pick("[]", "[1,2,3]", "null")
	case "num":
		return g.pick("1", "1.5e3", `"12"`, "null")
	case "inner":
		return g.pick(`{"A":1}`, "null", `{"a":2}`)
	case "q":
		return g.pick(`"12"`, `"x"`, "12")
	}
	return g.pick(g.str(), g.integer(), "null", "true")
}

// line returns one line. Most are well formed with every required key.
func (g jsonGen) line() string {
	keys := []string{"i64", "i32", "i8", "u16", "U64", "f64", "f32", "b", "s", "t", "ps", "pi", "Name"}
	if g.r.IntN(3) == 0 {
		g.r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	}
	for range g.r.IntN(3) {
		if g.r.IntN(2) == 0 && len(keys) > 0 {
			i := g.r.IntN(len(keys))
			keys = slices.Delete(keys, i, i+1)
		} else {
			keys = append(keys, jsonKeys[g.r.IntN(len(jsonKeys))])
		}
	}
	if g.r.IntN(10) == 0 {
		keys = keys[:g.r.IntN(len(keys)+1)]
	}
	var b strings.Builder
	b.WriteString(g.space() + "{" + g.space())
	for i, k := range keys {
		if i > 0 {
			b.WriteString(g.space() + "," + g.space())
		}
		b.WriteString(`"` + k + `"` + g.space() + ":" + g.space() + g.value(k, g.r.IntN(100) == 0))
	}
	b.WriteString(g.space() + "}" + g.space())
	s := b.String()
	if g.r.IntN(20) == 0 { // damage
		at := g.r.IntN(len(s) + 1)
		switch g.r.IntN(3) {
		case 0:
			s = s[:at]
		case 1:
			s = s[:at] + g.pick(",", "}", "{", `"`, ":", "x", "]", "\\", "1", " ", "\x00") + s[at:]
		default:
			if at < len(s) {
				s = s[:at] + s[at+1:]
			}
		}
	}
	if g.r.IntN(40) == 0 {
		s = g.pick("[]", "null", "1", `"s"`, "{}", "{} {}", "{}x", `{"a":1}}`, " { } ")
	}
	return s
}

// fastCase compares the fast path with encoding/json on one line, as a
// jsonRow (with the required keys checked and not) and as a record (with
// Hive columns and not). It returns how many of the four the fast path
// took.
func fastCase(t testing.TB, line []byte) (took int) {
	var scans [4]jsonScan
	return fastCaseWith(t, line, &scans)
}

// fastCaseWith is fastCase with the scans of the four ways, which keep
// what they learn from line to line as a part's scan does.
func fastCaseWith(t testing.TB, line []byte, scans *[4]jsonScan) (took int) {
	f := JSONL[jsonRow]("x").(*textSource[jsonRow]).format.(jsonlStructs[jsonRow])
	if f.plan == nil {
		t.Fatal("no plan for jsonRow")
	}
	var mem chunkmem.Memory
	var keys keyScan
	for w, required := range []bool{true, false} {
		scan := &scans[w]
		var fields *fieldKeys
		var need []bool
		var top func([]byte)
		if required {
			fields = &fieldKeys{names: f.required, seen: make([]bool, len(f.required))}
			top = fields.mark
			var ok bool
			if need, ok = f.plan.required(f.required); !ok {
				t.Fatalf("required keys %q are not all the plan's", f.required)
			}
		}
		var fast, slow jsonRow
		fast.I8, slow.I8 = 9, 9 // a value a line without the key leaves
		ok := f.plan.decode(scan, line, unsafe.Pointer(&fast), &mem, need)
		err := f.decode(line, &slow, &keys, fields, top)
		if !ok {
			continue
		}
		took++
		if err != nil {
			t.Fatalf("%q (required keys %t): the fast path took it, encoding/json fails: %v", line, required, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q (required keys %t):\nfast path     %+v\nencoding/json %+v", line, required, fast, slow)
		}
	}
	hive := dataset.Partition{{Name: "lang", Value: "en"}, {Name: "day", Null: true}}
	for w, h := range []dataset.Partition{nil, hive} {
		scan := &scans[2+w]
		var fast, slow sources.Record
		ok := scan.record(line, &fast, h, &mem)
		err := decodeObject(line, &slow, h, &keys)
		if !ok {
			continue
		}
		took++
		if err != nil {
			t.Fatalf("%q: the fast path took it as a record, encoding/json fails: %v", line, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q as a record:\nfast path     %#v\nencoding/json %#v", line, fast, slow)
		}
	}
	return took
}

// TestJSONLFastPathAgrees compares the fast path with encoding/json on
// many generated lines, as structs and as records: a line the fast path
// takes decodes to what encoding/json and the key rules give, without
// error. It takes most of the well-formed lines.
func TestJSONLFastPathAgrees(t *testing.T) {
	n := 200000
	if testing.Short() {
		n = 20000
	}
	g := jsonGen{rand.New(rand.NewPCG(30, 1))}
	took, clean, cleanTook := 0, 0, 0
	var scans [4]jsonScan
	for range n {
		line := []byte(g.line())
		k := fastCaseWith(t, line, &scans)
		took += k
		var v any
		if json.Unmarshal(line, &v) == nil {
			if _, obj := v.(map[string]any); obj {
				clean++
				if k > 0 {
					cleanTook++
				}
			}
		}
	}
	t.Logf("%d lines, %d objects; the fast path took %d of those in at least one of four ways; %d decodes in all",
		n, clean, cleanTook, took)
	if cleanTook < clean/2 {
		t.Errorf("the fast path took %d of %d valid objects, want at least half", cleanTook, clean)
	}
}

// TestJSONLFastPathCases: lines the fast path must take, and their
// values; and lines it must leave to encoding/json.
func TestJSONLFastPathCases(t *testing.T) {
	base := `"i64":1,"i32":2,"i8":3,"u16":4,"U64":5,"f64":6.5,"f32":7.25,"b":true,"t":"2024-01-02T03:04:05Z","Name":"n"`
	take := []string{
		`{` + base + `,"s":"plain"}`,
		`{` + base + `,"s":"\u00e9\ud83d\ude00\n\"x\\","ps":"p","pi":-7}`,
		`{` + base + `,"s":"` + "\xff" + `\ud800 lone","ps":null,"pi":null,"other":[1],"x":{"a":1}}`,
		` { "I64" : 9223372036854775807 , "i32":2,"i8":-128,"u16":65535,"u64":18446744073709551615,"F64":1e308,"f32":3.4028234e38,"b":false,"t":null,"NAME":"","s":null } `,
	}
	// Values that encoding/json decodes alone, into a field or a record.
	take = append(take,
		`{`+base+`,"s":"x","list":[1, 2 ,3],"Num":12.50,"Inner":{"A":1,"B":"}]\""}}`,
		`{`+base+`,"s":"x","list":null,"Inner":null,"u":[{"a":[]},"]"],"v":{}}`,
		`{`+base+`,"s":"x","Num":"7","list":[],"u":{"k":{"k":1}}}`)
	for _, s := range take {
		if fastCase(t, []byte(s)) != 4 {
			t.Errorf("%s: the fast path did not take it all four ways", s)
		}
	}
	var row jsonRow
	var scan jsonScan
	var mem chunkmem.Memory
	plan := jsonPlanOf(reflect.TypeFor[jsonRow]())
	if !plan.decode(&scan, []byte(take[1]), unsafe.Pointer(&row), &mem, nil) {
		t.Fatalf("%s: not taken", take[1])
	}
	if row.S != "é😀\n\"x\\" || *row.PS != "p" || *row.PI != -7 || row.F32 != 7.25 || row.T != time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) {
		t.Errorf("%s: decoded %+v", take[1], row)
	}
	leave := []string{
		`{` + base + `,"s":"x","s":"y"}`,               // a key twice
		`{` + base + `}`,                               // "s" missing (required)
		`{` + base + `,"s":"x","i8":128}`,              // out of range
		`{` + base + `,"s":"x","f64":"NaN"}`,           // the shadow's
		`{` + base + `,"s":"x","u16":-0}`,              // a sign for a uint
		`{` + base + `,"s":"x","i64":1.0}`,             // not an integer
		`{` + base + `,"s":"x","\u0073":"y"}`,          // an escaped key
		`{` + base + `,"s":"x","q":"1"}`,               // a string option
		`{` + base + `,"s":"x\'"}`,                     // not an escape
		`{` + base + `,"s":"x` + "\x01" + `"}`,         // a control byte
		`{` + base + `,"s":"x"} x`,                     // after the object
		`{` + base + `,"s":"x",}`,                      // a trailing comma
		`{` + base + `,"s":"x","t":"2024-01-02"}`,      // not RFC 3339
		`{` + base + `,"s":"x","f64":1e400}`,           // out of range
		`{` + base + `,"s":"x","s\u212a":1,"K":2}`,     // not ASCII
		`[` + base + `]`,                               // not an object
		`{` + base + `,"s":"x","pi":01}`,               // bad number
		`{` + base + `,"s":"x","b":"true"}`,            // a string for a bool
		`{` + base + `,"s":"x","b":nulll}`,             // bad literal
		`{` + base + `,"s":"\ud83d\ude0"}`,             // bad \u
		`{` + base + `,"s":"x","list":[1,}`,            // bad syntax in a value
		`{` + base + `,"s":"x","Inner":{"A":"1"}}`,     // a wrong type in a value
		`{` + base + `,"s":"x","u":{"a":1,"a":2}}`,     // a key twice in a value
		`{` + base + `,"s":"x","Inner":{"A":1,"A":2}}`, // a key twice in a field's value
		`{` + base + `,"s":"x","Inner":[1}}`,           // brackets that do not pair
	}
	// Every byte the string scan looks for, at every offset of a word.
	for n := range 20 {
		for _, c := range []string{`"`, `\"`, `\n`, `\u00e9`, "\x00", "\x1f", " ", "\x7f", "\x80", "é", "\xff"} {
			for _, tail := range []string{"", "abcdefghij"} {
				str := strings.Repeat("a", n) + c + tail
				line := `{` + base + `,"s":"` + str + `"}`
				want := 4 // taken as a struct (required keys or not) and a record (Hive columns or not)
				if c == `"` || c < " " {
					want = 0 // a stray quote, a control byte
				}
				if got := fastCase(t, []byte(line)); got != want {
					t.Errorf("%q: the fast path took it %d ways, want %d", line, got, want)
				}
			}
		}
	}
	for _, s := range leave {
		row := jsonRow{}
		if plan.decode(&scan, []byte(s), unsafe.Pointer(&row), &mem, []bool{12: false, 8: true}) {
			t.Errorf("%s: the fast path took it", s)
		}
		fastCase(t, []byte(s))
	}
}

// FuzzJSONLFastPath: a line the fast path takes decodes to what
// encoding/json and the key rules give, without error, as a struct and
// as a record.
func FuzzJSONLFastPath(f *testing.F) {
	g := jsonGen{rand.New(rand.NewPCG(7, 7))}
	for range 16 {
		f.Add([]byte(g.line()))
	}
	for _, s := range []string{`{}`, `{"s":"\ud83d\ude00","i8":-128}`, `{"U64":18446744073709551615,"f32":1e39}`, "{\"s\":\"\xff\"}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fastCase(t, line)
	})
}

// TestJSONLFastPathFiles reads generated files of good and bad lines, in
// ranges and in parallel, with and without the fast path, as structs
// (with and without AllowMissingFields, and a Hive column that is also a
// field) and as records, skipping bad lines or failing on the first: the
// items, their IDs, the skip reports and the errors are the same.
func TestJSONLFastPathFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "Name=hive")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	g := jsonGen{rand.New(rand.NewPCG(3, 0))}
	for k := range 3 {
		var b strings.Builder
		for i := range 400 {
			if i%3 == k {
				fmt.Fprintf(&b, `{"i64":%d,"i32":2,"i8":3,"u16":4,"U64":5,"f64":%d.5,"f32":7,"b":true,"t":"2024-01-02T03:04:05Z","s":"s%d","Name":"x"}`+"\n", i, i, k)
			}
			b.WriteString(g.line() + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.jsonl", k)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(fast bool, src func(...JSONLOption) string, opts ...JSONLOption) string {
		jsonlFastPath = fast
		defer func() { jsonlFastPath = true }()
		return src(opts...)
	}
	structs := func(opts ...JSONLOption) func(...JSONLOption) string {
		return func(more ...JSONLOption) string {
			return transcript[jsonRow](t, flow.From(JSONL[jsonRow](root, append(opts, more...)...)))
		}
	}
	records := func(more ...JSONLOption) string {
		return transcript[sources.Record](t, flow.From(JSONL[sources.Record](root, more...)))
	}
	for name, src := range map[string]func(...JSONLOption) string{
		"structs": structs(), "structs missing": structs(AllowMissingFields()), "records": records,
	} {
		for _, split := range []int64{1 << 30, 700} {
			var fail, skip [2]string
			for i, fast := range []bool{false, true} {
				fail[i] = read(fast, src, PartitionBytes(split))
				var rep sources.SkipReport
				skip[i] = read(fast, src, PartitionBytes(split), sources.SkipBad(&rep))
				skip[i] += fmt.Sprintf("skipped %+v, %d more\n", rep.Skipped, rep.Omitted)
			}
			if fail[0] != fail[1] {
				t.Errorf("%s, split %d, failing: encoding/json reads\n%.3000s\nthe fast path\n%.3000s", name, split, fail[0], fail[1])
			}
			if skip[0] != skip[1] {
				t.Errorf("%s, split %d, skipping: encoding/json reads\n%.3000s\nthe fast path\n%.3000s", name, split, skip[0], skip[1])
			}
			if rows := strings.Count(skip[0], "\n"); !strings.Contains(fail[0], "error: ") || rows < 400 {
				t.Errorf("%s, split %d: want an error failing and 400 rows skipping, read %d:\n%.3000s", name, split, rows, fail[0])
			}
		}
	}
}

// transcript reads p and returns its items with their IDs, in order, as
// shown by show, and its error.
func transcript[T any](t testing.TB, p *flow.Pipeline) string {
	var b strings.Builder
	for it, err := range flow.Items[T](t.Context(), p) {
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
			break
		}
		fmt.Fprintf(&b, "%d %v %s\n", it.Part, it.ID, show(reflect.ValueOf(it.Value)))
	}
	return b.String()
}

// show returns v as Go syntax, with what its pointers point to rather
// than addresses.
func show(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return "&" + show(v.Elem())
	case reflect.Slice:
		var parts []string
		for i := range v.Len() {
			parts = append(parts, show(v.Index(i)))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			return v.Interface().(time.Time).Format(time.RFC3339Nano)
		}
		var parts []string
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				parts = append(parts, v.Type().Field(i).Name+":"+show(v.Field(i)))
			}
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return fmt.Sprintf("%#v", v.Interface())
}
