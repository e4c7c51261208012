package rowid

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

var textVectors = []struct {
	id   ID
	text string
}{
	{ID{}, "00000000000000000000000000000000"},
	{ID{Lo: 1}, "00000000000000000000000000000001"},
	{ID{Hi: 1}, "00000000000000010000000000000000"},
	{ID{Lo: 0x0123456789abcdef, Hi: 0xfedcba9876543210}, "fedcba98765432100123456789abcdef"},
	{ID{Lo: ^uint64(0), Hi: ^uint64(0)}, "ffffffffffffffffffffffffffffffff"},
	// Next(0), from the Python transcription (see literalVectors).
	{ID{Lo: 0x0000000052dce729, Hi: 0x00000001d699de82}, "00000001d699de820000000052dce729"},
}

func TestString(t *testing.T) {
	for _, v := range textVectors {
		if got := v.id.String(); got != v.text {
			t.Errorf("%#v.String() = %q, want %q", v.id, got, v.text)
		}
		b, err := v.id.AppendText([]byte("id="))
		if err != nil || string(b) != "id="+v.text {
			t.Errorf("%#v.AppendText = %q, %v; want %q", v.id, b, err, "id="+v.text)
		}
		m, err := v.id.MarshalText()
		if err != nil || string(m) != v.text {
			t.Errorf("%#v.MarshalText = %q, %v; want %q", v.id, m, err, v.text)
		}
	}
}

// String agrees with a straightforward formatting of Hi and then Lo.
func TestStringMatchesFormatUint(t *testing.T) {
	for _, id := range randomIDs(1000) {
		want := strings.Repeat("0", 16-len(strconv.FormatUint(id.Hi, 16))) + strconv.FormatUint(id.Hi, 16) +
			strings.Repeat("0", 16-len(strconv.FormatUint(id.Lo, 16))) + strconv.FormatUint(id.Lo, 16)
		if got := id.String(); got != want {
			t.Fatalf("%#v.String() = %q, want %q", id, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, v := range textVectors {
		for _, s := range []string{v.text, strings.ToUpper(v.text)} {
			got, err := Parse(s)
			if err != nil || got != v.id {
				t.Errorf("Parse(%q) = %#v, %v; want %#v", s, got, err, v.id)
			}
		}
	}
	mixed := "FeDcBa98765432100123456789AbCdEf"
	if got, err := Parse(mixed); err != nil || got != (ID{Lo: 0x0123456789abcdef, Hi: 0xfedcba9876543210}) {
		t.Errorf("Parse(%q) = %#v, %v", mixed, got, err)
	}
}

func TestParseErrors(t *testing.T) {
	valid := "fedcba98765432100123456789abcdef"
	for _, tt := range []struct {
		in   string
		want string // the error text after `rowid: invalid ID "<in>": `
	}{
		{"", "length 0, want 32 hex digits"},
		{"0", "length 1, want 32 hex digits"},
		{valid[:31], "length 31, want 32 hex digits"},
		{valid + "0", "length 33, want 32 hex digits"},
		{"0x" + valid[2:], `"x" at offset 1 is not a hex digit`},
		{" " + valid[1:], `" " at offset 0 is not a hex digit`},
		{valid[:31] + "g", `"g" at offset 31 is not a hex digit`},
		{valid[:16] + "-" + valid[17:], `"-" at offset 16 is not a hex digit`},
		{"+" + valid[1:], `"+" at offset 0 is not a hex digit`},
		{valid[:10] + "\xc3" + valid[11:], `"\xc3" at offset 10 is not a hex digit`},
		{"fedcba9876543210_123456789abcdef", `"_" at offset 16 is not a hex digit`},
		{"ﬀ" + valid[3:], `"\xef" at offset 0 is not a hex digit`},
	} {
		id, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", tt.in, id)
			continue
		}
		if want := "rowid: invalid ID " + strconv.Quote(tt.in) + ": " + tt.want; err.Error() != want {
			t.Errorf("Parse(%q) error = %q, want %q", tt.in, err, want)
		}
		if !id.IsZero() {
			t.Errorf("Parse(%q) returned %#v with its error, want the zero ID", tt.in, id)
		}
	}
}

func TestUnmarshalText(t *testing.T) {
	var id ID
	if err := id.UnmarshalText([]byte("FEDCBA98765432100123456789ABCDEF")); err != nil {
		t.Fatal(err)
	}
	want := ID{Lo: 0x0123456789abcdef, Hi: 0xfedcba9876543210}
	if id != want {
		t.Fatalf("UnmarshalText gave %#v, want %#v", id, want)
	}
	err := id.UnmarshalText([]byte("not an id"))
	if err == nil || !strings.HasPrefix(err.Error(), `rowid: invalid ID "not an id"`) {
		t.Fatalf("UnmarshalText(bad) error = %v", err)
	}
	if id != want {
		t.Fatalf("failed UnmarshalText changed the ID to %#v", id)
	}
}

func TestJSON(t *testing.T) {
	type row struct {
		ID    ID            `json:"id"`
		Seen  map[ID]string `json:"seen"`
		Other *ID           `json:"other"`
	}
	a, b := FromString("a"), FromString("b")
	in := row{ID: a, Seen: map[ID]string{b: "b"}, Other: &b}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"` + a.String() + `","seen":{"` + b.String() + `":"b"},"other":"` + b.String() + `"}`
	if string(data) != want {
		t.Fatalf("json.Marshal = %s, want %s", data, want)
	}
	var out row
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if out.ID != a || out.Seen[b] != "b" || len(out.Seen) != 1 || out.Other == nil || *out.Other != b {
		t.Fatalf("json.Unmarshal = %+v, want %+v", out, in)
	}
	if err := json.Unmarshal([]byte(`{"id":"xyz"}`), &out); err == nil || !strings.Contains(err.Error(), "rowid: ") {
		t.Fatalf("json.Unmarshal of a bad ID: error = %v", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, v := range textVectors {
		f.Add(v.text, v.id.Lo, v.id.Hi)
		f.Add(strings.ToUpper(v.text), v.id.Hi, v.id.Lo)
	}
	f.Add("", uint64(0), uint64(0))
	f.Add("0x0123456789abcdef0123456789abcd", uint64(1), uint64(2))
	f.Add("+123456789abcdef0123456789abcdef", uint64(3), uint64(4))
	f.Add("0123456789abcdef_0123456789abcde", uint64(5), uint64(6))
	f.Add("ﬀ0123456789abcdef0123456789abcd", uint64(7), uint64(8))
	f.Add(strings.Repeat("f", 33), ^uint64(0), ^uint64(0))

	f.Fuzz(func(t *testing.T, s string, lo, hi uint64) {
		// Any ID survives String and Parse.
		id := ID{Lo: lo, Hi: hi}
		text := id.String()
		if back, err := Parse(text); err != nil || back != id {
			t.Fatalf("Parse(%q) = %#v, %v; want %#v", text, back, err, id)
		}

		// Parse accepts s exactly when an independent check does.
		got, err := Parse(s)
		var want ID
		valid := len(s) == 32
		if valid {
			h, errHi := strconv.ParseUint(s[:16], 16, 64)
			l, errLo := strconv.ParseUint(s[16:], 16, 64)
			valid = errHi == nil && errLo == nil
			want = ID{Lo: l, Hi: h}
		}
		if valid != (err == nil) {
			t.Fatalf("Parse(%q) error = %v, want valid = %v", s, err, valid)
		}
		var u ID
		uerr := u.UnmarshalText([]byte(s))
		if (uerr == nil) != (err == nil) || u != got {
			t.Fatalf("UnmarshalText(%q) = %#v, %v; Parse = %#v, %v", s, u, uerr, got, err)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "rowid: invalid ID "+strconv.Quote(s)+": ") {
				t.Fatalf("Parse(%q) error %q lacks the prefix and quoted input", s, err)
			}
			return
		}
		// What Parse accepts round-trips through String.
		if got != want {
			t.Fatalf("Parse(%q) = %#v, want %#v", s, got, want)
		}
		if text := got.String(); text != strings.ToLower(s) {
			t.Fatalf("Parse(%q).String() = %q", s, text)
		}
	})
}
