package text

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/internal/testutil"
	"github.com/rowflow/rowflow/sources"
)

// FuzzCSVFastPath is TestCSVFastPathAgrees over generated files: a seed
// draws a CSV file of fastRow's columns (now and then one too few or too
// many, or a header in quotes) whose records mix every case the fast path
// must read as encoding/csv does or hand over to it: fields quoted or not,
// with delimiters, quotes, "\r", "\n" and multi-byte characters inside,
// bare quotes and text after a closing quote, numbers and booleans that
// parse and that do not, records of the wrong field count, "\n", "\r\n"
// and a lone "\r" at line ends, blank lines, no final newline and, rarely,
// a field longer than the read buffer; raw bytes are spliced in as a field
// or a line. Read with the fast path and without, as structs and as
// records, with the drawn delimiter, null string, partition size,
// parallelism and SkipBad, the runs must agree item for item (part, ID,
// values), error for error and report for report.
func FuzzCSVFastPath(f *testing.F) {
	raws := []string{"", `"`, `""`, "\r", "\r\n", ",", `a"b`, "\xef\xbb\xbf", "1e5", "-0", "99999", "true", "\n", `"x"y`,
		`"a""b"`, "\t", ";", "\xff", "é", `"` + "\r\n" + `"`}
	for i := range testutil.FuzzSeeds(40) {
		f.Add(uint64(i)*0x9e3779b97f4a7c15+7, []byte(raws[i%len(raws)]))
	}
	f.Fuzz(func(t *testing.T, seed uint64, raw []byte) {
		if len(raw) > 128 {
			raw = raw[:128]
		}
		c := newCSVCase(seed, raw)
		root := t.TempDir()
		dir := filepath.Join(root, "lang=xx")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		extra := []CSVOption{Comma(rune(c.comma))}
		if c.null != "" {
			extra = append(extra, NullString(c.null))
		}
		file := filepath.Join("lang=xx", "f.csv")
		fastRuns, fastRep := readCSVBoth(root, file, true, true, c.skip, c.partBytes, c.par, extra...)
		slowRuns, slowRep := readCSVBoth(root, file, false, true, c.skip, c.partBytes, c.par, extra...)
		for i, fast := range fastRuns {
			if !fast.agrees(slowRuns[i]) {
				t.Fatalf("%s\nfast path:\n%s\nencoding/csv:\n%s", c, fast, slowRuns[i])
			}
		}
		if fastRep != slowRep {
			t.Fatalf("%s\nreports differ: fast path %s, encoding/csv %s", c, fastRep, slowRep)
		}
		if fastRuns[1].err == "" {
			checkCSVRanks(t, c, root, file, fastRuns[1].items, extra...)
			checkCSVResume(t, c, root, file, fastRuns[1].items, extra...)
		}
	})
}

// csvRecordsRun is the case's file read as records with the fast path.
func csvRecordsRun(c *csvCase, root, file string, extra ...CSVOption) *flow.Pipeline {
	opts := append([]CSVOption{sources.Files(file), PartitionBytes(c.partBytes)}, extra...)
	if c.skip {
		opts = append(opts, sources.SkipBad(new(sources.SkipReport)))
	}
	return flow.From(CSV[sources.Record](root, opts...))
}

func recordLine(it flow.Item[sources.Record]) string {
	return fmt.Sprintf("%d %s %q %q", it.Part, it.ID, it.Value.Names, it.Value.Values)
}

// checkCSVResume reads the case's file as records at its parallelism up
// to a checkpoint after item k, k drawn from the file, and resumes from
// it at parallelism 1: the items after the checkpoint must be one's after
// item k.
func checkCSVResume(t *testing.T, c *csvCase, root, file string, one []string, extra ...CSVOption) {
	t.Helper()
	if len(one) == 0 {
		return
	}
	k := 1 + len(c.text)%len(one)
	ck, err := testutil.CheckpointAfter[sources.Record](context.Background(), csvRecordsRun(c, root, file, extra...).Parallel(c.par), k)
	if err != nil {
		t.Fatalf("%s\ncheckpoint after item %d: %v", c, k, err)
	}
	var rest []string
	for it, err := range flow.Items[sources.Record](context.Background(), csvRecordsRun(c, root, file, extra...).Resume(ck)) {
		if err != nil {
			t.Fatalf("%s\nresumed after item %d: %v", c, k, err)
		}
		rest = append(rest, recordLine(it))
	}
	if !slices.Equal(rest, one[k:]) {
		t.Fatalf("%s\nresumed after item %d of %d:\n%s\nwant:\n%s", c, k, len(one), strings.Join(rest, "\n"), strings.Join(one[k:], "\n"))
	}
}

// checkCSVRanks reads the case's file as c.world ranks of one run, as
// records, and checks that the ranks' items, merged by partition number,
// are one's items, the items of the run of one rank, IDs, values and
// order. The partition numbers themselves may differ: a run of several
// ranks cuts a small file into smaller byte ranges (see rankSplitBytes).
func checkCSVRanks(t *testing.T, c *csvCase, root, file string, one []string, extra ...CSVOption) {
	t.Helper()
	type item struct {
		part int64
		line string
	}
	var union []item
	for rank := range c.world {
		p := csvRecordsRun(c, root, file, extra...).Parallel(c.par).WithRank(rank, c.world)
		for it, err := range flow.Items[sources.Record](context.Background(), p) {
			if err != nil {
				t.Fatalf("%s\nrank %d of %d: %v", c, rank, c.world, err)
			}
			union = append(union, item{it.Part, recordLine(it)})
		}
	}
	slices.SortStableFunc(union, func(a, b item) int { return cmp.Compare(a.part, b.part) })
	got, want := make([]string, len(union)), make([]string, len(one))
	for i, it := range union {
		_, got[i], _ = strings.Cut(it.line, " ") // without the partition number
	}
	for i, line := range one {
		_, want[i], _ = strings.Cut(line, " ")
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s\n%d ranks read:\n%s\none rank read:\n%s", c, c.world, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// csvCase is a generated file and the options it is read with.
type csvCase struct {
	text      string
	comma     byte
	null      string
	partBytes int64
	par       int
	skip      bool
	world     int // the ranks that read the file together
}

func (c *csvCase) String() string {
	return fmt.Sprintf("Comma(%q) NullString(%q) PartitionBytes(%d) Parallel(%d) SkipBad(%v), %d ranks\nfile: %q",
		c.comma, c.null, c.partBytes, c.par, c.skip, c.world, c.text)
}

// newCSVCase draws a case from seed, with raw spliced into its file.
func newCSVCase(seed uint64, raw []byte) *csvCase {
	r := rand.New(rand.NewPCG(seed, seed^0xda942042e4dd58b5))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	chance := func(p float64) bool { return r.Float64() < p }
	c := &csvCase{
		comma:     []byte{',', ',', ';', '\t'}[r.IntN(4)],
		partBytes: []int64{16, 40, 200, 1 << 20}[r.IntN(4)],
		skip:      r.IntN(2) == 0,
		par:       1,
	}
	if c.skip && r.IntN(2) == 0 {
		c.par = 3 // which failing partition's error comes first is not fixed
	}
	if r.IntN(3) == 0 {
		c.null = pick("NA", `\N`, "null")
	}
	sep := string(c.comma)
	// How often each oddity comes is drawn for the file, so that many
	// files are clean and read by the fast path throughout.
	pQuote, pSpecial, pBad, pBlank, pCRLF := pickF(r, 0, 0.1, 0.4), pickF(r, 0, 0.05, 0.2), pickF(r, 0, 0, 0.02, 0.1),
		pickF(r, 0, 0.03), pickF(r, 0, 0, 0.3, 1)
	text := func() string {
		var b strings.Builder
		for range r.IntN(12) {
			if chance(pSpecial) {
				b.WriteString(pick(sep, `"`, "\n", "\r", "\r\n", `""`, c.null))
				continue
			}
			b.WriteString(pick("a", "b", "z", " ", "0", "7", ".", "-", "é", "€", "日", "x y"))
		}
		return b.String()
	}
	quote := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
	// field writes a field's text as a writer would: quoted where it must
	// be (or now and then where it need not), or, if bad, as it is.
	field := func(s string) string {
		switch {
		case chance(pBad):
			return pick(s, `"`+s+`"x`, `a"b`, `"unterminated`, s+`"`)
		case strings.ContainsAny(s, sep+"\"\r\n") || s == "" && chance(0.3) || chance(pQuote):
			return quote(s)
		}
		return s
	}
	number := func(valid ...string) string {
		if chance(pBad * 3) {
			return pick("x", "", " 1", "+1", "0x10", "1_000", "9223372036854775808", "1e400", "NaN", "inf", ".5", "5.", "--1", c.null)
		}
		return pick(valid...)
	}
	names := []string{"id", "name", "score", "small", "note", "raw", "ok"}
	switch r.IntN(12) {
	case 0:
		names = names[:6]
	case 1:
		names = append(names, "extra")
	}
	hdr := make([]string, len(names))
	for i, n := range names {
		hdr[i] = n
		if chance(0.1) {
			hdr[i] = quote(n)
		}
	}
	var lines []string
	lines = append(lines, strings.Join(hdr, sep))
	for i := range r.IntN(60) {
		if chance(pBlank) {
			lines = append(lines, pick("", "\r"))
			continue
		}
		fields := []string{
			number(fmt.Sprint(i), fmt.Sprint(-i), "0", "-0", "9223372036854775807"),
			field(text()),
			number("0.5", "1e3", "-2", "1.25", "3", "0", "-0.0", "1E-3"),
			number("3", "-7", "0", "32767", "-32768", "32768", ""),
			field(text()),
			field(text()),
			pick("true", "false", "1", "0", "t", "F", "TRUE", "False", "maybe", ""),
		}
		if chance(0.01) {
			fields[1] = field(strings.Repeat("y", 70<<10+r.IntN(80<<10))) // beyond the read buffer
		}
		switch n := len(names); {
		case chance(pBad):
			fields = fields[:r.IntN(len(fields))]
		case n < len(fields):
			fields = fields[:n]
		case n > len(fields):
			fields = append(fields, field(text()))
		}
		lines = append(lines, strings.Join(fields, sep))
	}
	if len(raw) > 0 {
		at := 1 + r.IntN(len(lines))
		if r.IntN(2) == 0 && at < len(lines) { // as a field of a record
			lines[at] += sep + string(raw)
		} else {
			lines = append(lines[:at:at], append([]string{string(raw)}, lines[at:]...)...)
		}
	}
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		if i < len(lines)-1 || chance(0.8) {
			if chance(pCRLF) {
				b.WriteString("\r\n")
			} else {
				b.WriteString("\n")
			}
		}
	}
	c.text = b.String()
	c.world = 2 + r.IntN(3) // drawn last: a seed's other draws stay those of before
	return c
}

// pickF returns one of xs at random.
func pickF(r *rand.Rand, xs ...float64) float64 { return xs[r.IntN(len(xs))] }
