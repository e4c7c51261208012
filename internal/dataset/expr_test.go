package dataset

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestCompareValues(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"2024", "2024", 0},
		{"9", "10", -1},    // numeric, not "9" > "10"
		{"07", "7", 0},     // numeric equality
		{"-3", "2", -1},    // signed
		{"1.5", "10", -1},  // float against int
		{"2e3", "1999", 1}, // exponent
		{"10", "9.99", 1},  // mixed
		{"de", "en", -1},   // strings
		{"10", "9a", -1},   // one side not a number: strings
		{"NaN", "1", 1},    // "NaN" is a string here
		{"Inf", "9", 1},    // so is "Inf"
		{"0x10", "9", -1},  // and hexadecimal
		{"", "0", -1},      // empty is a string
		{"9223372036854775807", "9223372036854775806", 1}, // exact int64
	}
	for _, tt := range tests {
		if got := compareValues(tt.a, tt.b); got != tt.want {
			t.Errorf("compareValues(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := compareValues(tt.b, tt.a); got != -tt.want {
			t.Errorf("compareValues(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

func TestExprMatch(t *testing.T) {
	p := Partition{{"year", "2023"}, {"lang", "en"}, {"month", "07"}}
	tests := []struct {
		e    Expr
		want bool
		str  string
	}{
		{Eq("year", "2023"), true, `year = "2023"`},
		{Eq("month", "7"), true, `month = "7"`},
		{Ne("lang", "en"), false, `lang != "en"`},
		{In("lang", "de", "en"), true, `lang in ("de", "en")`},
		{In("lang", "de", "fr"), false, `lang in ("de", "fr")`},
		{In("lang"), false, `lang in ()`},
		{Lt("month", "10"), true, `month < "10"`},
		{Le("year", "2023"), true, `year <= "2023"`},
		{Gt("year", "2023"), false, `year > "2023"`},
		{Ge("lang", "de"), true, `lang >= "de"`},
		{Lt("lang", "en"), false, `lang < "en"`},
		{Between("year", "2022", "2023"), true, `(year >= "2022" and year <= "2023")`},
		{Between("month", "8", "12"), false, `(month >= "8" and month <= "12")`},
		{Not(Eq("lang", "en")), false, `not (lang = "en")`},
		{And(Eq("year", "2023"), In("lang", "en")), true, `(year = "2023" and lang in ("en"))`},
		{And(Eq("year", "2023"), Eq("lang", "de")), false, `(year = "2023" and lang = "de")`},
		{Or(Eq("year", "1999"), Eq("lang", "en")), true, `(year = "1999" or lang = "en")`},
		{Or(Eq("year", "1999"), Eq("lang", "de")), false, `(year = "1999" or lang = "de")`},
		{And(), true, "true"},
		{Or(), false, "false"},
	}
	for _, tt := range tests {
		got, err := tt.e.Match(p)
		if err != nil || got != tt.want {
			t.Errorf("%s: Match = %v, %v; want %v", tt.e, got, err, tt.want)
		}
		if s := tt.e.String(); s != tt.str {
			t.Errorf("String() = %s, want %s", s, tt.str)
		}
	}
}

func TestExprMatchErrors(t *testing.T) {
	p := Partition{{"year", "2023"}}
	for _, e := range []Expr{Eq("lang", "en"), In("lang", "en"), Not(Lt("lang", "x")), Or(Eq("year", "1"), Eq("lang", "x")), Not(nil), And(nil)} {
		if _, err := e.Match(p); err == nil {
			t.Errorf("%s: no error", e)
		}
	}
}

func TestWherePrunesBeforeOpening(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	tests := []struct {
		e    Expr
		want []string // year/lang pairs kept
	}{
		{Eq("year", "2023"), []string{"2023/de", "2023/en", "2023/fr"}},
		{In("lang", "en", "de"), []string{"2022/de", "2022/en", "2023/de", "2023/en", "2024/de", "2024/en"}},
		{And(Ge("year", "2023"), Lt("lang", "en")), []string{"2023/de", "2024/de"}},
		{Or(Eq("year", "2022"), Eq("lang", "fr")), []string{"2022/de", "2022/en", "2022/fr", "2023/fr", "2024/fr"}},
		{Not(Between("year", "2022", "2023")), []string{"2024/de", "2024/en", "2024/fr"}},
		{Gt("year", "2023.5"), []string{"2024/de", "2024/en", "2024/fr"}}, // numeric
		{Gt("lang", "e"), []string{"2022/en", "2022/fr", "2023/en", "2023/fr", "2024/en", "2024/fr"}},
		{Eq("year", "1999"), nil},
	}
	for _, tt := range tests {
		var want []string
		for _, yl := range tt.want {
			y, l, _ := strings.Cut(yl, "/")
			for _, part := range []string{"0", "1"} {
				want = append(want, "year="+y+"/lang="+l+"/part-"+part+".parquet")
			}
		}
		c := &counter{}
		p := mustPlan(t, ds, Where(tt.e), WithMetadata(c))
		if c.count() != 0 {
			t.Errorf("%s: New read %d footers", tt.e, c.count())
		}
		frags := collectAll(t, p.Fragments(context.Background(), Position{}))
		var got []string
		for _, f := range frags {
			if len(got) == 0 || got[len(got)-1] != f.Path {
				got = append(got, f.Path)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: files %q, want %q", tt.e, got, want)
		}
		if opened := c.files(); !slices.Equal(opened, want) {
			t.Errorf("%s: footers read %q, want exactly %q", tt.e, opened, want)
		}
		if p.NumFiles() != len(want) {
			t.Errorf("%s: NumFiles %d, want %d", tt.e, p.NumFiles(), len(want))
		}
	}
}

func TestWhereUnknownColumn(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	// The unknown column hides behind an Or that would short-circuit.
	_, err := New(ds, Where(Or(Eq("year", "2023"), Eq("country", "fr"))))
	if err == nil || !strings.Contains(err.Error(), `"country"`) || !strings.Contains(err.Error(), `["year" "lang"]`) {
		t.Errorf("error %v", err)
	}
	if _, err := New(ds, Where(And(Eq("year", "1"), nil))); err == nil {
		t.Error("nil sub-expression accepted")
	}
	if _, err := New(ds, Where(nil)); err == nil {
		t.Error("nil expression accepted")
	}
}
