package filter_test

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rowflow/rowflow/internal/filter"
	ft "github.com/rowflow/rowflow/internal/filter/filtertest"
)

func TestCompareIntFloatIsExact(t *testing.T) {
	ints := []struct {
		v    int64
		f    float64
		want int
	}{
		{2, 2.5, -1}, {3, 2.5, 1}, {2, 2, 0}, {-2, -2.5, 1}, {-3, -2.5, -1}, {0, math.Copysign(0, -1), 0},
		{math.MaxInt64, 0x1p63, -1}, {math.MinInt64, -0x1p63, 0}, {math.MinInt64, -0x1p64, 1},
		{1<<53 + 1, 0x1p53, 1}, {1<<53 - 1, 0x1p53, -1}, // float64(v) would round these to 2^53
		{5, math.Inf(1), -1}, {5, math.Inf(-1), 1},
	}
	for _, c := range ints {
		if got := filter.CompareIntFloat(c.v, c.f); got != c.want {
			t.Errorf("CompareIntFloat(%d, %v) = %d, want %d", c.v, c.f, got, c.want)
		}
	}
	uints := []struct {
		v    uint64
		f    float64
		want int
	}{
		{0, -0.5, 1}, {0, 0, 0}, {1, 0.5, 1}, {math.MaxUint64, 0x1p64, -1}, {1<<60 + 1, 0x1p60, 1},
		{1 << 63, 0x1p63, 0}, {3, 3.25, -1},
	}
	for _, c := range uints {
		if got := filter.CompareUintFloat(c.v, c.f); got != c.want {
			t.Errorf("CompareUintFloat(%d, %v) = %d, want %d", c.v, c.f, got, c.want)
		}
	}
}

// TestLiteralComparisons compares values of every numeric kind with
// literals of every numeric kind.
func TestLiteralComparisons(t *testing.T) {
	cases := []struct {
		lit  any
		i    int64
		u    uint64
		f    float64
		want int // the sign of (value - literal), the same for i, u and f
	}{
		{int64(5), 5, 5, 5, 0},
		{int64(-1), 0, 0, 0, 1},
		{uint64(math.MaxUint64), math.MaxInt64, math.MaxUint64 - 1, 1e19, -1},
		{2.5, 2, 2, 2.25, -1},
		{2.5, 3, 3, 2.75, 1},
		{float32(0.5), 0, 0, 0.25, -1},
	}
	for _, c := range cases {
		v := filter.Of(c.lit)
		got := []int{v.CompareInt(c.i), v.CompareUintWith(c.u)}
		if c.want != 0 {
			got = append(got, v.CompareFloatWith(c.f))
		}
		for k, g := range got {
			if g != c.want {
				t.Errorf("literal %v (%s), comparison %d: %d, want %d", c.lit, v.Kind, k, g, c.want)
			}
		}
	}
}

// TestTextRoundTrip: String gives text that Parse reads back into the same
// filter, and Parse reads the forms a command line uses.
func TestTextRoundTrip(t *testing.T) {
	ts := time.Date(2024, 2, 1, 12, 30, 0, 5, time.UTC)
	cases := []struct {
		e    *filter.Expr
		text string
	}{
		{ft.Eq("lang", "en"), `lang = 'en'`},
		{ft.Gt("score", 0.5), `score > 0.5`},
		{ft.Ge("score", 2.0), `score >= 2.0`},
		{ft.Lt("n", -3), `n < -3`},
		{ft.Le("big", uint64(math.MaxUint64)), `big <= 18446744073709551615`},
		{ft.Ne("flag", true), `flag != true`},
		{ft.Eq("b", []byte{0, 0xff}), `b = x'00ff'`},
		{ft.Eq("ts", ts), `ts = timestamp '2024-02-01T12:30:00.000000005Z'`},
		{ft.Eq("name", "it's"), `name = 'it''s'`},
		{ft.Eq("odd name", 1), `"odd name" = 1`},
		{ft.Eq("and", 1), `"and" = 1`},
		{ft.Eq("a.b_c", 1e300), `a.b_c = 1e+300`},
		{ft.In("id", 1, 2, 3), `id in (1, 2, 3)`},
		{ft.In("id"), `id in ()`},
		{ft.Not(ft.Eq("x", 1)), `not x = 1`},
		{ft.Not(ft.Or(ft.Eq("x", 1), ft.Eq("y", 2))), `not (x = 1 or y = 2)`},
		{ft.And(ft.Or(ft.Eq("x", 1), ft.Eq("y", 2)), ft.Eq("z", 3)), `(x = 1 or y = 2) and z = 3`},
		{ft.Or(ft.And(ft.Eq("x", 1), ft.Eq("y", 2)), ft.Eq("z", 3)), `(x = 1 and y = 2) or z = 3`},
		{ft.Between("d", 1, 9), `d >= 1 and d <= 9`},
		{ft.And(), `true`},
		{ft.Or(), `false`},
	}
	for _, c := range cases {
		if got := c.e.String(); got != c.text {
			t.Errorf("String() = %s, want %s", got, c.text)
		}
		back, err := filter.Parse(c.text)
		if err != nil {
			t.Errorf("Parse(%s): %v", c.text, err)
			continue
		}
		if !reflect.DeepEqual(back, c.e) {
			t.Errorf("Parse(%s) = %#v, want %#v", c.text, back, c.e)
		}
	}
	forms := []struct{ text, want string }{
		{`score > 0.5 AND lang == 'en'`, `score > 0.5 and lang = 'en'`},
		{`a <> 1 or not (b between 1 and 2)`, `a != 1 or not (b >= 1 and b <= 2)`},
		{`day >= date '2024-01-31'`, `day >= timestamp '2024-01-31T00:00:00Z'`},
		{`((x=1))`, `x = 1`},
		{`x = 1 or y = 2 and z = 3`, `x = 1 or (y = 2 and z = 3)`},
		{`date = 1e3`, `date = 1000.0`},
	}
	for _, f := range forms {
		e, err := filter.Parse(f.text)
		if err != nil || e.String() != f.want {
			t.Errorf("Parse(%s) = %v, %v; want %s", f.text, e, err, f.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for text, want := range map[string]string{
		``:                  "want a column",
		`x =`:               "want a literal",
		`x = 'open`:         "unterminated quote",
		`x = 1 y`:           `unexpected "y"`,
		`x ~ 1`:             "want an operator",
		`x in (1 2)`:        `want ","`,
		`x = 1 and`:         "want a column",
		`x between 1 or 2`:  `want "and"`,
		`x = x'zz'`:         "not hexadecimal",
		`x = date 'monday'`: "not YYYY-MM-DD",
		`x = 1.2.3`:         "not a number",
		`(x = 1`:            `want ")"`,
	} {
		_, err := filter.Parse(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q): %v, want an error saying %s", text, err, want)
		}
	}
}

// TestMatchText evaluates filters on Hive partition values.
func TestMatchText(t *testing.T) {
	part := map[string]string{"year": "2023", "lang": "en", "month": "07", "ok": "true",
		"day": "2024-01-31", "none": "", "hive": "__HIVE_DEFAULT_PARTITION__"}
	get := func(c string) (string, bool, bool) { v, ok := part[c]; return v, ok && v == "", ok }
	cases := []struct {
		e    *filter.Expr
		want filter.Tri
	}{
		{ft.Eq("year", 2023), filter.TriTrue},
		{ft.Eq("month", 7), filter.TriTrue},      // as a number
		{ft.Eq("month", "7"), filter.TriFalse},   // as text
		{ft.Gt("year", 10000), filter.TriFalse},  // numbers
		{ft.Gt("year", "10000"), filter.TriTrue}, // text: "2023" > "10000"
		{ft.Gt("year", 2022.5), filter.TriTrue},  // float
		{ft.Eq("year", uint64(2023)), filter.TriTrue},
		{ft.In("lang", "de", "en"), filter.TriTrue},
		{ft.In("lang"), filter.TriFalse},
		{ft.Eq("ok", true), filter.TriTrue},
		{ft.Ge("day", time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)), filter.TriTrue},
		{ft.Eq("none", 1), filter.TriNull},
		{ft.In("none", 1, 2), filter.TriNull},
		{ft.In("none"), filter.TriFalse},                              // as in a row filter: false on every row
		{ft.Eq("hive", "__HIVE_DEFAULT_PARTITION__"), filter.TriTrue}, // a string, not null
		{ft.Not(ft.Eq("none", "x")), filter.TriNull},
		{ft.Or(ft.Eq("none", 1), ft.Eq("lang", "en")), filter.TriTrue},
		{ft.And(ft.Eq("none", 1), ft.Eq("lang", "de")), filter.TriFalse},
		{ft.And(), filter.TriTrue},
		{ft.Or(), filter.TriFalse},
	}
	for _, c := range cases {
		got, err := c.e.MatchText(get)
		if err != nil || got != c.want {
			t.Errorf("%s: %v, %v; want %v", c.e, got, err, c.want)
		}
	}
	for e, want := range map[*filter.Expr]string{
		ft.Eq("nope", 1):           `no column "nope"`,
		ft.Eq("lang", 1):           `partition value lang="en" cannot be compared with the integer 1`,
		ft.Eq("ok", 1.5):           `partition value ok="true" cannot be compared with the floating-point 1.5`,
		ft.Eq("lang", true):        `partition value lang="en" cannot be compared with the bool true`,
		ft.Eq("lang", time.Time{}): `partition value lang="en" cannot be compared with the time.Time timestamp '0001-01-01T00:00:00Z'`,
	} {
		if _, err := e.MatchText(get); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", e, err, want)
		}
	}
}

func TestCheck(t *testing.T) {
	for e, want := range map[*filter.Expr]string{
		ft.Eq("x", math.NaN()):                 "NaN literal",
		ft.Eq("x", struct{}{}):                 "a literal of type struct {}",
		ft.And(ft.Eq("x", 1), nil):             "a zero Expr",
		ft.In("x", 1, math.NaN()):              "NaN literal",
		filter.Logic(filter.Not):               "not takes one operand",
		ft.Not(ft.Or(ft.Eq("x", math.Inf(1)))): "",
	} {
		err := e.Check()
		if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", e, err, want)
		}
	}
}
