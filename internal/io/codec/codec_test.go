package codec

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestRoundTripAndDeterminism(t *testing.T) {
	data := []byte(strings.Repeat("a,b,c\n1,2,3\n", 5000))
	for _, c := range []Codec{None, Gzip, Zstd, S2} {
		var outs [2]bytes.Buffer
		for i := range outs {
			w, err := c.NewWriter(&outs[i])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(outs[0].Bytes(), outs[1].Bytes()) {
			t.Errorf("%v: two writes of the same data differ", c)
		}
		if c != None && outs[0].Len() >= len(data)/4 {
			t.Errorf("%v: %d bytes from %d: not compressed", c, outs[0].Len(), len(data))
		}
		r, err := c.NewReader(&outs[0])
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%v: read back %d bytes, %v; want %d", c, len(got), err, len(data))
		}
	}
}

func TestNames(t *testing.T) {
	for path, want := range map[string]Codec{"a.csv": None, "a.csv.gz": Gzip, "a.jsonl.zst": Zstd, "a.jsonl.zstd": Zstd, "x/a.csv.s2": S2} {
		if got := ForPath(path); got != want {
			t.Errorf("ForPath(%q) = %v, want %v", path, got, want)
		}
	}
	for _, name := range []string{"none", "gzip", "zstd", "s2"} {
		c, err := Parse(name)
		if err != nil || c.String() != name {
			t.Errorf("Parse(%q) = %v, %v", name, c, err)
		}
	}
	if _, err := Parse("lz4"); err == nil || !strings.Contains(err.Error(), `codec: unknown compression "lz4"`) {
		t.Errorf("Parse(lz4): %v", err)
	}
	if got := Suffixes(".csv"); strings.Join(got, " ") != ".csv .csv.gz .csv.zst .csv.zstd .csv.s2" {
		t.Errorf("Suffixes = %q", got)
	}
}
