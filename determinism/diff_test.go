package determinism_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/determinism"
	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/rowid"
	"github.com/rowflow/rowflow/sources"
)

type row struct {
	N    int
	Text string
}

type batch struct {
	Name string
	Rows []row
	Tag  any
}

// batches gives 3 batches of 32 rows; at parallelism > 1, change alters
// the second one.
func batches(change func(b *batch)) func(int) *flow.Pipeline {
	return batchesOf(strings.Repeat("x", 10), change)
}

// batchesOf is batches whose rows hold text.
func batchesOf(text string, change func(b *batch)) func(int) *flow.Pipeline {
	return func(p int) *flow.Pipeline {
		return flow.From(sources.Generate(3, func(i int64) (batch, error) {
			b := batch{Name: fmt.Sprint("b", i), Tag: "t"}
			for k := range 32 {
				b.Rows = append(b.Rows, row{N: k, Text: text})
			}
			if p > 1 && i == 1 {
				change(&b)
			}
			return b, nil
		})).Parallel(p)
	}
}

func TestVerifyNamesTheField(t *testing.T) {
	id := rowid.Ordinal(1).Combine(rowid.FromString("generate")).String()
	for _, c := range []struct {
		name, path, at string
		change         func(b *batch)
	}{
		{"deep field", ".Rows[17].Text", `parallelism 1 has "xxxxxxxxxx", parallelism 2 (round 1) has "xxxxxxxxxy"`,
			func(b *batch) { b.Rows[17].Text = "xxxxxxxxxy" }},
		{"shorter slice", "len(.Rows)", "parallelism 1 has 32, parallelism 2 (round 1) has 31",
			func(b *batch) { b.Rows = b.Rows[:31] }},
		{"long string", ".Rows[3].Text", `parallelism 1 has bytes [980:1040] of 2000: "` + strings.Repeat("x", 60) +
			`", parallelism 2 (round 1) has bytes [980:1040] of 2000: "` + strings.Repeat("x", 20) + "é" + strings.Repeat("x", 38) + `"`,
			func(b *batch) { b.Rows[3].Text = strings.Repeat("x", 1000) + "é" + strings.Repeat("x", 998) }},
		{"interface", ".Tag.(string)", `parallelism 1 has "t", parallelism 2 (round 1) has "u"`,
			func(b *batch) { b.Tag = "u" }},
		{"interface type", ".Tag", "parallelism 1 has t, parallelism 2 (round 1) has 7",
			func(b *batch) { b.Tag = 7 }},
	} {
		build := batches(c.change)
		if c.name == "long string" {
			build = batchesOf(strings.Repeat("x", 2000), c.change)
		}
		err := determinism.Verify[batch](context.Background(), build, determinism.Parallelisms(2))
		var d *determinism.Divergence
		if !errors.As(err, &d) {
			t.Fatalf("%s: Verify = %v, want a *Divergence", c.name, err)
		}
		if d.Path != c.path {
			t.Errorf("%s: Path = %q, want %q", c.name, d.Path, c.path)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "determinism: item 1 differs (value): parallelism 1 has partition 0, row "+id+
			", value {Name:b1 Rows:[{N:0 Text:xxxxxxxxxx") {
			t.Errorf("%s: message %q does not start with the item and its fields", c.name, msg)
		}
		if want := "; the values first differ at " + c.path + ": " + c.at; !strings.HasSuffix(msg, want) {
			t.Errorf("%s: message\n%s\ndoes not end with\n%s", c.name, msg, want)
		}
	}
}

// TestVerifyReportText checks the whole report for a difference deep in
// a value longer than the report shows.
func TestVerifyReportText(t *testing.T) {
	err := determinism.Verify[batch](context.Background(), batches(func(b *batch) { b.Rows[17].Text = "xxxxxxxxxy" }),
		determinism.Parallelisms(3))
	id := rowid.Ordinal(1).Combine(rowid.FromString("generate")).String()
	value := "{Name:b1 Rows:[{N:0 Text:xxxxxxxxxx} {N:1 Text:xxxxxxxxxx} {N:2 Text:xxxxxxxxxx} {N:3 Text:xxxxxxxxxx} " +
		"{N:4 Text:xxxxxxxxxx} {N:5 Text:xxxxxxxxxx} {N:6 Text:xxxxxxxxxx} {N:7 Text:xxxxxxxxxx} {N:8 Text…"
	want := "determinism: item 1 differs (value): parallelism 1 has partition 0, row " + id + ", value " + value +
		"; parallelism 3 (round 1) has partition 0, row " + id + ", value " + value +
		`; the values first differ at .Rows[17].Text: parallelism 1 has "xxxxxxxxxx", parallelism 3 (round 1) has "xxxxxxxxxy"`
	if err == nil || err.Error() != want {
		t.Errorf("Verify =\n%v\nwant\n%s", err, want)
	}
}

func TestCompare(t *testing.T) {
	ctx := context.Background()
	same := batches(func(*batch) {})
	if err := determinism.Compare[batch](ctx, same(1), same(4)); err != nil {
		t.Errorf("Compare of equal streams: %v", err)
	}
	changed := batches(func(b *batch) { b.Rows[5].N = -5 })
	err := determinism.Compare[batch](ctx, same(1), changed(2))
	var d *determinism.Divergence
	if !errors.As(err, &d) || d.Parallelism != 0 || d.Round != 0 || d.Position != 1 || d.Path != ".Rows[5].N" {
		t.Fatalf("Compare = %#v", err)
	}
	if want := "; the values first differ at .Rows[5].N: the first pipeline has 5, the second pipeline has -5"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("message\n%s\ndoes not end with\n%s", err, want)
	}
	if !strings.Contains(err.Error(), "determinism: item 1 differs (value): the first pipeline has partition 0, row ") {
		t.Errorf("message %q does not name the first pipeline", err)
	}

	short := flow.From(counting(5))
	err = determinism.Compare[int64](ctx, flow.From(counting(6)), short)
	want := "determinism: the second pipeline ended early, after 5 items; the first pipeline has item 5: partition 0, row " +
		rowid.Ordinal(5).Combine(rowid.FromString("generate")).String() + ", value 5"
	if err == nil || err.Error() != want {
		t.Errorf("Compare of a shorter stream = %v, want %s", err, want)
	}
	failing := flow.From(sources.Generate(3, func(int64) (int64, error) { return 0, errors.New("boom") }))
	if err := determinism.Compare[int64](ctx, flow.From(counting(3)), failing); err == nil ||
		!strings.HasPrefix(err.Error(), "determinism: the second pipeline: ") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("Compare with a failing run = %v", err)
	}
	type hidden struct {
		n int
		p *row
	}
	err = determinism.Compare[hidden](ctx, flow.From(sources.Slice([]hidden{{1, &row{Text: "a"}}})),
		flow.From(sources.Slice([]hidden{{1, &row{Text: "b"}}})))
	if want := `; the values first differ at .p.Text: the first pipeline has "a", the second pipeline has "b"`; err == nil ||
		!strings.HasSuffix(err.Error(), want) {
		t.Errorf("Compare of unexported fields = %v, want a message ending with %s", err, want)
	}
	if err := determinism.Compare[int64](ctx, nil, short); err == nil {
		t.Error("Compare of a nil pipeline succeeded")
	}
}
