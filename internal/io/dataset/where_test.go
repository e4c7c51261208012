package dataset

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/internal/filter"
	ft "github.com/rowflow/rowflow/internal/filter/filtertest"
)

func TestWherePrunesBeforeOpening(t *testing.T) {
	h := makeHive(t)
	ds := mustDiscover(t, h.root)
	tests := []struct {
		e    *filter.Expr
		want []string // year/lang pairs kept
	}{
		{ft.Eq("year", 2023), []string{"2023/de", "2023/en", "2023/fr"}},
		{ft.In("lang", "en", "de"), []string{"2022/de", "2022/en", "2023/de", "2023/en", "2024/de", "2024/en"}},
		{ft.And(ft.Ge("year", 2023), ft.Lt("lang", "en")), []string{"2023/de", "2024/de"}},
		{ft.Or(ft.Eq("year", 2022), ft.Eq("lang", "fr")), []string{"2022/de", "2022/en", "2022/fr", "2023/fr", "2024/fr"}},
		{ft.Not(ft.Between("year", 2022, 2023)), []string{"2024/de", "2024/en", "2024/fr"}},
		{ft.Gt("year", 2023.5), []string{"2024/de", "2024/en", "2024/fr"}}, // numeric
		{ft.Gt("lang", "e"), []string{"2022/en", "2022/fr", "2023/en", "2023/fr", "2024/en", "2024/fr"}},
		{ft.Eq("year", 1999), nil},
		{ft.Eq("year", "2023"), []string{"2023/de", "2023/en", "2023/fr"}}, // text
		{ft.Ne("year", "02023"), []string{"2022/de", "2022/en", "2022/fr", "2023/de", "2023/en", "2023/fr", "2024/de", "2024/en", "2024/fr"}},
		{ft.Eq("year", 2023.0), []string{"2023/de", "2023/en", "2023/fr"}},
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
		p := mustPlan(t, ds, Config{Where: tt.e, Metadata: c})
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
	_, err := New(ds, Config{Where: ft.Or(ft.Eq("year", 2023), ft.Eq("country", "fr"))})
	if err == nil || !strings.Contains(err.Error(), `"country"`) || !strings.Contains(err.Error(), `["year" "lang"]`) {
		t.Errorf("error %v", err)
	}
	if _, err := New(ds, Config{Where: ft.And(ft.Eq("year", 1), nil)}); err == nil {
		t.Error("nil sub-expression accepted")
	}
	if _, err := New(ds, Config{Where: ft.Eq("year", "x")}); err != nil {
		t.Errorf("a string literal: %v", err)
	}
	_, err = New(ds, Config{Where: ft.Eq("lang", 1)})
	if err == nil || err.Error() != `dataset: year=2022/lang=de/part-0.parquet: filter lang = 1: partition value lang="de" cannot be compared with the integer 1` {
		t.Errorf("a value that is not a number: %v", err)
	}
}
