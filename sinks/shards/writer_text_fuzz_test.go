package shards_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/rowflow/rowflow/flow"
	"github.com/rowflow/rowflow/sinks/shards"
	"github.com/rowflow/rowflow/sources"
	"github.com/rowflow/rowflow/sources/text"
)

// textRow has a field of each kind the text shards write.
type textRow struct {
	N   int64            `json:"n" csv:"n"`
	S   string           `json:"s" csv:"s"`
	PS  *string          `json:"ps" csv:"ps"`
	B   []byte           `json:"b" csv:"b"`
	I8  int8             `json:"i8" csv:"i8"`
	U   uint64           `json:"u" csv:"u"`
	F   float64          `json:"f" csv:"f"`
	F32 float32          `json:"f32" csv:"f32"`
	PF  *float64         `json:"pf" csv:"pf"`
	Ok  bool             `json:"ok" csv:"ok"`
	T   time.Time        `json:"t" csv:"t"`
	PT  *time.Time       `json:"pt" csv:"pt"`
	D   decimal.Decimal  `json:"d" csv:"d"`
	PD  *decimal.Decimal `json:"pd" csv:"pd"`
}

// FuzzTextShardsRoundTrip writes generated rows with shards.CSV and
// shards.JSONL and reads them back with text.CSV and text.JSONL, which
// their docs say give every field back: strings of any bytes (delimiters,
// quotes, CR, LF, CRLF, NUL, a byte-order mark, leading and trailing
// space, invalid UTF-8, raw bytes from the fuzzer), the extremes of
// integers, floats that are NaN, infinite, negative zero or subnormal,
// times in zones of every offset with nanoseconds, decimals of every
// scale, nil and non-nil pointers. Where a format cannot say a value, the
// sink must fail, not write another: JSON Lines a string that is not
// UTF-8. What the docs say CSV gives back otherwise stays: a "\r\n" in a
// string is read as "\n" (as encoding/csv reads it), and a pointer to an
// empty string as nil (an empty field).
func FuzzTextShardsRoundTrip(f *testing.F) {
	for i, raw := range []string{"", "a,b", `"q"`, "a\r\nb", "\r", "\xff", "\ufeffx", " x ", "\x00", "NaN", "null", `\N`} {
		f.Add(uint64(i)*0x9e3779b97f4a7c15+3, []byte(raw))
	}
	f.Fuzz(func(t *testing.T, seed uint64, raw []byte) {
		rows := textRows(seed, string(raw))
		for _, format := range []string{"csv", "jsonl"} {
			dir := t.TempDir()
			sink, src := shards.CSV[textRow](dir), text.CSV[textRow](dir)
			if format == "jsonl" {
				sink, src = shards.JSONL[textRow](dir), text.JSONL[textRow](dir)
			}
			err := flow.From(sources.Slice(rows, sources.PartitionItems(7))).Parallel(2).To(sink).Run(t.Context())
			want := rows
			if format == "csv" {
				want = asCSVReads(rows)
			}
			switch bad := format == "jsonl" && !allUTF8(rows); {
			case bad && (err == nil || !strings.Contains(err.Error(), "is not valid UTF-8")):
				t.Fatalf("%s: writing a string that is not UTF-8: %v", format, err)
			case bad:
				continue
			case err != nil:
				t.Fatalf("%s: writing: %v", format, err)
			}
			var back []textRow
			for v, err := range flow.Values[textRow](t.Context(), flow.From(src)) {
				if err != nil {
					t.Fatalf("%s: reading back: %v", format, err)
				}
				back = append(back, v)
			}
			if len(back) != len(want) {
				t.Fatalf("%s: %d rows back, want %d", format, len(back), len(want))
			}
			slices.SortFunc(back, func(a, b textRow) int { return int(a.N - b.N) })
			for i := range want {
				if d := textRowDiff(back[i], want[i]); d != "" {
					t.Fatalf("%s: row %d: %s", format, i, d)
				}
			}
		}
	})
}

// textRows draws 1 to 30 rows from seed, raw among their strings.
func textRows(seed uint64, raw string) []textRow {
	r := rand.New(rand.NewPCG(seed, seed^0x369dea0f31a53f85))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	str := func() string {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pick("a", "Z", "0", " ", ",", `"`, "\n", "\r", "\r\n", "\t", "\x00", "\xff", "\xc3", "é", "€", "\ufeff", "\\", "NaN", "null", "-"))
		}
		if r.IntN(4) == 0 {
			return raw
		}
		return b.String()
	}
	float := func() float64 {
		switch r.IntN(6) {
		case 0:
			return []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, math.MaxFloat64, -math.SmallestNonzeroFloat64}[r.IntN(7)]
		case 1:
			return float64(r.IntN(1000)) / 8
		}
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	}
	instant := func() time.Time {
		zones := []*time.Location{time.UTC, time.FixedZone("", 0), time.FixedZone("", -(3*3600 + 30*60)), time.FixedZone("X", 14*3600),
			time.FixedZone("", -12*3600), time.FixedZone("", 5*3600+45*60)}
		sec := r.Int64N(300*365*86400) - 100*365*86400
		return time.Unix(sec, r.Int64N(1e9)*int64(r.IntN(2))).In(zones[r.IntN(len(zones))])
	}
	dec := func() decimal.Decimal {
		return decimal.New(r.Int64N(2e12)-1e12, -int32(r.IntN(12)))
	}
	rows := make([]textRow, 1+r.IntN(30))
	for i := range rows {
		row := textRow{N: int64(i), S: str(), I8: int8(r.IntN(256) - 128), U: r.Uint64() >> r.IntN(64),
			F: float(), F32: float32(float()), Ok: r.IntN(2) == 0, T: instant(), D: dec()}
		if r.IntN(2) == 0 {
			s := str()
			row.PS = &s
		}
		if r.IntN(2) == 0 {
			row.B = []byte(str())
		}
		if r.IntN(2) == 0 {
			x := float()
			row.PF = &x
		}
		if r.IntN(2) == 0 {
			x := instant()
			row.PT = &x
		}
		if r.IntN(2) == 0 {
			x := dec()
			row.PD = &x
		}
		rows[i] = row
	}
	return rows
}

// allUTF8 reports whether the strings of rows are UTF-8.
func allUTF8(rows []textRow) bool {
	for _, r := range rows {
		if !utf8.ValidString(r.S) || r.PS != nil && !utf8.ValidString(*r.PS) {
			return false
		}
	}
	return true
}

// asCSVReads returns rows as the CSV source reads them back: "\r\n" in a
// string as "\n", a pointer to an empty string as nil.
func asCSVReads(rows []textRow) []textRow {
	out := slices.Clone(rows)
	for i := range out {
		r := &out[i]
		r.S = strings.ReplaceAll(r.S, "\r\n", "\n")
		if r.PS != nil {
			s := strings.ReplaceAll(*r.PS, "\r\n", "\n")
			r.PS = &s
			if s == "" {
				r.PS = nil
			}
		}
		r.B = []byte(strings.ReplaceAll(string(r.B), "\r\n", "\n"))
	}
	return out
}

// textRowDiff describes how got differs from want, or returns "".
func textRowDiff(got, want textRow) string {
	sameF := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}
	sameT := func(a, b time.Time) bool {
		_, oa := a.Zone()
		_, ob := b.Zone()
		return a.Equal(b) && oa == ob
	}
	sameD := func(a, b decimal.Decimal) bool { return a.String() == b.String() }
	switch {
	case got.N != want.N:
		return fmt.Sprintf("n %d, want %d", got.N, want.N)
	case got.S != want.S:
		return fmt.Sprintf("s %q, want %q", got.S, want.S)
	case (got.PS == nil) != (want.PS == nil) || got.PS != nil && *got.PS != *want.PS:
		return fmt.Sprintf("ps %q, want %q", deref(got.PS), deref(want.PS))
	case string(got.B) != string(want.B):
		return fmt.Sprintf("b %q, want %q", got.B, want.B)
	case got.I8 != want.I8 || got.U != want.U || got.Ok != want.Ok:
		return fmt.Sprintf("i8 u ok %v %v %v, want %v %v %v", got.I8, got.U, got.Ok, want.I8, want.U, want.Ok)
	case !sameF(got.F, want.F) || !sameF(float64(got.F32), float64(want.F32)):
		return fmt.Sprintf("f f32 %v %v, want %v %v", got.F, got.F32, want.F, want.F32)
	case (got.PF == nil) != (want.PF == nil) || got.PF != nil && !sameF(*got.PF, *want.PF):
		return fmt.Sprintf("pf %v, want %v", deref(got.PF), deref(want.PF))
	case !sameT(got.T, want.T):
		return fmt.Sprintf("t %v, want %v", got.T, want.T)
	case (got.PT == nil) != (want.PT == nil) || got.PT != nil && !sameT(*got.PT, *want.PT):
		return fmt.Sprintf("pt %v, want %v", deref(got.PT), deref(want.PT))
	case !sameD(got.D, want.D):
		return fmt.Sprintf("d %v, want %v", got.D, want.D)
	case (got.PD == nil) != (want.PD == nil) || got.PD != nil && !sameD(*got.PD, *want.PD):
		return fmt.Sprintf("pd %v, want %v", deref(got.PD), deref(want.PD))
	}
	return ""
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}
